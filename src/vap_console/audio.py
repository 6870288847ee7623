"""Playing a WAV on this machine's speakers, when it can: a small, Textual-free Player any screen
or command shares (the Voices screen's samples, a Talk screen's audio).

``open_player()`` answers the best Player available and, when sound is off, one sentence saying
why: the optional ``audio`` extra is not installed (``pip install 'vap-console[audio]'``), no output
device opens, or the console runs under ``vap web`` (the sound would play on the server, not in
the browser). Nothing here raises for a missing device or library: a caller that gets a silent
player saves the audio and shows its path instead.

miniaudio plays through ALSA, PulseAudio, CoreAudio or WASAPI from native code inside its wheel;
a machine without a sound card makes libasound print to stderr, which is the console's screen, so
its error handler is silenced before a device is tried.
"""

from __future__ import annotations

import contextlib
import ctypes
import ctypes.util
import io
import os
import threading
import wave
from pathlib import Path
from typing import Any, Protocol

# launch.IN_BROWSER, which `vap web` sets for each console it serves (launch.py imports the console,
# so it is named again here rather than imported; tests/test_audio_player.py holds them equal).
IN_BROWSER = "VAP_IN_BROWSER"

# Why sound is off, in words shared by the Voices screen (samples saved instead) and the Talk
# screen (the call is text-only).
WHY_NO_MODULE = "the audio extra is not installed (pip install 'vap-console[audio]')"
WHY_NO_DEVICE = "no audio output device opens on this machine"
WHY_IN_WEB = "under `vap web` sound would play on the server, not in your browser"
NO_MODULE = f"sound is off: {WHY_NO_MODULE}, so samples are saved instead"
NO_DEVICE = f"sound is off: {WHY_NO_DEVICE}, so samples are saved instead"
IN_WEB = "sound is off under `vap web` (it would play on the server), so samples are saved instead"


class Player(Protocol):
    """Plays one WAV at a time; a new ``play_wav`` stops the one playing."""

    audible: bool

    def play_wav(self, wav: bytes | Path) -> None: ...

    def stop(self) -> None: ...


class SilentPlayer:
    """No sound: what a machine without a device (or `vap web`) gets. Playing does nothing."""

    audible = False

    def play_wav(self, wav: bytes | Path) -> None:
        return None

    def stop(self) -> None:
        return None


def _pcm16(wav: bytes | Path) -> tuple[bytes, int, int]:
    data = wav.read_bytes() if isinstance(wav, Path) else wav
    with wave.open(io.BytesIO(data), "rb") as reader:
        if reader.getsampwidth() != 2:
            raise ValueError("only 16-bit PCM WAV files play")
        return reader.readframes(reader.getnframes()), reader.getframerate(), reader.getnchannels()


class MiniaudioPlayer:
    """Plays through miniaudio's default output device, one device opened per sound."""

    audible = True

    def __init__(self, miniaudio: Any) -> None:
        self._miniaudio = miniaudio
        self._device: Any = None
        self._lock = threading.Lock()

    def play_wav(self, wav: bytes | Path) -> None:
        pcm, rate, channels = _pcm16(wav)
        ma = self._miniaudio
        self.stop()
        device = ma.PlaybackDevice(output_format=ma.SampleFormat.SIGNED16, nchannels=channels, sample_rate=rate)
        stream = _chunks(pcm, 2 * channels)
        next(stream)  # miniaudio sends the frames wanted into a started generator
        with self._lock:
            self._device = device
        device.start(stream)

    def stop(self) -> None:
        with self._lock:
            device, self._device = self._device, None
        if device is not None:
            with contextlib.suppress(Exception):
                device.close()


def _chunks(pcm: bytes, frame_bytes: int) -> Any:
    """miniaudio's callback generator: asked for n frames, yields at most that many, then silence."""
    offset = 0
    wanted = yield b""
    while True:
        size = wanted * frame_bytes
        piece = pcm[offset:offset + size]
        offset += size
        wanted = yield piece if piece else b"\0" * size


_ALSA_QUIET: list[Any] = []  # the no-op handler, kept alive for as long as libasound may call it


def silence_alsa() -> None:
    """libasound prints every failed lookup to stderr: give it a handler that prints nothing."""
    if _ALSA_QUIET:
        return
    name = ctypes.util.find_library("asound")
    if name is None:
        return
    with contextlib.suppress(OSError, AttributeError):
        lib = ctypes.CDLL(name)
        handler_type = ctypes.CFUNCTYPE(None, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p, ctypes.c_int,
                                        ctypes.c_char_p)
        handler = handler_type(lambda *_args: None)
        lib.snd_lib_error_set_handler(handler)
        _ALSA_QUIET.append(handler)


def open_player(env: dict[str, str] | None = None) -> tuple[Player, str | None]:
    """The best Player here, and None; or a SilentPlayer and the sentence saying why sound is off.

    Opens (and closes) the default output device once to know it works: call it off the UI loop.
    """
    environ = os.environ if env is None else env
    if environ.get(IN_BROWSER):
        return SilentPlayer(), IN_WEB
    try:
        import miniaudio
    except Exception:  # noqa: BLE001 - not installed, or its native code will not load
        return SilentPlayer(), NO_MODULE
    silence_alsa()
    try:
        device = miniaudio.PlaybackDevice(output_format=miniaudio.SampleFormat.SIGNED16, nchannels=1,
                                          sample_rate=24_000)
        device.close()
    except Exception:  # noqa: BLE001 - MiniaudioError or whatever its backend raised: no device
        return SilentPlayer(), NO_DEVICE
    return MiniaudioPlayer(miniaudio), None
