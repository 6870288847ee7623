"""Idempotency-Key on every POST: the same key answers the first result and charges once."""

from __future__ import annotations

import httpx

from vap_console.sandbox.keys import SANDBOX_KEYS

from .conftest import error_of, rental_form

NUMBER = "+914082959021"


async def test_a_repeated_rental_returns_the_first_and_charges_once(client: httpx.AsyncClient, sandbox_app) -> None:
    account = sandbox_app.state.sandbox.account(SANDBOX_KEYS["sk_sandbox_agent"])
    balance = account.balance()
    headers = {"Idempotency-Key": "rent-1"}
    # httpx picks a fresh multipart boundary for each send: the replay must not depend on it.
    first = await client.post("/v1/phone-numbers", headers=headers, **rental_form(NUMBER))
    second = await client.post("/v1/phone-numbers", headers=headers, **rental_form(NUMBER))
    assert first.status_code == second.status_code == 201
    assert first.json() == second.json()
    assert second.headers["Idempotent-Replayed"] == "true"
    rentals = [r for r in (await client.get("/v1/phone-numbers")).json()["items"] if r["id"] == first.json()["id"]]
    assert len(rentals) == 1
    assert balance - account.balance() == first.json()["prepaidNanos"]


async def test_every_post_honours_the_key(client: httpx.AsyncClient) -> None:
    tool = {"name": "once", "description": "d", "kind": "before_call", "config": {"url": "https://x.example"}}
    agent = (await client.get("/v1/agents")).json()["items"][0]
    for path, body in (("/v1/tools", tool), ("/v1/agents", {"name": "Once"}), ("/v1/webcall", {"agentId": agent["id"]})):
        first = await client.post(path, json=body, headers={"Idempotency-Key": f"k-{path}"})
        again = await client.post(path, json=body, headers={"Idempotency-Key": f"k-{path}"})
        assert first.status_code in (200, 201) and again.json() == first.json(), path
    names = [t["name"] for t in (await client.get("/v1/tools")).json()["items"]]
    assert names.count("once") == 1
    assert [a["name"] for a in (await client.get("/v1/agents")).json()["items"]].count("Once") == 1


async def test_without_a_key_each_post_is_new(client: httpx.AsyncClient) -> None:
    agent = (await client.get("/v1/agents")).json()["items"][0]
    a = await client.post("/v1/webcall", json={"agentId": agent["id"]})
    b = await client.post("/v1/webcall", json={"agentId": agent["id"]})
    assert a.json()["callId"] != b.json()["callId"]


async def test_same_key_different_body_is_refused(client: httpx.AsyncClient) -> None:
    headers = {"Idempotency-Key": "k"}
    assert (await client.post("/v1/agents", json={"name": "One"}, headers=headers)).status_code == 201
    response = await client.post("/v1/agents", json={"name": "Two"}, headers=headers)
    assert error_of(response) == (409, "idempotency_key_reused")


async def test_an_error_is_not_remembered(client: httpx.AsyncClient) -> None:
    headers = {"Idempotency-Key": "fix-and-resend"}
    failed = await client.post("/v1/tools", json={"name": "ok"}, headers=headers)
    assert failed.status_code == 422
    # An error changed nothing: the corrected request may go out under the same key.
    fixed = {"name": "ok", "description": "d", "kind": "during_call", "config": {"url": "https://x.example"}}
    created = await client.post("/v1/tools", json=fixed, headers=headers)
    assert created.status_code == 201 and "Idempotent-Replayed" not in created.headers


async def test_keys_are_per_api_key(client: httpx.AsyncClient) -> None:
    headers = {"Idempotency-Key": "shared"}
    a = await client.post("/v1/agents", json={"name": "Mine"}, headers=headers)
    b = await client.post(
        "/v1/agents", json={"name": "Mine"},
        headers={**headers, "Authorization": "Bearer sk_sandbox_verified"},
    )
    assert a.status_code == b.status_code == 201 and "Idempotent-Replayed" not in b.headers


class LoseFirstAnswer(httpx.AsyncBaseTransport):
    """The first POST reaches the sandbox and takes effect; its answer is lost on the way back."""

    def __init__(self, inner: httpx.AsyncBaseTransport) -> None:
        self.inner = inner
        self.posts = 0

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        if request.method == "POST":
            self.posts += 1
            if self.posts == 1:
                await (await self.inner.handle_async_request(request)).aread()
                raise httpx.ReadError("connection reset by peer")
        return await self.inner.handle_async_request(request)


async def test_a_lost_web_call_asked_again_under_its_key_is_the_first_call_in_one_slot(
    sandbox_app, sandbox_transport: httpx.ASGITransport,
) -> None:
    import pytest

    from vap_console.api import VapClient, errors

    account = sandbox_app.state.sandbox.account(SANDBOX_KEYS["sk_sandbox_agent"])
    agent = next(a for a in account.agents.values() if a.deployed)
    async with VapClient("http://sandbox", "sk_sandbox_agent", transport=LoseFirstAnswer(sandbox_transport)) as c:
        with pytest.raises(errors.OutcomeUnknown) as lost:
            await c.start_webcall(agent.handle)
        assert lost.value.maybe_applied and lost.value.idempotency_key
        assert (await c.agent_limits()).active_requests == 1  # it did start
        again = await c.start_webcall(agent.handle, idempotency_key=lost.value.idempotency_key)
        assert (again.call_id, again.room_name) == (account.webcalls[0]["callId"], account.webcalls[0]["roomName"])
        assert len(account.webcalls) == 1 and (await c.agent_limits()).active_requests == 1
        # A new key is a new call, in a second slot.
        assert (await c.start_webcall(agent.handle)).call_id != again.call_id
        assert (await c.agent_limits()).active_requests == 2
