"""Call records (issue 23, point 4): every web call and outbound call is a record at
GET /v1/calls/{id} that moves on with the sandbox clock, and its recordingUrl serves the call's
audio as WAV without the API key, refused when the signature is wrong or the URL has expired."""

from __future__ import annotations

import io
import wave
from urllib.parse import parse_qs, urlencode, urlsplit

import httpx
import pytest

from vap_console.sandbox.calls import CALL_HOLD_SECONDS
from vap_console.sandbox.keys import by_name
from vap_console.sandbox.voice.call_records import PRICE_CREDITS_PER_MINUTE, CallRecord
from vap_console.sandbox.voice.outbound import RING_SECONDS
from vap_console.sandbox.voice.recordings import RECORDING_URL_SECONDS
from vap_console.sandbox.voice.trunks import trunks_of

from .conftest import auth, error_of

CALLEE = "+919812340001"


def _account(app):
    state = app.state.sandbox
    return state.account(by_name("agent"))


async def _deployed_agent(client: httpx.AsyncClient) -> dict:
    return next(a for a in (await client.get("/v1/agents")).json()["items"] if a["deployed"])


def _trunk_id(app) -> str:
    state = app.state.sandbox
    return next(t.id for t in trunks_of(_account(app), state.origin).values() if t.status == "active")


async def _place(client: httpx.AsyncClient, app, to: str = CALLEE) -> str:
    agent = await _deployed_agent(client)
    answer = await client.post("/v1/calls", json={"agentId": agent["id"], "toNumber": to,
                                                  "fromTrunkId": _trunk_id(app)})
    assert answer.status_code == 202, answer.text
    return answer.json()["callId"]


async def test_a_web_call_is_a_record_that_expires_with_nobody_in_the_room_and_is_billed(
    client: httpx.AsyncClient, sandbox_clock, sandbox_app,
) -> None:
    agent = await _deployed_agent(client)
    balance = _account(sandbox_app).balance
    before = balance()
    session = (await client.post("/v1/webcall", json={"agentId": agent["id"]})).json()
    call = (await client.get(f"/v1/calls/{session['callId']}")).json()
    assert call["status"] == "calling" and call["kind"] == "web" and call["agentId"] == agent["id"]
    assert call["endReason"] is None and call["creditsCharged"] == 0 and call["recordingUrl"] is None
    sandbox_clock.advance(CALL_HOLD_SECONDS - 1)
    assert (await client.get(f"/v1/calls/{session['callId']}")).json()["status"] == "calling"
    sandbox_clock.advance(1)
    call = (await client.get(f"/v1/calls/{session['callId']}")).json()
    assert call["status"] == "expired" and call["endReason"] == "no_participant"
    assert call["durationSeconds"] == CALL_HOLD_SECONDS
    # Billed from the moment it was answered, per started minute, as the ledger says.
    assert call["creditsCharged"] == 2 * PRICE_CREDITS_PER_MINUTE
    assert before - balance() == 2 * PRICE_CREDITS_PER_MINUTE * 10**9
    assert call["transcript"] == [] and call["recordingUrl"] is None and call["summary"] is None


async def test_an_answered_outbound_call_plays_out_on_the_clock(
    client: httpx.AsyncClient, sandbox_clock, sandbox_app,
) -> None:
    agent = await _deployed_agent(client)
    call_id = await _place(client, sandbox_app)
    call = (await client.get(f"/v1/calls/{call_id}")).json()
    assert (call["status"], call["toNumber"], call["kind"]) == ("calling", CALLEE, "outbound")
    assert call["fromTrunkId"] == _trunk_id(sandbox_app) and call["startedAt"] is None
    sandbox_clock.advance(RING_SECONDS)
    call = (await client.get(f"/v1/calls/{call_id}")).json()
    assert call["status"] == "in_progress" and call["startedAt"] and call["transcript"] == []
    sandbox_clock.advance(8)
    midway = (await client.get(f"/v1/calls/{call_id}")).json()
    assert midway["status"] == "in_progress" and midway["durationSeconds"] == 8
    # The agent's greeting opens it, its {variables} filled with the account's defaults.
    assert midway["transcript"][0]["role"] == "assistant"
    assert "{" not in midway["transcript"][0]["content"]
    assert agent["greeting"].split("!")[0] in midway["transcript"][0]["content"]
    sandbox_clock.advance(60)
    call = (await client.get(f"/v1/calls/{call_id}")).json()
    assert call["status"] == "completed" and call["endReason"] == "participant_disconnected"
    assert 10 < call["durationSeconds"] < 60 and call["creditsCharged"] == PRICE_CREDITS_PER_MINUTE
    assert [t["role"] for t in call["transcript"]] == ["assistant", "user", "assistant", "user", "assistant"]
    assert all(set(t) == {"role", "content"} and t["content"] for t in call["transcript"])
    assert call["summary"].startswith("5 turns") and call["recordingUrl"]


