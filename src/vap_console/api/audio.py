"""The agent's audio on this machine, behind one small interface (Textual-free).

``Player`` is what the Talk screen feeds each ``output_audio.delta`` to and flushes on an
``interruption``. ``SilentPlayer`` plays nothing: tests, ``vap web``, and (until a device player is
built) every machine use it, and the screen says once that the call is text-only. ``open_player()``
picks one and says why it is silent.

``AudioTape`` keeps what the agent said (PCM s16le, 24 kHz, mono) so ``s`` can save it as a WAV;
it keeps at most ``MAX_TAPE_SECONDS`` (a call's longest, with room to spare), then stops growing.
"""

from __future__ import annotations

import wave
from pathlib import Path
from typing import Protocol

from vap_console.api.realtime import SAMPLE_RATE, SAMPLE_WIDTH

MAX_TAPE_SECONDS = 30 * 60


class Player(Protocol):
    """Plays the agent's speech as it arrives."""

    audible: bool

    def play(self, pcm: bytes) -> None: ...

    def flush(self) -> None:
        """Drop what is queued and not yet heard (the caller spoke over the agent)."""

    def close(self) -> None: ...


class SilentPlayer:
    """Plays nothing: the call is text-only."""

    audible = False

    def __init__(self) -> None:
        self.frames = 0
        self.flushes = 0

    def play(self, pcm: bytes) -> None:
        self.frames += 1

    def flush(self) -> None:
        self.flushes += 1

    def close(self) -> None:
        pass


TEXT_ONLY = "Text only: this console does not play the agent's voice yet; ctrl+s saves it as a WAV."


def open_player(*, want_sound: bool = True) -> tuple[Player, str]:
    """A player and, when it is silent, the sentence saying why (shown once). Playing through a
    device (an optional ``vap-console[audio]`` extra with miniaudio) is not built yet: until it is,
    every call is text-only and the screen says so rather than promise an extra that does nothing."""
    if not want_sound:
        return SilentPlayer(), "Text only: the console in a browser plays no sound; ctrl+s saves it as a WAV."
    return SilentPlayer(), TEXT_ONLY


class AudioTape:
    """What the agent said, to save as a WAV."""

    def __init__(self, sample_rate: int = SAMPLE_RATE, max_seconds: int = MAX_TAPE_SECONDS) -> None:
        self.sample_rate = sample_rate
        self._pcm = bytearray()
        self._max = sample_rate * SAMPLE_WIDTH * max_seconds

    def add(self, pcm: bytes) -> None:
        room = self._max - len(self._pcm)
        if room > 0:
            self._pcm += pcm[:room - room % SAMPLE_WIDTH]

    @property
    def seconds(self) -> float:
        return len(self._pcm) / (self.sample_rate * SAMPLE_WIDTH)

    def __len__(self) -> int:
        return len(self._pcm)

    def save(self, path: Path) -> None:
        """Write a 16-bit mono WAV (OSError if it cannot be written)."""
        with wave.open(str(path), "wb") as out:
            out.setnchannels(1)
            out.setsampwidth(SAMPLE_WIDTH)
            out.setframerate(self.sample_rate)
            out.writeframes(bytes(self._pcm))
