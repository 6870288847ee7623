"""A call's sound on this machine, when it has some (Textual-free): the agent's voice played as it
arrives, and the person's microphone in 20 ms frames.

* ``JitterBuffer``: the agent's 20 ms frames queue here and the output device drains them at its
  own pace. It starts playing once ``target_ms`` is queued (the pre-roll that absorbs the network's
  jitter), plays silence when it runs dry instead of stalling the device, drops the oldest audio
  past ``max_ms`` (the device stalled: what is that late is stale), and ``flush()`` empties it when
  the person speaks over the agent (``interruption``). Muted, it still drains at the device's pace
  but plays zeros, so unmuting resumes where the agent is, not where it was.
* ``DevicePlayer``: a ``JitterBuffer`` played by miniaudio's playback device, whose own thread
  asks a generator for each period of samples.
* ``Microphone``: miniaudio's capture device, cut into 20 ms frames (960 bytes at 24 kHz) for
  ``input_audio_buffer.append``, handed to a callback on the device's thread.
* ``MicStream``: those frames across to the UI's loop and out on the call's socket while the
  microphone is on; turned off, the silence that ends the spoken turn and a commit.
* ``open_talk_audio()``: the best of these the machine has, and the one sentence the Talk screen
  says when the call is text-only (no audio extra, no output device, or under ``vap web``).

miniaudio is optional (``vap-console[audio]``): it is imported only in ``open_talk_audio``.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import threading
import time
from collections import deque
from collections.abc import Callable, Generator
from dataclasses import dataclass
from typing import Any

from vap_console import audio
from vap_console.api import errors
from vap_console.api.audio import Player, SilentPlayer
from vap_console.api.realtime import SAMPLE_RATE, SAMPLE_WIDTH, AgentSocket

FRAME_MS = 20
FRAME_BYTES = SAMPLE_RATE * SAMPLE_WIDTH * FRAME_MS // 1000  # 960: the published frame
# Sent when the microphone is turned off: the service's voice detection ends a spoken turn on
# silence it hears (the sandbox's after 600 ms of it), and a microphone that just stops sends none.
TAIL_FRAMES = 40
COMMIT = b""  # in the queue: input_audio_buffer.commit (push-to-talk clients send it on release)
QUEUE_FRAMES = 50  # 1 s: past that the socket is not keeping up, and the oldest frames go
# Set to "open" for an open mic (on from the moment the agent answers) instead of push-to-talk.
MIC_MODE_ENV = "VAP_TALK_MIC"

SAVE_HINT = "ctrl+s saves the voice as a WAV"
TALK_NO_MODULE = f"Text only: {audio.WHY_NO_MODULE}; {SAVE_HINT}."
TALK_NO_DEVICE = f"Text only: {audio.WHY_NO_DEVICE}; {SAVE_HINT}."
TALK_IN_WEB = f"Text only: {audio.WHY_IN_WEB}; {SAVE_HINT}."
NO_MIC = "The agent's voice plays (ctrl+o mutes it); no microphone opens here, so type what to say."
SOUND_ON = "The agent's voice plays (ctrl+o mutes it); ctrl+t turns your microphone on, ctrl+t again off."
OPEN_MIC = "The agent's voice plays (ctrl+o mutes it); your microphone is open (ctrl+t turns it off)."


class JitterBuffer:
    """PCM s16le between the socket (``push``, the UI's loop) and the device (``read``, its thread)."""

    def __init__(self, *, sample_rate: int = SAMPLE_RATE, target_ms: int = 80, max_ms: int = 2000,
                 clock: Callable[[], float] = time.monotonic) -> None:
        per_ms = self._per_ms = sample_rate * SAMPLE_WIDTH // 1000
        self.target = target_ms * per_ms
        self.limit = max(self.target, max_ms * per_ms)
        self._target_s = target_ms / 1000
        self._clock = clock
        self._lock = threading.Lock()
        self._chunks: deque[bytes] = deque()
        self._head = 0  # bytes of the first chunk already played
        self._size = 0
        self._priming = True
        self._last_push = float("-inf")
        self.muted = False
        # What happened, for the screen and the tests: runs dry mid-speech, bytes dropped as too late.
        self.starved = 0
        self.dropped = 0

    @property
    def depth_ms(self) -> float:
        """How much is queued, in milliseconds of speech."""
        return self._size / self._per_ms

    def __len__(self) -> int:
        return self._size

    def push(self, pcm: bytes) -> None:
        if not pcm:
            return
        with self._lock:
            self._chunks.append(pcm)
            self._size += len(pcm)
            self._last_push = self._clock()
            over = self._size - self.limit
            if over > 0:
                self._drop(over + (-over) % SAMPLE_WIDTH)

    def _drop(self, count: int) -> None:
        """The oldest ``count`` bytes go (caller holds the lock)."""
        self.dropped += count
        self._size -= count
        while count:
            head = self._chunks[0]
            left = len(head) - self._head
            if count < left:
                self._head += count
                return
            count -= left
            self._chunks.popleft()
            self._head = 0

    def flush(self) -> None:
        """Forget everything not yet played: the agent was spoken over."""
        with self._lock:
            self._chunks.clear()
            self._size = self._head = 0
            self._priming = True

    def read(self, count: int) -> bytes:
        """Exactly ``count`` bytes for the device: queued speech (zeros while muted), silence for
        the rest. Never waits: a device that is not fed on time clicks."""
        with self._lock:
            if self._priming:
                # Start once the pre-roll is in, or once nothing more is coming (a turn's short tail).
                idle = self._clock() - self._last_push >= self._target_s
                if self._size >= self.target or (self._size and idle):
                    self._priming = False
                else:
                    return bytes(count)
            out = bytearray()
            while len(out) < count and self._chunks:
                head = self._chunks[0]
                piece = head[self._head:self._head + count - len(out)]
                out += piece
                self._head += len(piece)
                if self._head >= len(head):
                    self._chunks.popleft()
                    self._head = 0
            self._size -= len(out)
            if len(out) < count:
                self._priming = True
                if out:
                    self.starved += 1
                out += bytes(count - len(out))
            return bytes(count) if self.muted else bytes(out)


class DevicePlayer:
    """The agent's voice through an output device (a started miniaudio ``PlaybackDevice``)."""

    audible = True

    def __init__(self, device: Any, buffer: JitterBuffer | None = None) -> None:
        self.buffer = buffer or JitterBuffer()
        self._device = device
        feed = self._feed()
        next(feed)  # miniaudio sends the frame count wanted into a started generator
        device.start(feed)

    def _feed(self) -> Generator[bytes, int, None]:
        wanted = yield b""
        while True:
            wanted = yield self.buffer.read(wanted * SAMPLE_WIDTH)

    @property
    def muted(self) -> bool:
        return self.buffer.muted

    @muted.setter
    def muted(self, value: bool) -> None:
        self.buffer.muted = value

    def play(self, pcm: bytes) -> None:
        self.buffer.push(pcm)

    def flush(self) -> None:
        self.buffer.flush()

    def close(self) -> None:
        with contextlib.suppress(Exception):  # a device that already failed has nothing to close
            self._device.close()


class FrameCutter:
    """Captured audio in whatever sizes the device gives, out as whole 20 ms frames."""

    def __init__(self, emit: Callable[[bytes], None], frame_bytes: int = FRAME_BYTES) -> None:
        self._emit = emit
        self._frame = frame_bytes
        self._pending = bytearray()

    def feed(self, data: bytes | bytearray) -> None:
        self._pending += data
        while len(self._pending) >= self._frame:
            frame = bytes(self._pending[:self._frame])
            del self._pending[:self._frame]
            self._emit(frame)


class Microphone:
    """The person's voice from a capture device, 20 ms at a time. ``start(on_frame)`` calls
    ``on_frame`` on the device's thread for every frame; ``close()`` releases the device."""

    def __init__(self, device: Any) -> None:
        self._device = device
        self._started = False

    def start(self, on_frame: Callable[[bytes], None]) -> None:
        if self._started:
            return
        self._started = True
        cutter = FrameCutter(on_frame)

        def take() -> Generator[None, bytes, None]:
            while True:
                cutter.feed((yield))

        sink = take()
        next(sink)
        self._device.start(sink)

    def close(self) -> None:
        with contextlib.suppress(Exception):
            self._device.close()


class MicStream:
    """A microphone's frames on their way to the call: ``live`` says whether they go. The device's
    thread hands each frame to the loop; ``send_to(socket)`` sends them there, one append each."""

    def __init__(self, mic: Microphone, loop: asyncio.AbstractEventLoop) -> None:
        self.mic = mic
        self.live = False
        self._loop = loop
        self._queue: asyncio.Queue[bytes] = asyncio.Queue(QUEUE_FRAMES)

    def start(self) -> None:
        """Open the device's stream (once: a new call on the same screen keeps it)."""
        self.mic.start(self._heard)

    def _heard(self, frame: bytes) -> None:
        # On the device's thread, every 20 ms; dropped here while off, so nothing crosses over.
        if self.live and not self._loop.is_closed():
            self._loop.call_soon_threadsafe(self._put, frame)

    def _put(self, frame: bytes) -> None:
        if self._queue.full():
            self._queue.get_nowait()  # the oldest frame is the stalest
        self._queue.put_nowait(frame)

    def switch(self, live: bool) -> None:
        """On: frames go from now. Off: the silence that ends the spoken turn, then a commit."""
        was, self.live = self.live, live
        if was and not live:
            for _ in range(TAIL_FRAMES):
                self._put(bytes(FRAME_BYTES))
            self._put(COMMIT)

    def stop(self) -> None:
        """The call is over: nothing more goes, and nothing queued is kept for the next."""
        self.live = False
        while not self._queue.empty():
            self._queue.get_nowait()

    async def send_to(self, socket: AgentSocket) -> None:
        """Send until the call ends (returns then: the call's own worker says how it ended)."""
        while True:
            frame = await self._queue.get()
            try:
                if frame == COMMIT:
                    await socket.commit()
                else:
                    await socket.send_audio(frame)
            except errors.ApiError:
                return


@dataclass
class TalkAudio:
    """What a call sounds through here: ``note`` is said once on the Talk screen ("" for nothing)."""

    player: Player
    mic: Microphone | None = None
    note: str = ""
    open_mic: bool = False

    def close(self) -> None:
        if self.mic is not None:
            self.mic.close()
        self.player.close()


def open_talk_audio(*, want_sound: bool = True, env: dict[str, str] | None = None,
                    backends: list[Any] | None = None) -> TalkAudio:
    """The output device (and a microphone where one opens), or a silent player and the sentence
    saying why the call is text-only. Opens devices: call it off the UI's loop. ``backends``:
    miniaudio's, to choose one (the tests use its null devices)."""
    environ = os.environ if env is None else env
    if not want_sound or environ.get(audio.IN_BROWSER):
        return TalkAudio(SilentPlayer(), note=TALK_IN_WEB)
    try:
        import miniaudio
    except Exception:  # noqa: BLE001 - not installed, or its native code will not load
        return TalkAudio(SilentPlayer(), note=TALK_NO_MODULE)
    audio.silence_alsa()
    s16 = miniaudio.SampleFormat.SIGNED16
    try:
        # 60 ms of device buffer: short enough that a flush is heard at once, long enough not to click.
        output = miniaudio.PlaybackDevice(output_format=s16, nchannels=1, sample_rate=SAMPLE_RATE,
                                          buffersize_msec=60, backends=backends, app_name="vap-console")
        player = DevicePlayer(output)
    except Exception:  # noqa: BLE001 - MiniaudioError or whatever its backend raised: no device
        return TalkAudio(SilentPlayer(), note=TALK_NO_DEVICE)
    try:
        mic = Microphone(miniaudio.CaptureDevice(input_format=s16, nchannels=1, sample_rate=SAMPLE_RATE,
                                                 buffersize_msec=FRAME_MS, backends=backends,
                                                 app_name="vap-console"))
    except Exception:  # noqa: BLE001 - no capture device: the agent is heard, the person types
        return TalkAudio(player, note=NO_MIC)
    open_mic = environ.get(MIC_MODE_ENV, "").strip().lower() == "open"
    return TalkAudio(player, mic, OPEN_MIC if open_mic else SOUND_ON, open_mic)
