"""Outbound calls, SIP trunks and agent versions (issue 23, points 4 and 5): POST /v1/calls is
validated, takes a slot, meets the call keys and the injected faults, and each test number plays
out its documented outcome on the sandbox clock."""

from __future__ import annotations

from datetime import datetime, timedelta

import httpx
import pytest

from vap_console.sandbox.app import create_app
from vap_console.sandbox.clock import VirtualClock
from vap_console.sandbox.keys import by_name
from vap_console.sandbox.server import start_in_thread
from vap_console.sandbox.voice.outbound import BUSY_SECONDS, FAIL_SECONDS, NO_ANSWER_SECONDS
from vap_console.sandbox.voice.trunks import trunks_of

from .conftest import auth, error_of, locs


def _account(app, key: str = "agent"):
    return app.state.sandbox.account(by_name(key))


def _trunks(app, key: str = "agent") -> dict[str, str]:
    """status → id of the account's seeded trunks."""
    return {t.status: t.id for t in trunks_of(_account(app, key), app.state.sandbox.origin).values()}


async def _agents(client: httpx.AsyncClient) -> list[dict]:
    return (await client.get("/v1/agents")).json()["items"]


async def _body(client: httpx.AsyncClient, app, to: str = "+919812340001", **more) -> dict:
    agent = next(a for a in await _agents(client) if a["deployed"])
    return {"agentId": agent["handle"], "toNumber": to, "fromTrunkId": _trunks(app)["active"], **more}


@pytest.mark.parametrize("ending, seconds, status, reason", [
    ("0006", NO_ANSWER_SECONDS, "expired", "no_answer"),
    ("0007", BUSY_SECONDS, "failed", "busy"),
    ("0008", FAIL_SECONDS, "failed", "carrier_error"),
])
async def test_each_test_number_plays_out_its_outcome_and_charges_nothing(
    client: httpx.AsyncClient, sandbox_clock, sandbox_app, ending: str, seconds: float, status: str, reason: str,
) -> None:
    balance = _account(sandbox_app).balance
    before = balance()
    placed = await client.post("/v1/calls", json=await _body(client, sandbox_app, to="+91981234" + ending))
    assert placed.status_code == 202
    assert placed.json() == {"callId": placed.json()["callId"], "status": "calling", "toNumber": "+91981234" + ending}
    call_id = placed.json()["callId"]
    assert (await client.get("/v1/agent/limits")).json()["active_requests"] == 1
    sandbox_clock.advance(seconds - 0.5)
    assert (await client.get(f"/v1/calls/{call_id}")).json()["status"] == "calling"
    sandbox_clock.advance(0.5)
    call = (await client.get(f"/v1/calls/{call_id}")).json()
    assert (call["status"], call["endReason"]) == (status, reason)
    assert call["startedAt"] is None and call["durationSeconds"] == 0 and call["creditsCharged"] == 0
    assert call["transcript"] == [] and call["recordingUrl"] is None
    assert (await client.get("/v1/agent/limits")).json()["active_requests"] == 0
    assert balance() == before


async def test_an_answered_call_is_charged_per_started_minute_in_the_ledger_when_it_ends(
    client: httpx.AsyncClient, sandbox_clock, sandbox_app,
) -> None:
    account = _account(sandbox_app)
    start = sandbox_clock.now()
    before = account.balance(start)
    call_id = (await client.post("/v1/calls", json=await _body(client, sandbox_app))).json()["callId"]
    assert account.balance(sandbox_clock.now()) == before  # nothing taken while it rings
    sandbox_clock.advance(300)
    call = (await client.get(f"/v1/calls/{call_id}")).json()
    assert call["creditsCharged"] == 3
    assert before - account.balance(sandbox_clock.now()) == 3 * 10**9
    entry = next(e for e in account.ledger if call_id in e.memo)
    assert abs(entry.at - datetime.fromisoformat(call["endedAt"])) < timedelta(milliseconds=1)


@pytest.mark.parametrize("body, where", [
    ({}, {"body.agentId", "body.toNumber", "body.fromTrunkId"}),
    ({"agentId": " ", "toNumber": "+919812340001", "fromTrunkId": "x"}, {"body.agentId"}),
    ({"agentId": "ua_x", "toNumber": "919812340001", "fromTrunkId": "x"}, {"body.toNumber"}),
    ({"agentId": "ua_x", "toNumber": "+0198123", "fromTrunkId": "x"}, {"body.toNumber"}),
    ({"agentId": "ua_x", "toNumber": 919812340001, "fromTrunkId": 5}, {"body.toNumber", "body.fromTrunkId"}),
])
async def test_a_bad_body_is_422_naming_each_field_and_places_nothing(
    client: httpx.AsyncClient, sandbox_app, body: dict, where: set[str],
) -> None:
    refused = await client.post("/v1/calls", json=body)
    assert error_of(refused) == (422, "invalid_request") and locs(refused) == where
    assert _account(sandbox_app).calls == {}


