"""The agent's audio is handed over in the socket's read callback (``api/realtime_lane.py``), not a
second turn of the loop later by the reader task: 50 frames a second, each turn on a cold cache
(bench/talk.py's CPU goal). What a caller must still see: every frame once, in the order the
server sent it, an interruption handled before the audio after it, a frame that only looks like
audio reported as the reader reports it, and a sink that fails closing the lane, not the call.
Real loopback sockets (the hostile server runs in its own thread and loop)."""

from __future__ import annotations

import base64
import json
from typing import Any

from hypothesis import example, given
from hypothesis import strategies as st

from tests.talk.hostile_socket import CREATED, Peer, hostile
from vap_console.api.realtime import (
    AUDIO_LAYOUTS,
    AgentSocket,
    OutputAudioDelta,
    ServerEvent,
    parse_audio,
    parse_event,
    socket_url,
)


def audio(n: int) -> str:
    return json.dumps({"type": "output_audio.delta", "audio": base64.b64encode(bytes([n]) * 960).decode()})


def burst(*frames: str):  # type: ignore[no-untyped-def]
    """Once the client says "go": ``frames`` back to back (one read or a few), then the end."""

    async def behave(peer: Peer) -> None:
        await peer.ws.send(CREATED)
        async for raw in peer.ws:
            if json.loads(raw).get("text") == "go":
                break
        for item in frames:
            await peer.ws.send(item)
        await peer.ws.send(json.dumps({"type": "session.closed", "reason": "ended"}))
        await peer.ws.close()

    return behave


def label(event: ServerEvent) -> str:
    if isinstance(event, OutputAudioDelta):
        return f"audio {event.pcm[0]}"
    return event.type


async def read(server_url: str, on_audio: Any = None) -> tuple[list[str], list[str], AgentSocket]:
    """Every event in the order the caller handled it, and which of them came by the lane."""
    handled: list[str] = []
    laned: list[str] = []

    def arrived(event: OutputAudioDelta, pcm: bytes) -> None:
        assert pcm == event.pcm
        laned.append(label(event))
        handled.append(label(event))
        if on_audio is not None:
            on_audio(event)

    async with AgentSocket(socket_url(server_url, "tok_lane")) as call:
        async for event in call.events(on_audio=arrived):
            handled.append(label(event))
            if event.type == "session.created":
                await call.send_text("go")
    return handled, laned, call


SENT = [audio(1), audio(2), json.dumps({"type": "interruption"}), audio(3), audio(4),
        json.dumps({"type": "transcript.delta", "role": "assistant", "text": "Hi"}), audio(5)]


async def test_every_frame_is_handled_once_in_the_order_it_was_sent() -> None:
    with hostile(burst(*SENT)) as server:
        handled, laned, _ = await read(server.url)
    assert handled == ["session.created", "audio 1", "audio 2", "interruption", "audio 3", "audio 4",
                       "transcript.delta", "audio 5", "session.closed"]
    # The reader was waiting when the first audio came: it never woke for it.
    assert laned[:1] == ["audio 1"]


async def test_a_frame_that_only_looks_like_audio_is_reported_by_the_reader() -> None:
    odd = json.dumps({"type": "output_audio.delta", "audio": 5})  # not a base64 string
    with hostile(burst(audio(1), odd, audio(2))) as server:
        handled, laned, _ = await read(server.url)
    assert handled == ["session.created", "audio 1", "output_audio.delta", "audio 2", "session.closed"]
    assert "output_audio.delta" not in laned  # typed as the frame the protocol did not describe


async def test_a_sink_that_fails_closes_the_lane_and_the_reader_takes_the_rest() -> None:
    def fails_on_two(event: OutputAudioDelta) -> None:
        if event.pcm[0] == 2:
            raise RuntimeError("the player broke")

    with hostile(burst(audio(1), audio(2), audio(3))) as server:
        handled, laned, call = await read(server.url, on_audio=fails_on_two)
    # Frame 2 reached the sink, which failed on it; the reader then had it, and frame 3.
    assert laned == ["audio 1", "audio 2"]
    assert handled == ["session.created", "audio 1", "audio 2", "audio 2", "audio 3", "session.closed"]
    assert call.close_code == 1000 and call.failure is None  # the call itself went on to its end


async def test_a_caller_without_a_sink_reads_the_audio_from_the_reader() -> None:
    with hostile(burst(audio(1), json.dumps({"type": "interruption"}), audio(2))) as server:
        handled: list[str] = []
        async with AgentSocket(socket_url(server.url, "tok_lane")) as call:
            async for event in call.events():
                handled.append(label(event))
                if event.type == "session.created":
                    await call.send_text("go")
    assert handled == ["session.created", "audio 1", "interruption", "audio 2", "session.closed"]


@given(layout=st.sampled_from(AUDIO_LAYOUTS), middle=st.one_of(
    st.binary(max_size=64).map(lambda b: base64.b64encode(b).decode()),
    st.text(max_size=40),
    st.text(alphabet='AB+/=\\"\x01 é', max_size=12)),
    end=st.sampled_from(['"}', '"} ', '"', "", "AA", '" }']))
@example(layout=AUDIO_LAYOUTS[0], middle='AAAA", "x": "1', end='"}')  # a second field hidden in the "audio"
@example(layout=AUDIO_LAYOUTS[1], middle="AA\\/A", end='"}')  # an escaped slash: JSON's, not base64's
@example(layout=AUDIO_LAYOUTS[0], middle="AA\x01A", end='"}')  # a control character: not JSON at all
@example(layout=AUDIO_LAYOUTS[0], middle="AAA=AAAA", end='"}')  # data after the padding
@example(layout=AUDIO_LAYOUTS[0], middle="AAAAAA", end="")  # cut short: not JSON
def test_an_audio_frame_read_the_short_way_reads_as_parse_event_reads_it(layout: str, middle: str,
                                                                          end: str) -> None:
    raw = f"{layout}{middle}{end}"
    short = parse_audio(raw, 2.5)
    if short is not None:
        event, pcm = short
        assert event == parse_event(raw, 2.5)
        assert pcm == event.pcm


def test_audio_in_either_layout_is_read_the_short_way() -> None:
    for layout in AUDIO_LAYOUTS:
        read = parse_audio(f'{layout}{base64.b64encode(b"hi there").decode()}"}}', 1.0)
        assert read is not None and read[1] == b"hi there"
    assert parse_audio(json.dumps({"audio": "AAAA", "type": "output_audio.delta"}), 1.0) is None


def test_a_websockets_that_keeps_frames_otherwise_gives_no_lane_and_loses_no_frame() -> None:
    # The lane reads websockets' queue of frames not yet read (14 and later keep one with a
    # length): a websockets without it gets the reader's way, and says nothing is wrong.
    from types import SimpleNamespace

    from websockets.frames import Frame, Opcode

    from vap_console.api.realtime_lane import LanedConnection

    connection = object.__new__(LanedConnection)
    queued: list[Frame] = []
    connection.response = object()  # type: ignore[assignment]  # the handshake is over
    connection.recv_messages = SimpleNamespace(put=queued.append)  # type: ignore[assignment]
    taken: list[bytes] = []
    connection.audio_sink = lambda data: taken.append(data) or True
    frame = Frame(Opcode.TEXT, audio(1).encode())
    connection.process_event(frame)
    assert queued == [frame] and taken == [] and connection.audio_sink is None
