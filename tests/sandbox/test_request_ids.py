"""x-request-id on every answer, as on the real service; deterministic per sandbox instance."""

from __future__ import annotations

import re

import httpx

from vap_console.sandbox.app import create_app, request_id_for
from vap_console.sandbox.clock import VirtualClock

from .conftest import auth

SANDBOX_ID = re.compile(r"sbx_[0-9a-f]{8}")


async def _answers(**options: object) -> list[httpx.Response]:
    """One of every kind of answer: 200, 201, 204, 401, 404 (a thing, an unknown path, a trailing
    slash), 405, 413, 415, 422, 429, and an injected 502/503 when faults are asked for."""
    app = create_app(clock=VirtualClock(), **options)  # type: ignore[arg-type]
    seen: list[httpx.Response] = []
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://s", headers=auth()) as c:
        seen.append(await c.get("/v1/variables"))
        seen.append(await c.get("/v1/variables"))  # the same request again: a different id
        seen.append(await c.get("/v1/voices", headers=auth("sk_sandbox_revoked")))
        seen.append(await c.get("/v1/voices", headers={"Authorization": ""}))
        seen.append(await c.get("/v1/no-such-path"))
        seen.append(await c.get("/v1/tools/"))
        seen.append(await c.get("/v1/agents/ua_nope"))
        seen.append(await c.put("/v1/tools"))
        seen.append(await c.post("/v1/tools", content=b"not json", headers={"content-type": "text/plain"}))
        seen.append(await c.post("/v1/tools", content=b"{" + b" " * 2_000_000 + b"}",
                                 headers={"content-type": "application/json"}))
        seen.append(await c.post("/v1/tools", json={"name": "x"}))
        created = await c.post("/v1/agents", json={"name": "Z"})
        seen.append(created)
        if created.status_code == 201:  # not when the budget or a fault refused it
            seen.append(await c.delete(f"/v1/agents/{created.json()['id']}"))
        for _ in range(5):
            seen.append(await c.get("/v1/templates-nope"))
    return seen


async def test_every_answer_carries_a_request_id_errors_and_unknown_paths_included() -> None:
    answers = await _answers()
    statuses = {r.status_code for r in answers}
    assert {200, 201, 204, 401, 404, 405, 413, 415, 422} <= statuses, statuses
    for response in answers:
        assert SANDBOX_ID.fullmatch(response.headers.get("x-request-id", "")), (
            response.request.method, response.request.url.path, response.status_code)
    ids = [r.headers["x-request-id"] for r in answers]
    assert len(set(ids)) == len(ids)  # no two answers of one instance share an id


async def test_the_budgets_429_and_injected_faults_carry_one_too() -> None:
    limited = await _answers(rate_limit=3)
    assert 429 in {r.status_code for r in limited}
    faulty = await _answers(faults="error_rate=1,seed=3")
    assert {r.status_code for r in faulty} & {502, 503}
    for response in limited + faulty:
        assert SANDBOX_ID.fullmatch(response.headers.get("x-request-id", "")), response.status_code


async def test_ids_are_the_same_on_every_fresh_instance() -> None:
    first = [r.headers["x-request-id"] for r in await _answers()]
    assert [r.headers["x-request-id"] for r in await _answers()] == first
    # Documented: the n-th `METHOD path` asked of an instance; the first GET /v1/variables is this.
    assert first[0] == request_id_for("GET", "/v1/variables", 1)
    assert first[1] == request_id_for("GET", "/v1/variables", 2) != first[0]