async def test_the_agent_and_the_caller_side_are_checked(client: httpx.AsyncClient, sandbox_app, sandbox_clock) -> None:
    body = await _body(client, sandbox_app)
    draft = next(a for a in await _agents(client) if not a["deployed"])
    cases = [
        ({**body, "agentId": "ua_nobody"}, (404, "agent_not_found")),
        ({**body, "agentId": draft["id"]}, (409, "agent_not_deployed")),
        ({**body, "fromTrunkId": "no-such-trunk"}, (404, "trunk_not_found")),
        ({**body, "fromTrunkId": _trunks(sandbox_app)["inactive"]}, (409, "trunk_not_active")),
    ]
    rentals = (await client.get("/v1/phone-numbers")).json()["items"]
    pending = next(r for r in rentals if r["status"] == "kyc_submitted")
    cases.append(({**body, "fromTrunkId": pending["id"]}, (409, "trunk_not_active")))
    for sent, expected in cases:
        assert error_of(await client.post("/v1/calls", json=sent)) == expected, sent
    assert _account(sandbox_app).calls == {}
    # A rented number that is live is a caller side too (the sandbox's choice).
    live = next(r for r in rentals if r["status"] == "active")
    placed = await client.post("/v1/calls", json={**body, "fromTrunkId": live["id"]})
    assert placed.status_code == 202
    assert (await client.get(f"/v1/calls/{placed.json()['callId']}")).json()["fromTrunkId"] == live["id"]


async def test_outbound_and_web_calls_share_the_four_slots(
    client: httpx.AsyncClient, sandbox_clock, sandbox_app,
) -> None:
    body = await _body(client, sandbox_app)
    assert (await client.post("/v1/webcall", json={"agentId": body["agentId"]})).status_code == 200
    for _ in range(3):
        assert (await client.post("/v1/calls", json=body)).status_code == 202
    refused = await client.post("/v1/calls", json=body)
    assert error_of(refused) == (429, "concurrency_limit_exceeded")
    assert refused.json()["active_requests"] == 4 and refused.json()["limit"] == 4
    assert error_of(await client.post("/v1/webcall", json={"agentId": body["agentId"]}))[0] == 429
    sandbox_clock.advance(60)  # the outbound calls have ended; the web call still holds its slot
    assert (await client.get("/v1/agent/limits")).json()["active_requests"] == 1
    assert (await client.post("/v1/calls", json=body)).status_code == 202


@pytest.mark.parametrize("key, expected", [
    ("nobalance", (402, "insufficient_balance")),
    ("blocked", (402, "access_blocked")),
    ("noagents", (503, "not_configured")),
])
async def test_the_call_keys_refuse_an_outbound_call(
    sandbox_transport: httpx.ASGITransport, sandbox_app, key: str, expected: tuple[int, str],
) -> None:
    async with httpx.AsyncClient(transport=sandbox_transport, base_url="http://sandbox",
                                 headers=auth(by_name(key).key)) as c:
        body = {"agentId": "ua_any", "toNumber": "+919812340001", "fromTrunkId": "any"}
        assert error_of(await c.post("/v1/calls", json=body)) == expected
    assert _account(sandbox_app, key).calls == {}


async def test_the_flaky_key_fails_an_agent_s_first_start_then_places_the_call(
    sandbox_transport: httpx.ASGITransport, sandbox_app,
) -> None:
    async with httpx.AsyncClient(transport=sandbox_transport, base_url="http://sandbox",
                                 headers=auth(by_name("flaky").key)) as c:
        agent = next(a for a in await _agents(c) if a["deployed"])
        body = {"agentId": agent["id"], "toNumber": "+919812340001", "fromTrunkId": _trunks(sandbox_app, "flaky")["active"]}
        assert error_of(await c.post("/v1/calls", json=body)) == (502, "agent_start_failed")
        assert _account(sandbox_app, "flaky").calls == {}
        assert (await c.post("/v1/calls", json=body)).status_code == 202


async def test_injected_errors_reach_outbound_calls_and_place_nothing() -> None:
    app = create_app(clock=VirtualClock(), faults="error_rate=1,seed=3")
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://s", headers=auth()) as c:
        body = {"agentId": "ua_any", "toNumber": "+919812340001", "fromTrunkId": "any"}
        statuses = {(await c.post("/v1/calls", json=body)).status_code for _ in range(10)}
    assert statuses == {502, 503}
    assert all(not account.calls for account in app.state.sandbox.accounts.values())


