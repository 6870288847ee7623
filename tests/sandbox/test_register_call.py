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
