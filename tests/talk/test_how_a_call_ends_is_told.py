"""How an agent-socket call ends, in the words the person reads: each close code and each way a
connection goes away, before or during the call; what the client sends once the call is over
(nothing) and on leaving (the socket closed, one goodbye); frames it skips; the token masked.

A scripted socket stands in for the server, so each ending is exact and the tests take
milliseconds (tests/talk/test_agent_socket_client.py drives the same client against the sandbox).
"""

from __future__ import annotations

import json
import socket

import pytest
from websockets.exceptions import ConnectionClosed
from websockets.frames import Close

from vap_console.api import errors
from vap_console.api.realtime import (
    AgentSocket,
    LineDropped,
    OutputAudioDelta,
    RegisteredCall,
    SessionClosed,
    TokenRejected,
    parse_event,
    websockets_connect,
)

TOKEN = "wct_0123456789abcdefghijklmnopqr9876"
URL = f"wss://api.example/v1/agent/connect?token={TOKEN}"


def frame(**fields: object) -> str:
    return json.dumps(fields)


CREATED = frame(type="session.created", session_id="s_1", call_id="call_1", sample_rate=24000, channels=1)
GOODBYE = frame(type="session.closed", reason="client_requested")


class Scripted:
    """A socket handing over ``frames``, then closed with ``close`` (None: no close frame, the
    connection just went away) or failing with ``error``; it records what is sent."""

    def __init__(self, *frames: str | bytes, close: int | None = None, error: BaseException | None = None) -> None:
        self.frames = list(frames)
        self.close_with = close
        self.error = error
        self.sent: list[dict] = []
        self.ended = False
        self.closed = False

    def _closed(self) -> ConnectionClosed:
        self.ended = True
        return ConnectionClosed(Close(self.close_with, "") if self.close_with else None, None)

    async def recv(self) -> str | bytes:
        if self.frames:
            return self.frames.pop(0)
        if self.error is not None:
            self.ended = True
            raise self.error
        raise self._closed()

    async def send(self, message: str) -> None:
        if self.ended:
            raise self._closed()
        self.sent.append(json.loads(message))

    async def close(self) -> None:
        self.closed = True


async def call_over(scripted: Scripted) -> tuple[AgentSocket, list[str], errors.ApiError | None]:
    async def connect(url: str) -> Scripted:
        return scripted

    seen: list[str] = []
    async with AgentSocket(URL, connect=connect) as call:
        try:
            async for event in call.events():
                seen.append(event.type)
        except errors.ApiError as failure:
            assert call.failure is failure
            return call, seen, failure
    return call, seen, None


@pytest.mark.parametrize(("scripted", "kind", "words", "close_code"), [
    (Scripted(CREATED, close=1000), LineDropped,
     "The line dropped during the call: socket closed with 1000", 1000),
    (Scripted(CREATED, close=None), LineDropped,
     "The line dropped during the call: the connection went away", 1006),
    (Scripted(close=None), LineDropped,
     "The line dropped before the call started: the connection went away", 1006),
    (Scripted(CREATED, error=ConnectionResetError()), LineDropped,
     "The line dropped during the call: the connection went away", 1006),
    # An error frame during the call (bad audio, say) does not turn a dropped line into it.
    (Scripted(CREATED, frame(type="error", code="invalid_audio", message="Odd bytes."), close=1011), LineDropped,
     "The line dropped during the call: socket closed with 1011", 1011),
    (Scripted(frame(type="error", code="invalid_audio", message="Odd bytes."), close=4500), LineDropped,
     "The line dropped before the call started: socket closed with 4500", 4500),
    (Scripted(close=4500), LineDropped,
     "The line dropped before the call started: socket closed with 4500", 4500),
    (Scripted(close=4401), TokenRejected, "The call's token was spent or expired", 4401),
    (Scripted(close=4000), errors.ApiError,
     "The call could not start and the service did not say why (socket closed with 4000)", 4000),
    (Scripted(frame(type="error", code="insufficient_balance", message=""), close=4000), errors.InsufficientBalance,
     "The call could not start (socket closed with 4000)", 4000),
    (Scripted(frame(type="error", code="region_paused", message="Calls are paused."), close=4000), errors.ApiError,
     "Calls are paused (socket closed with 4000)", 4000),
])
async def test_each_ending_is_told_in_its_own_words(scripted: Scripted, kind: type, words: str,
                                                    close_code: int) -> None:
    call, _, failure = await call_over(scripted)
    assert type(failure) is kind and str(failure).startswith(words), str(failure)
    assert failure.close_code == close_code == call.close_code
    assert TOKEN not in str(failure)


