"""Calls in the client (issue 25): an outbound call is placed once and never sent again on its own;
a call's record is read tolerantly; a recording is fetched without the API key and its signed URL
never appears whole in an error or a log."""

from __future__ import annotations

import logging

import httpx
import pytest

from tests.api.conftest import API_KEY, error_body, json_response
from vap_console.api import errors
from vap_console.api.client import VapClient
from vap_console.sandbox.keys import by_name
from vap_console.sandbox.voice.trunks import trunks_of

WAV = b"RIFF\x24\x00\x00\x00WAVEfmt " + bytes(28)
SIGNED = "https://media.example.test/sandbox/recordings/call_1?expires=99&signature=SECRETSIG0123"


async def test_a_placed_call_is_sent_once_even_after_a_429(make_client, sleeps) -> None:
    client, server = make_client(
        json_response(429, error_body("rate_limited"), {"Retry-After": "1"}),
        json_response(202, {"callId": "c1", "status": "calling", "toNumber": "+919812340001"}),
    )
    with pytest.raises(errors.RateLimited):
        await client.place_call("ua_front", "+919812340001", "trunk-1")
    assert len(server.requests) == 1 and sleeps.waits == []


async def test_a_lost_answer_to_a_placed_call_is_outcome_unknown_and_not_resent(make_client) -> None:
    client, server = make_client(httpx.ReadTimeout("timed out"), json_response(202, {"callId": "c1"}))
    with pytest.raises(errors.OutcomeUnknown) as caught:
        await client.place_call("ua_front", "+919812340001", "trunk-1")
    assert len(server.requests) == 1
    assert caught.value.idempotency_key == server.requests[0].headers["Idempotency-Key"]


async def test_the_placed_call_body_names_agent_number_and_trunk(make_client) -> None:
    client, server = make_client(
        json_response(202, {"callId": "c1", "status": "calling", "toNumber": "+919812340001"}))
    placed = await client.place_call("ua_front", "+919812340001", "trunk-1")
    assert placed.call_id == "c1" and placed.status == "calling"
    assert server.requests[0].content == (
        b'{"agentId":"ua_front","toNumber":"+919812340001","fromTrunkId":"trunk-1"}')


async def test_a_call_record_takes_text_turns_and_keeps_an_unknown_status(make_client) -> None:
    client, _ = make_client(json_response(200, {
        "id": "c1", "status": "transferring", "durationSeconds": 12,
        "transcript": [{"role": "assistant", "content": "Hello"}, {"role": "user", "text": "Hi there"},
                       {"speaker": "user"}],
    }))
    record = await client.get_call("c1")
    assert record.status == "transferring" and not record.ended
    assert [(t.role, t.content) for t in record.transcript or []] == [
        ("assistant", "Hello"), ("user", "Hi there"), ("unknown", "")]
    assert record.credits_charged is None and record.recording_url is None


async def test_a_recording_is_fetched_without_the_api_key(make_client) -> None:
    seen: list[httpx.Request] = []

    def answer(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return httpx.Response(200, content=WAV, headers={"content-type": "audio/wav"})

    client, _ = make_client(answer)
    assert await client.fetch_recording(SIGNED) == WAV
    assert len(seen) == 1
    assert "authorization" not in seen[0].headers
    assert API_KEY not in str(seen[0].headers) and API_KEY not in str(seen[0].url)


async def test_a_refused_recording_names_no_signature(make_client, caplog) -> None:
    client, _ = make_client(json_response(403, error_body("recording_url_expired", "The link has expired")))
    with caplog.at_level(logging.DEBUG), pytest.raises(errors.ApiError) as caught:
        await client.fetch_recording(SIGNED)
    assert caught.value.code == "recording_url_expired" and "expired" in str(caught.value)
    assert "SECRETSIG0123" not in str(caught.value)
    assert "SECRETSIG0123" not in caplog.text


async def test_an_answer_that_is_not_wav_is_refused(make_client) -> None:
    client, _ = make_client(httpx.Response(200, content=b"<html>login</html>"))
    with pytest.raises(errors.UnexpectedResponse, match="not a WAV"):
        await client.fetch_recording(SIGNED)


async def test_an_outbound_call_on_the_sandbox_ends_with_its_transcript_and_recording(
    sandbox_app, sandbox_clock, sandbox_transport,
) -> None:
    account = sandbox_app.state.sandbox.account(by_name("agent"))
    trunk = next(t.id for t in trunks_of(account, sandbox_app.state.sandbox.origin).values() if t.status == "active")
    async with VapClient("http://127.0.0.1:9", "sk_sandbox_agent", transport=sandbox_transport) as client:
        agent = next(a for a in (await client.list_agents()).items if a.deployed)
        placed = await client.place_call(agent.ref, "+919812340001", trunk)
        assert (await client.get_call(placed.call_id)).status == "calling"
        assert (await client.get_sip_trunk(trunk)).status == "active"
        sandbox_clock.advance(60)
        record = await client.get_call(placed.call_id)
        assert record.status == "completed" and record.end_reason == "participant_disconnected"
        assert record.transcript and record.transcript[0].role == "assistant"
        assert (record.credits_charged or 0) > 0 and record.recording_url
        audio = await client.fetch_recording(record.recording_url)
        assert audio[:4] == b"RIFF"


@pytest.mark.parametrize("failure", [
    httpx.Response(302, headers={"Location": "https://elsewhere.example/r.wav"}),
    httpx.ReadError("connection reset"), ConnectionResetError(104, "Connection reset by peer"),
    httpx.RemoteProtocolError("peer closed connection"),
], ids=["redirect", "read error", "os error", "protocol error"])
async def test_a_recording_that_fails_is_an_api_error_never_followed_and_names_no_signature(
    make_client, failure,
) -> None:
    client, server = make_client(failure)
    with pytest.raises(errors.ApiError) as caught:
        await client.fetch_recording(SIGNED)
    assert len(server.requests) == 1 and "SECRETSIG0123" not in str(caught.value)
    assert caught.value.__cause__ is None
