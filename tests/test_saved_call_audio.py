"""The audio ctrl+s saves (api/audio.AudioTape): the whole call, every sample in order, kept on disk
rather than in the console's memory (2.9 MB a minute of speech would grow it for the call's length)."""

from __future__ import annotations

import tracemalloc
import wave
from pathlib import Path

from vap_console.api.audio import AudioTape

FRAME = 960  # 20 ms at 24 kHz, 16-bit mono


def frame(n: int) -> bytes:
    return (n % 30000).to_bytes(2, "little", signed=True) * (FRAME // 2)


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_a_ten_minute_call_is_saved_whole_without_growing_memory(tmp_path: Path) -> None:
    clock = Clock()
    tape = AudioTape(clock=clock)
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        for n in range(10 * 60 * 50):  # 10 minutes of 20 ms frames, arriving in time
            clock.now += 0.02
            tape.add(frame(n))
        grown = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    assert tape.seconds == 600
    assert grown < 256 * 1024  # of 28.8 MB of audio taken
    path = tmp_path / "call.wav"
    tape.save(path)
    with wave.open(str(path)) as wav:
        assert (wav.getframerate(), wav.getnchannels(), wav.getsampwidth()) == (24000, 1, 2)
        assert wav.getnframes() == 600 * 24000
        assert wav.readframes(480) == frame(0) and wav.readframes(480) == frame(1)
        wav.setpos(wav.getnframes() - 480)
        assert wav.readframes(480) == frame(10 * 60 * 50 - 1)
    tape.close()


def test_saving_mid_call_keeps_recording_and_a_later_save_has_it_all(tmp_path: Path) -> None:
    tape = AudioTape()
    tape.add(frame(1))
    tape.save(tmp_path / "first.wav")
    tape.add(frame(2))
    tape.save(tmp_path / "second.wav")
    with wave.open(str(tmp_path / "first.wav")) as wav:
        assert wav.readframes(10_000) == frame(1)
    with wave.open(str(tmp_path / "second.wav")) as wav:
        assert wav.readframes(10_000) == frame(1) + frame(2)
    tape.close()


def test_the_tape_keeps_no_more_than_the_call_can_have_produced_so_far(tmp_path: Path) -> None:
    """A server sending audio faster than speech (gigabytes in seconds) fills neither the spool
    nor the WAV: a call 10 s old keeps at most 10 s plus a long turn sent ahead."""
    from vap_console.api.audio import AHEAD_SECONDS

    clock = Clock()
    tape = AudioTape(clock=clock)
    clock.now += 10
    second = frame(0) * 50
    for _ in range(3600):  # an hour of audio, all within the call's first ten seconds
        tape.add(second)
    assert tape.seconds == 10 + AHEAD_SECONDS
    assert tape.refused == (3600 - 10 - AHEAD_SECONDS) * len(second)
    # As the call goes on, what it says in time is kept again.
    clock.now += 5
    tape.add(second)
    assert tape.seconds == 11 + AHEAD_SECONDS
    tape.save(tmp_path / "call.wav")
    with wave.open(str(tmp_path / "call.wav")) as wav:
        assert wav.getnframes() == (11 + AHEAD_SECONDS) * 24000
    tape.close()


def test_the_saved_wav_is_readable_by_its_owner_only(tmp_path: Path) -> None:
    import os
    import stat

    tape = AudioTape()
    tape.add(frame(1))
    old = tmp_path / "call.wav"
    old.write_bytes(b"an older file anyone could read")
    old.chmod(0o644)
    tape.save(old)
    tape.save(tmp_path / "new.wav")
    tape.close()
    assert stat.S_IMODE(os.stat(old).st_mode) == 0o600
    assert stat.S_IMODE(os.stat(tmp_path / "new.wav").st_mode) == 0o600
