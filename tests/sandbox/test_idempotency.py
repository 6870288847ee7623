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
