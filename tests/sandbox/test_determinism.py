"""Every sandbox instance answers the same requests with the same bytes: reproducible screenshots."""

from __future__ import annotations

import httpx

from vap_console.sandbox.app import create_app
from vap_console.sandbox.clock import VirtualClock

from .conftest import auth, rental_form

LISTS = ["/v1/phone-numbers", "/v1/tools", "/v1/variables", "/v1/agents", "/v1/agents/templates", "/v1/voices"]


async def _session() -> list[bytes]:
    clock = VirtualClock()
    app = create_app(clock=clock)
    seen: list[bytes] = []
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://s", headers=auth()) as c:
        for path in LISTS:
            seen.append((await c.get(path)).content)
        seen.append((await c.post("/v1/tools", json={
            "name": "t", "description": "d", "kind": "before_call",
            "config": {"url": "https://x.example", "outputs": [{"name": "fresh", "path": "a"}]},
        })).content)
        agent = await c.post("/v1/agents", json={"name": "Z", "greeting": "Hi {who}"})
        seen.append(agent.content)
        seen.append((await c.post("/v1/webcall", json={"agentId": agent.json()["id"]})).content)
        rental = await c.post("/v1/phone-numbers", **rental_form("+914082959021"))
        seen.append(rental.content)
        clock.advance(25)
        seen.append((await c.get(f"/v1/phone-numbers/{rental.json()['id']}")).content)
        for path in LISTS:
            seen.append((await c.get(path)).content)
    return seen


async def test_two_instances_answer_identically() -> None:
    assert await _session() == await _session()


async def test_every_key_starts_from_the_same_seed(sandbox_transport: httpx.ASGITransport) -> None:
    async with httpx.AsyncClient(transport=sandbox_transport, base_url="http://s") as c:
        for path in LISTS:
            a = await c.get(path, headers=auth("sk_sandbox_agent"))
            b = await c.get(path, headers=auth("sk_sandbox_short"))
            assert a.content == b.content, path


async def test_accounts_are_separate(sandbox_transport: httpx.ASGITransport) -> None:
    async with httpx.AsyncClient(transport=sandbox_transport, base_url="http://s") as c:
        created = await c.post("/v1/agents", json={"name": "Only mine"}, headers=auth("sk_sandbox_agent"))
        assert created.status_code == 201
        other = (await c.get("/v1/agents", headers=auth("sk_sandbox_verified"))).json()["items"]
        assert created.json()["id"] not in {a["id"] for a in other}
