"""--faults: latency, random 502/503 and dropped connections, the same for the same seed."""

from __future__ import annotations

import time

import httpx
import pytest

from vap_console.sandbox.app import create_app
from vap_console.sandbox.clock import VirtualClock
from vap_console.sandbox.faults import Faults, FaultSpecError
from vap_console.sandbox.keys import SANDBOX_KEYS
from vap_console.sandbox.server import start_in_thread

from .conftest import auth


def test_spec_parsing() -> None:
    assert Faults.parse("") == Faults() and not Faults.parse(None).active
    parsed = Faults.parse("latency=120, error_rate=0.1,drop_rate=0.05,seed=7")
    assert parsed == Faults(120.0, 0.1, 0.05, 7)
    assert Faults.parse(str(parsed)) == parsed  # the banner shows a spec that round-trips
    for bad, needle in [
        ("latency=-1", "latency"), ("error_rate=2", "error_rate"), ("drop_rate=x", "drop_rate"),
        ("seed=1.5", "seed"), ("jitter=3", "unknown setting 'jitter'"), ("latency", "not name=value"),
        ("error_rate=0.7,drop_rate=0.6", "must not exceed 1"),
    ]:
        with pytest.raises(FaultSpecError, match=needle):
            Faults.parse(bad)


async def _statuses(faults: str, n: int = 60) -> list[int]:
    app = create_app(clock=VirtualClock(), faults=faults)
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://s", headers=auth()) as c:
        return [(await c.get("/v1/variables")).status_code for _ in range(n)]


async def test_errors_are_random_but_the_same_for_a_seed() -> None:
    first = await _statuses("error_rate=0.3,seed=42")
    assert await _statuses("error_rate=0.3,seed=42") == first
    assert await _statuses("error_rate=0.3,seed=43") != first
    assert {502, 503, 200} == set(first)
    assert 5 < sum(s != 200 for s in first) < 35


async def test_injected_errors_are_spec_shaped_and_503_says_when_to_retry() -> None:
    app = create_app(clock=VirtualClock(), faults="error_rate=1,seed=1")
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://s", headers=auth()) as c:
        seen = {}
        for _ in range(20):
            response = await c.get("/v1/voices")
            seen[response.status_code] = response
    assert set(seen) == {502, 503}
    assert seen[503].headers["Retry-After"] == "1"
    assert all(r.json()["code"] and r.json()["error"] for r in seen.values())


async def test_latency_is_added() -> None:
    app = create_app(clock=VirtualClock(), faults="latency=80")
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://s", headers=auth()) as c:
        started = time.perf_counter()
        assert (await c.get("/v1/voices")).status_code == 200
        assert time.perf_counter() - started >= 0.08


def test_dropped_connections_some_after_the_request_took_effect() -> None:
    with start_in_thread(clock=VirtualClock(), faults="drop_rate=1,seed=5") as sandbox:
        account = sandbox.state.account(SANDBOX_KEYS["sk_sandbox_agent"])
        before = len(account.agents)
        failures = 0
        with httpx.Client(base_url=sandbox.base_url, headers=auth(), timeout=5) as c:
            for i in range(12):
                with pytest.raises(httpx.TransportError):
                    c.post("/v1/agents", json={"name": f"Dropped {i}"})
                failures += 1
        created = len(account.agents) - before
    assert failures == 12
    # Some were cut before the API saw them, some after it had created the agent.
    assert 0 < created < 12
