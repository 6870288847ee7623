"""Spec §5/§7: who may call, in which order the checks come, and the per-minute budget."""

from __future__ import annotations

import httpx
import pytest

from vap_console.sandbox.app import create_app
from vap_console.sandbox.clock import VirtualClock

from .conftest import auth, error_of

# Every endpoint the sandbox serves, with a body good enough to pass validation.
ENDPOINTS = [
    ("GET", "/v1/phone-numbers", None),
    ("POST", "/v1/phone-numbers", {"requestedNumber": "+912272401010"}),
    ("GET", "/v1/phone-numbers/available", None),
    ("GET", "/v1/phone-numbers/requirements", None),
    ("GET", "/v1/phone-numbers/00000000-0000-0000-0000-000000000000", None),
    ("GET", "/v1/tools", None),
    ("POST", "/v1/tools", {"name": "x", "description": "d", "kind": "before_call", "config": {"url": "https://a.example"}}),
    ("DELETE", "/v1/tools/nope", None),
    ("GET", "/v1/variables", None),
    ("GET", "/v1/voices", None),
    ("GET", "/v1/agents/templates", None),
    ("GET", "/v1/agents", None),
    ("POST", "/v1/agents", {"name": "A"}),
    ("DELETE", "/v1/agents/nope", None),
    ("POST", "/v1/webcall", {"agentId": "nope"}),
]


@pytest.mark.parametrize(
    "headers",
    [
        {},
        {"Authorization": "sk_sandbox_agent"},
        {"Authorization": "Basic c2s6eA=="},
        {"Authorization": "Bearer "},
        {"Authorization": "Bearer sk_sandbox_agent extra"},
        auth("sk_live_unknown"),
        auth("sk_sandbox_revoked"),
        auth("sk_sandbox_expired"),
    ],
    ids=["missing", "no-scheme", "basic", "empty", "two-tokens", "unknown", "revoked", "expired"],
)
async def test_bad_keys_are_401_on_every_endpoint(sandbox_transport: httpx.ASGITransport, headers: dict[str, str]) -> None:
    async with httpx.AsyncClient(transport=sandbox_transport, base_url="http://s") as c:
        for method, path, body in ENDPOINTS + [("GET", "/v1/no-such-thing", None), ("PUT", "/v1/tools", None)]:
            response = await c.request(method, path, json=body, headers=headers)
            assert error_of(response) == (401, "unauthorized"), (method, path)


async def test_no_scope_is_403_on_every_endpoint(sandbox_transport: httpx.ASGITransport) -> None:
    async with httpx.AsyncClient(transport=sandbox_transport, base_url="http://s") as c:
        for method, path, body in ENDPOINTS:
            response = await c.request(method, path, json=body, headers=auth("sk_sandbox_noscope"))
            assert error_of(response) == (403, "forbidden_scope"), (method, path)


async def test_auth_comes_before_validation_and_routing(sandbox_transport: httpx.ASGITransport) -> None:
    async with httpx.AsyncClient(transport=sandbox_transport, base_url="http://s") as c:
        bad_body = await c.post("/v1/tools", content=b"{not json", headers={"Content-Type": "application/json"})
        assert error_of(bad_body) == (401, "unauthorized")
        wrong_method = await c.patch("/v1/variables")
        assert error_of(wrong_method) == (401, "unauthorized")


async def test_unknown_path_and_method_are_spec_shaped_for_a_good_key(sandbox_transport: httpx.ASGITransport) -> None:
    async with httpx.AsyncClient(transport=sandbox_transport, base_url="http://s", headers=auth()) as c:
        assert error_of(await c.get("/v1/nothing-here")) == (404, "not_found")
        assert error_of(await c.put("/v1/variables")) == (405, "method_not_allowed")


async def test_rate_limit_answers_429_with_retry_after_then_refills() -> None:
    clock = VirtualClock()
    app = create_app(clock=clock, rate_limit=3)
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://s", headers=auth()) as c:
        for _ in range(3):
            assert (await c.get("/v1/variables")).status_code == 200
        clock.advance(20)
        limited = await c.get("/v1/voices")
        assert error_of(limited) == (429, "rate_limited")
        assert limited.headers["Retry-After"] == "40"
        assert limited.json()["limit"] == 3 and limited.json()["current"] == 4
        # Budgets are per key: another key is unaffected.
        assert (await c.get("/v1/voices", headers=auth("sk_sandbox_verified"))).status_code == 200
        clock.advance(40)
        assert (await c.get("/v1/voices")).status_code == 200
