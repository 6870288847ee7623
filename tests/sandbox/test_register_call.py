"""POST /v1/register-call as published: a one-use wct_ token, the web call's checks, no slot, no bill."""

from __future__ import annotations

import re

import httpx
import pytest

from vap_console.sandbox.keys import by_name

from .conftest import auth, error_of


def _handle(app, name: str, key: str = "agent") -> str:
    account = app.state.sandbox.account(by_name(key))
    return next(a.handle for a in account.agents.values() if a.name.startswith(name))


@pytest.mark.parametrize("field", ["agent_id", "agentId"])
async def test_mints_a_wct_token_for_a_deployed_agent(client: httpx.AsyncClient, sandbox_app, field: str) -> None:
    answer = await client.post("/v1/register-call", json={field: _handle(sandbox_app, "Priya")})
    assert answer.status_code == 201
    body = answer.json()
    assert re.fullmatch(r"wct_[0-9a-f]{32}", body["access_token"])
    assert body["expires_in"] == 300 and body["sample_rate"] == 24000
    assert re.fullmatch(r"[0-9a-f-]{36}", body["call_id"])


async def test_each_token_is_new(client: httpx.AsyncClient, sandbox_app) -> None:
    ref = _handle(sandbox_app, "Priya")
    first, second = [(await client.post("/v1/register-call", json={"agent_id": ref})).json() for _ in range(2)]
    assert first["access_token"] != second["access_token"] and first["call_id"] != second["call_id"]


async def test_minting_takes_no_slot_and_bills_nothing(client: httpx.AsyncClient, sandbox_app) -> None:
    account = sandbox_app.state.sandbox.account(by_name("agent"))
    balance = account.balance()
    ref = _handle(sandbox_app, "Priya")
    for _ in range(6):  # more tokens than the account has slots
        assert (await client.post("/v1/register-call", json={"agent_id": ref})).status_code == 201
    assert (await client.get("/v1/agent/limits")).json()["active_requests"] == 0
    assert account.balance() == balance


@pytest.mark.parametrize(("key", "agent", "status", "code"), [
    ("revoked", "Priya", 401, "unauthorized"),
    ("noscope", "Priya", 403, "forbidden_scope"),
    ("agent", None, 404, "agent_not_found"),
    ("agent", "Meera", 409, "agent_not_deployed"),
    ("blocked", "Priya", 402, "access_blocked"),
    ("noagents", "Priya", 503, "not_configured"),
])
async def test_refuses_as_the_web_call_does(
    sandbox_transport, sandbox_app, key: str, agent: str | None, status: int, code: str,
) -> None:
    ref = _handle(sandbox_app, agent) if agent else "ua_nosuchagent"
    async with httpx.AsyncClient(transport=sandbox_transport, base_url="http://sandbox", headers=auth(f"sk_sandbox_{key}")) as c:
        answer = await c.post("/v1/register-call", json={"agent_id": ref})
    assert error_of(answer) == (status, code)


async def test_a_body_without_the_agent_names_the_field(client: httpx.AsyncClient) -> None:
    answer = await client.post("/v1/register-call", json={"agent": "ua_x"})
    assert error_of(answer) == (422, "invalid_request")
    assert answer.json()["details"][0]["loc"] == "body.agentId"


async def test_a_browser_redeems_the_token_without_a_key_for_the_room_of_its_call(
    client: httpx.AsyncClient, sandbox_transport, sandbox_app,
) -> None:
    # The third-party browser client of reference voice.md §3.1: its server mints with the key, the
    # page posts {"accessToken"} with no Authorization header and needs callId == the token's call.
    minted = (await client.post("/v1/register-call", json={"agent_id": _handle(sandbox_app, "Priya")})).json()
    async with httpx.AsyncClient(transport=sandbox_transport, base_url="http://sandbox") as browser:
        room = await browser.post("/v1/webcall", json={"accessToken": minted["access_token"]})
        assert room.status_code == 200, room.text
        assert room.json()["callId"] == minted["call_id"] and room.json()["roomName"].startswith("call-")
        assert (await client.get(f"/v1/calls/{minted['call_id']}")).json()["kind"] == "web"
        # spent: neither the page again nor the socket can use it
        again = await browser.post("/v1/webcall", json={"accessToken": minted["access_token"]})
        assert error_of(again) == (401, "unauthorized") and "register-call" in again.json()["error"]
    assert sandbox_app.state.agent_sockets.spend(minted["access_token"]) is None


async def test_without_a_key_or_a_token_the_web_call_is_still_401(sandbox_transport) -> None:
    async with httpx.AsyncClient(transport=sandbox_transport, base_url="http://sandbox") as browser:
        for body in ({"agentId": "ua_front"}, {"accessToken": "wct_" + "0" * 32}):
            assert error_of(await browser.post("/v1/webcall", json=body)) == (401, "unauthorized"), body
        assert error_of(await browser.post("/v1/webcall", content=b"not json")) == (401, "unauthorized")
        wrong = await browser.post("/v1/webcall", json={"accessToken": None, "agentId": "ua_front"})
        assert error_of(wrong) == (422, "invalid_request") and wrong.json()["details"][0]["loc"] == "body.accessToken"


async def test_a_token_is_not_spent_by_a_refused_redemption(client: httpx.AsyncClient, sandbox_transport,
                                                           sandbox_app) -> None:
    ref = _handle(sandbox_app, "Priya")
    minted = (await client.post("/v1/register-call", json={"agent_id": ref})).json()
    limit = (await client.get("/v1/agent/limits")).json()["concurrency_limit"]
    for _ in range(limit):  # every slot taken by web calls
        assert (await client.post("/v1/webcall", json={"agentId": ref})).status_code == 200
    async with httpx.AsyncClient(transport=sandbox_transport, base_url="http://sandbox") as browser:
        full = await browser.post("/v1/webcall", json={"accessToken": minted["access_token"]})
        assert error_of(full) == (429, "concurrency_limit_exceeded")
    assert sandbox_app.state.agent_sockets.spend(minted["access_token"]) is not None
