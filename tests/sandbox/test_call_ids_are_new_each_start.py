"""Each start of `vap sandbox serve` gives calls ids of its own (issue 32 point 4): a console keeps
the calls of every start in one ledger (the account of that address and key), where an id given
again by the next start took over an older call's row. A sandbox built with a fixed seed (the
tests' and screenshots' default) gives the same ids every time."""

from __future__ import annotations

import httpx

from vap_console.sandbox.app import create_app
from vap_console.sandbox.clock import VirtualClock
from vap_console.sandbox.keys import DEFAULT_KEY

from .test_server import _serve

HEADERS = {"Authorization": f"Bearer {DEFAULT_KEY}"}


def _deployed(client: httpx.Client) -> str:
    agents = client.get("/v1/agents", headers=HEADERS).json()["items"]
    return next(a["id"] for a in agents if a.get("status") == "deployed" or a.get("deployed"))


def _call_ids(client: httpx.Client) -> list[str]:
    agent = _deployed(client)
    ids = [client.post("/v1/register-call", json={"agentId": agent}, headers=HEADERS).json()["call_id"]]
    placed = client.post("/v1/webcall", json={"agentId": agent}, headers=HEADERS).json()
    ids.append(placed.get("callId") or placed.get("call_id"))
    return ids


def test_two_starts_of_sandbox_serve_never_give_the_same_call_id() -> None:
    seen: list[list[str]] = []
    for _ in range(2):
        proc, banner = _serve()
        url = banner.split("http://", 1)[1].split()[0].rstrip("/")
        try:
            with httpx.Client(base_url=f"http://{url}", timeout=10) as client:
                seen.append(_call_ids(client))
        finally:
            proc.terminate()
            proc.communicate(timeout=60)
    first, second = seen
    assert all(first) and all(second)
    assert not set(first) & set(second)


async def test_a_sandbox_with_a_fixed_seed_gives_the_same_ids_every_time() -> None:
    async def ids() -> list[str]:
        app = create_app(clock=VirtualClock())
        async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://sandbox") as client:
            agents = (await client.get("/v1/agents", headers=HEADERS)).json()["items"]
            agent = next(a["id"] for a in agents if a.get("status") == "deployed" or a.get("deployed"))
            answer = await client.post("/v1/register-call", json={"agentId": agent}, headers=HEADERS)
            return [answer.json()["call_id"]]

    assert await ids() == await ids()
