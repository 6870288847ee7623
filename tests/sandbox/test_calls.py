"""Web calls as the real service's public docs describe them: drafts, deploy, slots, the call
endpoints' error codes, each produced the way the README says."""

from __future__ import annotations

import re

import httpx
import pytest

from vap_console.masking import visible_tail
from vap_console.sandbox.calls import CALL_HOLD_SECONDS
from vap_console.sandbox.keys import KEYS, SANDBOX_KEYS, by_name, padded_after_key

from .conftest import auth, error_of


async def _new_agent(client: httpx.AsyncClient, name: str = "Draft") -> dict:
    response = await client.post("/v1/agents", json={"name": name})
    assert response.status_code == 201, response.text
    return response.json()


async def _deployed(client: httpx.AsyncClient) -> list[dict]:
    return [a for a in (await client.get("/v1/agents")).json()["items"] if a["deployed"]]


def test_keys_have_the_live_keys_shape_and_the_old_names_still_work() -> None:
    for key in KEYS:
        assert re.fullmatch(r"rk_test_[A-Za-z0-9]{24}", key.key), key.key
        assert SANDBOX_KEYS[key.legacy] is SANDBOX_KEYS[key.key]
        assert SANDBOX_KEYS[padded_after_key(key.name)] is SANDBOX_KEYS[key.key]


def test_two_sandbox_keys_masked_to_their_last_4_can_be_told_apart() -> None:
    # Profiles show keys masked to their last 4 characters; "…0000" for every sandbox key said nothing.
    tails = [visible_tail(key.key) for key in KEYS]
    assert len(set(tails)) == len(KEYS), tails


async def test_the_old_key_name_reaches_the_same_account(sandbox_transport: httpx.ASGITransport) -> None:
    async with httpx.AsyncClient(transport=sandbox_transport, base_url="http://sandbox") as c:
        made = await c.post("/v1/agents", json={"name": "Shared"}, headers=auth(by_name("agent").key))
        listed = await c.get("/v1/agents", headers=auth("sk_sandbox_agent"))
    assert made.json()["id"] in {a["id"] for a in listed.json()["items"]}


async def test_an_agent_made_through_the_api_is_a_draft_until_deployed(client: httpx.AsyncClient) -> None:
    agent = await _new_agent(client)
    assert agent["deployed"] is False
    refused = await client.post("/v1/webcall", json={"agentId": agent["id"]})
    assert error_of(refused) == (409, "agent_not_deployed")
    deployed = await client.post(f"/sandbox/agents/{agent['handle']}/deploy")
    assert deployed.status_code == 200 and deployed.json()["deployed"] is True
    assert (await client.get(f"/v1/agents/{agent['id']}")).json()["deployed"] is True
    assert (await client.post("/v1/webcall", json={"agentId": agent["id"]})).status_code == 200
    assert error_of(await client.post("/sandbox/agents/ua_nobody/deploy")) == (404, "agent_not_found")


async def test_a_fifth_concurrent_call_on_four_slots_is_refused_until_one_ends(
    client: httpx.AsyncClient, sandbox_clock,
) -> None:
    agent = (await _deployed(client))[0]
    limits = (await client.get("/v1/agent/limits")).json()
    assert limits == {"concurrency_limit": 4, "active_requests": 0, "plan": "payg", "credits_per_started_minute": 3}
    for _n in range(4):
        assert (await client.post("/v1/webcall", json={"agentId": agent["id"]})).status_code == 200
        sandbox_clock.advance(1)
    assert (await client.get("/v1/agent/limits")).json()["active_requests"] == 4
    refused = await client.post("/v1/webcall", json={"agentId": agent["id"]})
    assert error_of(refused) == (429, "concurrency_limit_exceeded")
    assert refused.json()["active_requests"] == 4 and refused.json()["limit"] == 4
    # Nobody joins a sandbox room: the first call's slot comes back once its hold is over.
    sandbox_clock.advance(CALL_HOLD_SECONDS - 4)
    assert (await client.get("/v1/agent/limits")).json()["active_requests"] == 3
    assert (await client.post("/v1/webcall", json={"agentId": agent["id"]})).status_code == 200


@pytest.mark.parametrize(("name", "status", "code"), [
    ("nobalance", 402, "insufficient_balance"),
    ("blocked", 402, "access_blocked"),
    ("noagents", 503, "not_configured"),
])
async def test_account_keys_refuse_web_calls(
    sandbox_app, sandbox_transport: httpx.ASGITransport, name: str, status: int, code: str,
) -> None:
    async with httpx.AsyncClient(transport=sandbox_transport, base_url="http://sandbox",
                                 headers=auth(by_name(name).key)) as c:
        agent_id = next(iter(sandbox_app.state.sandbox.account(by_name(name)).agents))
        assert error_of(await c.post("/v1/webcall", json={"agentId": agent_id})) == (status, code)
        if code == "not_configured":
            for path in ("/v1/agents", f"/v1/agents/{agent_id}", "/v1/agent/limits"):
                assert error_of(await c.get(path)) == (503, "not_configured"), path
            assert (await c.get("/v1/voices")).status_code == 200


async def test_the_flaky_key_fails_each_agents_first_start_only(sandbox_transport: httpx.ASGITransport) -> None:
    async with httpx.AsyncClient(transport=sandbox_transport, base_url="http://sandbox",
                                 headers=auth(by_name("flaky").key)) as c:
        agent = (await _deployed(c))[0]
        assert error_of(await c.post("/v1/webcall", json={"agentId": agent["id"]})) == (502, "agent_start_failed")
        assert (await c.post("/v1/webcall", json={"agentId": agent["id"]})).status_code == 200
        assert (await c.get("/v1/agent/limits")).json()["active_requests"] == 1
