"""The agent's audio on this machine, behind one small interface (Textual-free).

``Player`` is what the Talk screen feeds each ``output_audio.delta`` to and flushes on an
``interruption``. ``SilentPlayer`` plays nothing: tests, ``vap web`` and machines without the
audio extra or a device use it, and the screen says once that the call is text-only. The device
player and the choice between them are in ``vap_console/audio_stream.py``.

``AudioTape`` keeps what the agent said (PCM s16le, 24 kHz, mono) so ``ctrl+s`` can save it as a
WAV. It keeps the whole call in an unnamed temporary file, not in memory: 2.88 MB a minute of the
agent's speech (48,000 bytes a second) would otherwise grow the console's memory for as long as
the call lasts. The file is gone when the tape is closed (or the process ends).

The tape keeps only what a call can really produce: the agent speaks in time, so no more than the
seconds since the tape started plus ``AHEAD_SECONDS`` (a turn synthesised faster than it is
spoken arrives ahead of time). A server sending audio faster than that (gigabytes in seconds)
fills neither the disk nor the saved WAV; what is past the bound is counted in ``refused``.
"""

from __future__ import annotations

import shutil
import tempfile
import time
import wave
from collections.abc import Callable
from pathlib import Path
from typing import IO, Protocol

from vap_console.api.realtime import SAMPLE_RATE, SAMPLE_WIDTH
from vap_console.local_files import open_private

# A WAV's sizes are 32-bit: about 24.8 hours of 24 kHz 16-bit mono fit; a tape stops short of that.
MAX_TAPE_SECONDS = 24 * 3600
# How far ahead of the clock the agent's audio may arrive: a whole long turn sent at once.
AHEAD_SECONDS = 120


class Player(Protocol):
    """Plays the agent's speech as it arrives."""

    audible: bool
    # Muted: what arrives is still taken (and saved) but not heard.
    muted: bool

    def play(self, pcm: bytes) -> None: ...

    def flush(self) -> None:
        """Drop what is queued and not yet heard (the caller spoke over the agent)."""

    def close(self) -> None: ...


class SilentPlayer:
    """Plays nothing: the call is text-only."""

    audible = False

    def __init__(self) -> None:
        self.muted = False
        self.frames = 0
        self.flushes = 0

    def play(self, pcm: bytes) -> None:
        self.frames += 1

    def flush(self) -> None:
        self.flushes += 1

    def close(self) -> None:
        pass


class AudioTape:
    """What the agent said, spooled to a temporary file, to save as a WAV."""

    def __init__(self, sample_rate: int = SAMPLE_RATE, max_seconds: int = MAX_TAPE_SECONDS,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.sample_rate = sample_rate
        self._file: IO[bytes] | None = None
        self._size = 0
        self._max = sample_rate * SAMPLE_WIDTH * max_seconds
        self._clock = clock
        self._started = clock()
        # Bytes not kept: more than the call could have produced by then.
        self.refused = 0

    def _room(self) -> int:
        elapsed = max(0.0, self._clock() - self._started)
        produced = int((elapsed + AHEAD_SECONDS) * self.sample_rate) * SAMPLE_WIDTH
        return min(self._max, produced) - self._size

    def add(self, pcm: bytes) -> None:
        room = self._room()
        if room <= 0 or not pcm:
            self.refused += len(pcm)
            return
        if self._file is None:
            self._file = tempfile.TemporaryFile(prefix="vap-call-")  # noqa: SIM115 - kept open for the call
        piece = pcm[:room - room % SAMPLE_WIDTH]
        self._file.write(piece)
        self._size += len(piece)
        self.refused += len(pcm) - len(piece)

    @property
    def seconds(self) -> float:
        return self._size / (self.sample_rate * SAMPLE_WIDTH)

    def __len__(self) -> int:
        return self._size

    def save(self, path: Path) -> None:
        """Write a 16-bit mono WAV of everything so far (OSError if it cannot be written); the tape
        goes on recording. The file is the person's alone (0600)."""
        with open_private(path) as raw, wave.open(raw, "wb") as out:
            out.setnchannels(1)
            out.setsampwidth(SAMPLE_WIDTH)
            out.setframerate(self.sample_rate)
            if self._file is None:
                return
            self._file.flush()
            self._file.seek(0)
            try:
                shutil.copyfileobj(_Limited(self._file, self._size), _Frames(out), 1 << 16)
            finally:
                self._file.seek(0, 2)

    def close(self) -> None:
        if self._file is not None:
            self._file.close()
            self._file = None


class _Limited:
    """The first ``size`` bytes of a file (what was written when the save began)."""

    def __init__(self, source: IO[bytes], size: int) -> None:
        self._source = source
        self._left = size

    def read(self, count: int = -1) -> bytes:
        count = self._left if count < 0 else min(count, self._left)
        data = self._source.read(count)
        self._left -= len(data)
        return data


class _Frames:
    """A wave writer as a file to copy into."""

    def __init__(self, out: wave.Wave_write) -> None:
        self._out = out

    def write(self, data: bytes) -> int:
        self._out.writeframesraw(data)
        return len(data)
