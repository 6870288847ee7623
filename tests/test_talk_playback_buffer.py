"""The jitter buffer between the agent socket and the output device (audio_stream.JitterBuffer): what
the person hears is the agent's speech in order, started after a short pre-roll, silence (never a
stalled device) when the network falls behind, a bounded delay when the device falls behind, and
nothing of what was queued once they speak over the agent; muted, it keeps pace but plays zeros."""

from __future__ import annotations

from vap_console.audio_stream import FRAME_BYTES, FrameCutter, JitterBuffer


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def frame(n: int) -> bytes:
    """20 ms of one recognisable sample value (never zero: silence is told apart)."""
    return (n + 1).to_bytes(2, "little", signed=True) * (FRAME_BYTES // 2)


def test_speech_plays_in_order_whatever_size_the_device_asks_for() -> None:
    buffer = JitterBuffer(target_ms=40, clock=Clock())
    frames = [frame(i) for i in range(10)]
    for f in frames:
        buffer.push(f)
    heard = b""
    for size in (2, 334, 960, 1000, 4000, 3304):
        piece = buffer.read(size)
        assert len(piece) == size
        heard += piece
    assert heard == b"".join(frames)
    assert len(buffer) == 0


def test_playing_starts_after_the_pre_roll_not_on_the_first_frame() -> None:
    clock = Clock()
    buffer = JitterBuffer(target_ms=80, clock=clock)
    buffer.push(frame(1))
    buffer.push(frame(2))
    assert buffer.read(960) == bytes(960)  # 40 ms queued of 80: wait, in silence
    assert len(buffer) == 2 * FRAME_BYTES
    buffer.push(frame(3))
    buffer.push(frame(4))
    assert buffer.read(960) == frame(1)


def test_a_short_tail_plays_once_nothing_more_is_coming() -> None:
    clock = Clock()
    buffer = JitterBuffer(target_ms=80, clock=clock)
    buffer.push(frame(7))  # a turn's last 20 ms
    assert buffer.read(960) == bytes(960)
    clock.now += 0.1  # no frame for longer than the pre-roll: the turn is over
    assert buffer.read(960) == frame(7)


def test_running_dry_plays_silence_at_once_and_resumes_with_the_next_speech() -> None:
    buffer = JitterBuffer(target_ms=40, clock=Clock())
    for i in range(2):
        buffer.push(frame(i))
    assert buffer.read(3 * FRAME_BYTES) == frame(0) + frame(1) + bytes(960)
    assert buffer.starved == 1
    # The network is late: the device is answered with silence of the size asked, not kept waiting.
    assert buffer.read(960) == bytes(960)
    buffer.push(frame(5))
    assert buffer.read(960) == bytes(960)  # the pre-roll builds up again first
    buffer.push(frame(6))
    assert buffer.read(1920) == frame(5) + frame(6)


def test_a_stalled_device_keeps_at_most_max_ms_and_the_newest_speech() -> None:
    buffer = JitterBuffer(target_ms=80, max_ms=200, clock=Clock())
    frames = [frame(i) for i in range(50)]  # a second of speech the device never took
    for f in frames:
        buffer.push(f)
    assert buffer.depth_ms == 200
    assert buffer.dropped == 40 * FRAME_BYTES
    assert buffer.read(10 * FRAME_BYTES) == b"".join(frames[-10:])


def test_flush_on_interruption_forgets_what_was_queued() -> None:
    clock = Clock()
    buffer = JitterBuffer(target_ms=40, clock=clock)
    for i in range(20):
        buffer.push(frame(i))
    assert buffer.read(960) == frame(0)
    buffer.flush()
    assert len(buffer) == 0
    assert buffer.read(960) == bytes(960)
    # The agent's next turn is heard from its start, after its own pre-roll.
    buffer.push(frame(30))
    buffer.push(frame(31))
    assert buffer.read(1920) == frame(30) + frame(31)


def test_muted_the_speech_is_taken_at_the_devices_pace_but_not_heard() -> None:
    buffer = JitterBuffer(target_ms=20, clock=Clock())
    for i in range(4):
        buffer.push(frame(i))
    buffer.muted = True
    assert buffer.read(1920) == bytes(1920)
    assert len(buffer) == 2 * FRAME_BYTES  # consumed, not held back for later
    buffer.muted = False
    assert buffer.read(960) == frame(2)


def test_captured_audio_goes_out_in_whole_20_ms_frames() -> None:
    out: list[bytes] = []
    cutter = FrameCutter(out.append)
    audio = b"".join(frame(i) for i in range(5))
    for start in range(0, len(audio), 700):  # a device's own period, not a frame's
        cutter.feed(bytearray(audio[start:start + 700]))
    assert out == [frame(i) for i in range(5)]