def test_a_dropped_answer_retried_with_its_idempotency_key_places_one_call() -> None:
    # drop_rate=1: every answer is cut, about half of them after the API acted (the call exists):
    # why a client never re-sends POST /v1/calls on its own, and sends an Idempotency-Key.
    with start_in_thread(clock=VirtualClock(), faults="drop_rate=1,seed=5") as sandbox:
        account = sandbox.state.account(by_name("agent"))
        agent = next(a for a in account.agents.values() if a.deployed)
        body = {"agentId": agent.id, "toNumber": "+919812340001",
                "fromTrunkId": next(iter(trunks_of(account, sandbox.state.origin)))}
        with httpx.Client(base_url=sandbox.base_url, headers=auth(), timeout=5) as c:
            for _ in range(6):
                with pytest.raises(httpx.TransportError):
                    c.post("/v1/calls", json=body, headers={"Idempotency-Key": "call-1"})
            placed_once = len(account.calls)
            for i in range(6):
                with pytest.raises(httpx.TransportError):
                    c.post("/v1/calls", json=body, headers={"Idempotency-Key": f"other-{i}"})
        assert placed_once == 1
        assert len(account.calls) > 2  # without the same key, the retries that got through each placed one


async def test_a_seeded_trunk_reads_with_the_published_fields(client: httpx.AsyncClient, sandbox_app) -> None:
    trunk = (await client.get(f"/v1/sip-trunks/{_trunks(sandbox_app)['active']}")).json()
    assert {"id", "phoneNumber", "assignedAgentId", "status", "hasAuth", "terminationUri"} <= set(trunk)
    assert trunk["status"] == "active" and trunk["hasAuth"] is True and trunk["phoneNumber"].startswith("+")
    assert trunk["assignedAgentId"] in {a["id"] for a in await _agents(client) if a["deployed"]}
    assert "password" not in trunk and "username" not in trunk
    assert error_of(await client.get("/v1/sip-trunks/nope")) == (404, "not_found")


async def test_a_registered_trunk_places_calls(client: httpx.AsyncClient, sandbox_app) -> None:
    agent = next(a for a in await _agents(client) if a["deployed"])
    made = await client.post("/v1/sip-trunks", json={
        "phoneNumber": "+912071239999", "terminationUri": "sip:pbx.example.com", "assignedAgentId": agent["handle"]})
    assert made.status_code == 201, made.text
    trunk = made.json()
    assert trunk["status"] == "active" and trunk["hasAuth"] is False and trunk["assignedAgentId"] == agent["id"]
    assert (await client.get(f"/v1/sip-trunks/{trunk['id']}")).json() == trunk
    placed = await client.post("/v1/calls", json={"agentId": agent["id"], "toNumber": "+14155550100",
                                                  "fromTrunkId": trunk["id"]})
    assert placed.status_code == 202
    again = await client.post("/v1/sip-trunks", json={"phoneNumber": "+912071239999",
                                                      "terminationUri": "sips:other.example.com"})
    assert error_of(again) == (409, "trunk_number_taken")
    half = await client.post("/v1/sip-trunks", json={"phoneNumber": "+912071238888",
                                                     "terminationUri": "http://x", "username": "u"})
    assert error_of(half) == (422, "invalid_request")
    assert locs(half) == {"body.terminationUri", "body.password"}


async def test_an_agent_has_one_version_per_deploy_and_a_draft_none(client: httpx.AsyncClient, sandbox_clock) -> None:
    deployed = next(a for a in await _agents(client) if a["deployed"])
    versions = (await client.get(f"/v1/agents/{deployed['handle']}/versions")).json()
    assert versions["count"] == 1 and versions["items"][0]["version"] == 1
    assert versions["items"][0]["greeting"] == deployed["greeting"]
    draft = (await client.post("/v1/agents", json={"name": "Draft"})).json()
    assert (await client.get(f"/v1/agents/{draft['id']}/versions")).json() == {"items": [], "count": 0}
    sandbox_clock.advance(90)
    await client.post(f"/sandbox/agents/{draft['id']}/deploy")
    after = (await client.get(f"/v1/agents/{draft['id']}/versions")).json()["items"]
    assert [v["version"] for v in after] == [1] and after[0]["deployedAt"] != draft["createdAt"]
    assert error_of(await client.get("/v1/agents/ua_nobody/versions")) == (404, "agent_not_found")


async def test_every_account_has_one_answered_call_from_before_the_sandbox_started(client: httpx.AsyncClient) -> None:
    # What `vap calls add` and `vap calls show` name in their --help examples (scripting/calls.py).
    from vap_console.sandbox.records import stable_id
    from vap_console.sandbox.voice.outbound import SEEDED_CALL_ID
    from vap_console.scripting.calls import SANDBOX_CALL, SANDBOX_TRUNK

    assert (SEEDED_CALL_ID, stable_id("trunk", "front-desk")) == (SANDBOX_CALL, SANDBOX_TRUNK)
    before = (await client.get("/v1/agent/limits")).json()["active_requests"]
    record = (await client.get(f"/v1/calls/{SEEDED_CALL_ID}")).json()
    assert record["status"] == "completed" and record["fromTrunkId"] == SANDBOX_TRUNK
    assert record["transcript"][0]["role"] == "assistant" and len(record["transcript"]) >= 3
    assert (await client.get("/v1/agent/limits")).json()["active_requests"] == before