async def test_a_refusal_keeps_the_services_own_code() -> None:
    _, _, failure = await call_over(Scripted(frame(type="error", code="region_paused", message="No."), close=4000))
    assert failure.code == "region_paused"
    _, _, unexplained = await call_over(Scripted(close=4000))
    assert unexplained.code == "call_refused"


@pytest.mark.parametrize("close", [1000, None])
async def test_the_goodbye_then_a_close_is_a_normal_end(close: int | None) -> None:
    call, seen, failure = await call_over(Scripted(CREATED, GOODBYE, close=close))
    assert failure is None and seen == ["session.created", "session.closed"]
    assert call.closed_event.in_words == "You hung up."


def test_an_ending_the_client_does_not_know_is_told_as_it_came() -> None:
    assert SessionClosed(reason="timeout").in_words == "The call ended (timeout)."
    assert SessionClosed(reason="").in_words == "The call ended (no reason given)."


async def test_binary_frames_are_skipped_and_the_call_goes_on() -> None:
    said = frame(type="transcript", role="assistant", text="Hello.")
    _, seen, failure = await call_over(Scripted(CREATED, b"\x00\x01", said, GOODBYE, close=1000))
    assert failure is None and seen == ["session.created", "transcript", "session.closed"]


def test_broken_audio_plays_as_silence_never_as_noise() -> None:
    assert OutputAudioDelta(audio="AAAA").pcm == b"\x00\x00\x00"
    assert OutputAudioDelta(audio="AAAA!!!!").pcm == b""  # stray characters: the frame is dropped
    assert OutputAudioDelta(audio="AAA").pcm == b""  # cut short


def test_a_frame_cannot_set_when_it_was_read() -> None:
    event = parse_event(frame(type="transcript", text="hi", received_at=5), received_at=12.5)
    assert event.received_at == 12.5 and event.text == "hi"


async def test_one_goodbye_however_often_hang_up_is_pressed_and_leaving_closes_the_socket() -> None:
    scripted = Scripted(CREATED)

    async def connect(url: str) -> Scripted:
        return scripted

    async with AgentSocket(URL, connect=connect) as call:
        assert call.is_open
        await call.hang_up()
        await call.hang_up()
        assert not scripted.closed
    assert scripted.sent == [{"type": "session.close"}]
    assert scripted.closed  # a socket left open would keep a billed call going


async def test_nothing_is_sent_once_the_call_has_ended() -> None:
    scripted = Scripted(CREATED, close=1011)
    call, _, failure = await call_over(scripted)
    assert isinstance(failure, LineDropped) and call.is_open is False
    with pytest.raises(LineDropped, match="The call has ended: nothing more can be sent"):
        await call.send_text("are you there?")
    await call.hang_up()  # nothing to hang up
    assert scripted.sent == [] and not call.hangup_sent

    never_opened = AgentSocket(URL)
    with pytest.raises(LineDropped, match="nothing more can be sent"):
        await never_opened.commit()
    await never_opened.aclose()


def test_the_token_is_masked_to_its_last_four() -> None:
    registered = RegisteredCall(access_token=TOKEN, expires_in=300, sample_rate=24000, call_id="call_1")
    for shown in (repr(registered), str(registered)):
        assert "access_token='…9876'" in shown and "r9876" not in shown and TOKEN[:12] not in shown
    shown = repr(AgentSocket(URL))
    assert "token=…9876'" in shown and "r9876" not in shown and TOKEN[:12] not in shown


async def test_a_socket_that_cannot_be_opened_is_said_so() -> None:
    with socket.socket() as spare:
        spare.bind(("127.0.0.1", 0))
        port = spare.getsockname()[1]
    with pytest.raises(errors.ConnectionFailed, match=r"Could not open the agent socket \(ConnectionRefusedError\)"):
        await websockets_connect(f"ws://127.0.0.1:{port}/v1/agent/connect?token={TOKEN}")


async def test_a_refused_upgrade_is_told_with_its_status(live_sandbox) -> None:
    url = live_sandbox.base_url.replace("http://", "ws://") + f"/v1/no-such-socket?token={TOKEN}"
    with pytest.raises(errors.ApiError) as caught:
        await websockets_connect(url)
    assert str(caught.value).startswith("The agent socket refused the connection (HTTP 403)")
    assert caught.value.status == 403 and TOKEN not in str(caught.value)


async def test_a_turn_sent_as_the_line_drops_is_told_so() -> None:
    scripted = Scripted(CREATED)

    async def connect(url: str) -> Scripted:
        return scripted

    async with AgentSocket(URL, connect=connect) as call:
        scripted.ended = True  # the server has gone; its close not read yet
        with pytest.raises(LineDropped, match="The call ended before this could be sent"):
            await call.send_text("are you there?")