async def test_the_recording_is_served_without_a_key_as_wav_and_a_bad_signature_is_refused(
    client: httpx.AsyncClient, sandbox_clock, sandbox_app, sandbox_transport,
) -> None:
    call_id = await _place(client, sandbox_app)
    sandbox_clock.advance(120)
    call = (await client.get(f"/v1/calls/{call_id}")).json()
    url = call["recordingUrl"]
    parts = urlsplit(url)
    query = {k: v[0] for k, v in parse_qs(parts.query).items()}
    async with httpx.AsyncClient(transport=sandbox_transport, base_url="http://sandbox") as anonymous:
        served = await anonymous.get(url)
        assert served.status_code == 200 and served.headers["content-type"] == "audio/wav"
        with wave.open(io.BytesIO(served.content)) as wav:
            assert (wav.getframerate(), wav.getnchannels(), wav.getsampwidth()) == (24000, 1, 2)
            seconds = wav.getnframes() / 24000
        assert call["durationSeconds"] - 5 <= seconds <= call["durationSeconds"] + 5
        tampered = {**query, "signature": ("0" if query["signature"][0] != "0" else "1") + query["signature"][1:]}
        later = {**query, "expires": str(int(query["expires"]) + 3600)}
        for bad in (tampered, later, {"expires": query["expires"]}, {}):
            refused = await anonymous.get(f"{parts.path}?{urlencode(bad)}")
            assert error_of(refused) == (403, "recording_url_invalid"), bad
        other = await anonymous.get(parts.path.replace(call_id, call_id[:-1] + "0") + "?" + parts.query)
        assert error_of(other) == (403, "recording_url_invalid")
    # The key is never needed, and sending one changes nothing.
    assert (await client.get(url)).content == served.content


async def test_a_recording_url_expires_on_the_sandbox_clock_and_a_fresh_read_mints_another(
    client: httpx.AsyncClient, sandbox_clock, sandbox_app, sandbox_transport,
) -> None:
    call_id = await _place(client, sandbox_app)
    sandbox_clock.advance(120)
    url = (await client.get(f"/v1/calls/{call_id}")).json()["recordingUrl"]
    async with httpx.AsyncClient(transport=sandbox_transport, base_url="http://sandbox") as anonymous:
        sandbox_clock.advance(RECORDING_URL_SECONDS)
        assert (await anonymous.get(url)).status_code == 200
        sandbox_clock.advance(1)
        assert error_of(await anonymous.get(url)) == (403, "recording_url_expired")
        fresh = (await client.get(f"/v1/calls/{call_id}")).json()["recordingUrl"]
        assert fresh != url and (await anonymous.get(fresh)).status_code == 200


async def test_a_live_record_s_own_audio_is_its_recording(
    client: httpx.AsyncClient, sandbox_clock, sandbox_app, sandbox_transport,
) -> None:
    # What a socket session writes (sandbox/voice/call_records.py's interface): status, times, turns, audio.
    account = _account(sandbox_app)
    now = sandbox_clock.now()
    pcm = bytes(range(256)) * 200
    agent = await _deployed_agent(client)
    account.calls["socket-1"] = record = CallRecord(
        id="socket-1", agent_id=agent["id"], kind="socket", status="calling", created_at=now)
    # Still being checked (against the slots among other things): it holds none yet.
    assert (await client.get("/v1/agent/limits")).json()["active_requests"] == 0
    record.status, record.started_at = "in_progress", now
    record.transcript.append({"role": "user", "content": "Hello?"})
    record.audio += pcm
    live = (await client.get("/v1/calls/socket-1")).json()
    assert live["status"] == "in_progress" and live["recordingUrl"] is None
    assert (await client.get("/v1/agent/limits")).json()["active_requests"] == 1
    sandbox_clock.advance(65)
    record.status, record.ended_at, record.end_reason = "completed", sandbox_clock.now(), "client_requested"
    done = (await client.get("/v1/calls/socket-1")).json()
    assert done["durationSeconds"] == 65 and done["transcript"] == [{"role": "user", "content": "Hello?"}]
    async with httpx.AsyncClient(transport=sandbox_transport, base_url="http://sandbox") as anonymous:
        wav = (await anonymous.get(done["recordingUrl"])).content
    with wave.open(io.BytesIO(wav)) as reader:
        assert reader.readframes(reader.getnframes()) == pcm


@pytest.mark.parametrize("call_id", ["no-such-call", "00000000-0000-0000-0000-000000000000"])
async def test_an_unknown_call_is_404(client: httpx.AsyncClient, call_id: str) -> None:
    assert error_of(await client.get(f"/v1/calls/{call_id}")) == (404, "not_found")


async def test_a_call_is_only_seen_by_its_own_account(client: httpx.AsyncClient, sandbox_app) -> None:
    call_id = await _place(client, sandbox_app)
    other = await client.get(f"/v1/calls/{call_id}", headers=auth(by_name("verified").key))
    assert error_of(other) == (404, "not_found")
