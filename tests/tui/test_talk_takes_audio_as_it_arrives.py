"""On the Talk screen the agent's audio comes by the socket's lane (``api/realtime_lane.py``): handed
over in the read callback, read the short way (``parse_audio``), not a turn of the call's reader
task per frame (bench/talk.py's CPU goal). What the person gets is unchanged: every frame played
and kept for saving, once."""

from __future__ import annotations

from tests.tui.talk_console import talk_console
from vap_console.api import realtime
from vap_console.tui.screens.talk import TalkScreen


async def test_the_greetings_audio_comes_by_the_lane_and_is_kept_whole() -> None:
    laned: list[int] = []
    short: list[int] = []
    own_arrived, own_parse = TalkScreen._audio_arrived, realtime.parse_audio

    def arrived(self: TalkScreen, event: realtime.OutputAudioDelta, pcm: bytes) -> None:
        laned.append(len(pcm))
        own_arrived(self, event, pcm)

    def parse_audio(raw: str, received_at: float):  # type: ignore[no-untyped-def]
        read = own_parse(raw, received_at)
        short.append(read is not None)
        return read

    TalkScreen._audio_arrived = arrived  # type: ignore[method-assign]
    realtime.parse_audio = parse_audio  # type: ignore[assignment]
    try:
        with talk_console() as console:
            async with console.app.run_test(size=(120, 36)) as pilot:
                screen = await console.talking(pilot)
                await console.greeted(pilot)
                frames, tape, player = screen.talk.audio_frames, screen.tape, screen.player
                lane_failure = screen._socket._socket.sink_failure  # type: ignore[union-attr]
    finally:
        TalkScreen._audio_arrived = own_arrived  # type: ignore[method-assign]
        realtime.parse_audio = own_parse  # type: ignore[assignment]
    assert lane_failure is None
    assert laned and all(short)  # the sandbox writes audio the compact way: read the short way
    assert player.frames == frames  # played once each, by the lane or the reader
    assert len(tape) + tape.refused == frames * 960
