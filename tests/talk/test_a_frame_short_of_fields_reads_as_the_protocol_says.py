"""What the client makes of the frames a server sends short of fields or not as text, what it sends,
and the exact words of what it refuses (issue 32 point 7): a transcript with no role is the agent's,
an error with no code is `error`, an audio frame with no audio is no sound; a frame that is not
UTF-8 is kept as it came; the socket's address keeps the base's path as given."""

from __future__ import annotations

import pytest

from tests.talk.test_how_a_call_ends_is_told import CREATED, URL, Scripted, call_over, frame
from vap_console.api.realtime import (
    AgentSocket,
    ErrorEvent,
    LineDropped,
    OutputAudioDelta,
    SessionCreated,
    Transcript,
    TranscriptDelta,
    UnknownEvent,
    mask_token,
    parse_event,
    socket_url,
    websockets_connect,
)


def test_a_transcript_with_no_role_or_text_is_the_agents_and_empty() -> None:
    for kind, cls in (("transcript", Transcript), ("transcript.delta", TranscriptDelta)):
        event = parse_event(f'{{"type": "{kind}"}}', received_at=1.0)
        assert isinstance(event, cls) and (event.role, event.text) == ("assistant", "")


def test_an_error_with_no_code_or_message_is_a_plain_error() -> None:
    event = parse_event('{"type": "error"}', received_at=1.0)
    assert isinstance(event, ErrorEvent) and (event.code, event.message) == ("error", "")


def test_an_audio_frame_with_no_audio_is_no_sound() -> None:
    event = parse_event('{"type": "output_audio.delta"}', received_at=1.0)
    assert isinstance(event, OutputAudioDelta) and event.audio == "" and event.pcm == b""


def test_session_created_with_only_its_type_has_empty_ids() -> None:
    event = parse_event('{"type": "session.created"}', received_at=1.0)
    assert isinstance(event, SessionCreated)
    assert (event.session_id, event.call_id, event.sample_rate, event.channels) == ("", "", 24000, 1)
    assert event.wire() == {"type": "session.created", "session_id": "", "call_id": "", "sample_rate": 24000,
                            "channels": 1}


def test_a_frame_that_is_not_utf8_is_kept_as_it_came_never_fatal() -> None:
    event = parse_event(b"\xff\xfe not json", received_at=2.0)
    assert isinstance(event, UnknownEvent) and event.type == "?"
    assert event.wire()["frame"] == "\ufffd\ufffd not json" and event.received_at == 2.0


def test_a_known_frame_of_the_wrong_shape_keeps_when_it_was_read() -> None:
    event = parse_event('{"type": "transcript", "text": 5}', received_at=3.5)
    assert isinstance(event, UnknownEvent) and event.received_at == 3.5
    assert event.wire() == {"type": "transcript", "text": 5}


def test_the_socket_address_keeps_the_bases_path_as_given() -> None:
    assert socket_url("https://api.example.com/EX/", "t") == "wss://api.example.com/EX/v1/agent/connect?token=t"
    with pytest.raises(ValueError) as bad:
        socket_url("ftp://api.example.com", "t")
    assert str(bad.value) == "base_url must be an http:// or https:// address"


async def test_commit_and_refusals_say_exactly_what_they_say() -> None:
    scripted = Scripted(CREATED)

    async def connect(url: str) -> Scripted:
        return scripted

    async with AgentSocket(URL, connect=connect) as call:
        await call.commit()
        assert scripted.sent == [{"type": "input_audio_buffer.commit"}]
        with pytest.raises(ValueError) as odd:
            await call.send_audio(b"\x00")
        assert str(odd.value) == "PCM s16le audio has an even number of bytes"
        scripted.ended = True
        with pytest.raises(LineDropped) as late:
            await call.send_text("hello?")
        assert late.value.message == "The call ended before this could be sent"

    ended, _, _ = await call_over(Scripted(CREATED, close=1011))
    with pytest.raises(LineDropped) as over:
        await ended.commit()
    assert over.value.message == "The call has ended: nothing more can be sent"


def test_an_empty_token_is_shown_as_nothing() -> None:
    assert mask_token("") == "" and mask_token("wct_abcdef") == "…cdef"


async def test_a_refusal_keeps_the_services_words_whole_but_its_full_stop() -> None:
    _, _, failure = await call_over(Scripted(
        frame(type="error", code="region_paused", message="Calls are paused in region X."), close=4000))
    assert failure is not None and failure.message == "Calls are paused in region X (socket closed with 4000)"


async def test_reading_a_socket_never_opened_is_refused_in_words() -> None:
    with pytest.raises(RuntimeError) as caught:
        await AgentSocket(URL).events().__anext__()
    assert str(caught.value) == "open() the socket first"


async def test_the_socket_names_this_client_to_the_server() -> None:
    from websockets.asyncio.server import ServerConnection, serve

    seen: list[str | None] = []

    async def answer(connection: ServerConnection) -> None:
        seen.append(connection.request.headers.get("User-Agent"))
        await connection.close()

    async with serve(answer, "127.0.0.1", 0) as server:
        port = server.sockets[0].getsockname()[1]
        socket = await websockets_connect(f"ws://127.0.0.1:{port}/v1/agent/connect?token=t")
        await socket.close()
    assert seen == ["vap-console"]
