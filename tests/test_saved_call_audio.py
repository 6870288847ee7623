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


def test_a_ten_minute_call_is_saved_whole_without_growing_memory(tmp_path: Path) -> None:
    tape = AudioTape()
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        for n in range(10 * 60 * 50):  # 10 minutes of 20 ms frames
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
