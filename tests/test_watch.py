"""`vap rental watch ID`: one line per status change, exit 0 active / 1 failed / 2 usage or auth."""

from __future__ import annotations

import asyncio
import io
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import httpx
import pytest

from vap_console.api import RentalApplication, VapClient
from vap_console.api.errors import ApiError
from vap_console.api.models import SearchFilters
from vap_console.credentials import KeyStore, ProfileStore
from vap_console.sandbox.app import create_app
from vap_console.sandbox.server import start_in_thread
from vap_console.watch import watch_main

BASE_URL = "http://127.0.0.1:9"  # loopback, so plain http is allowed; the ASGI transport answers
LINE = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ  (\S+)\s+(.*)$")


async def no_wait(seconds: float) -> None:
    return None


class Sandbox:
    """An in-process sandbox whose clock moves exactly as long as `watch` sleeps."""

    def __init__(self, sandbox_clock, config_dir: Path, faults: str | None = None) -> None:
        self.clock = sandbox_clock
        self.config_dir = config_dir
        self.app = create_app(clock=sandbox_clock, faults=faults)
        self.slept: list[float] = []

    def client(self, base_url: str, key: str) -> VapClient:
        return VapClient(base_url, key, transport=httpx.ASGITransport(app=self.app), sleep=no_wait)

    async def sleep(self, seconds: float) -> None:
        self.slept.append(seconds)
        self.clock.advance(seconds)

    def rent(self, number: str, key: str = "sk_sandbox_verified") -> str:
        """Rent through whatever faults are on: the same Idempotency-Key until an answer comes."""

        async def go() -> str:
            async with self.client(BASE_URL, key) as client:
                application = RentalApplication(requested_number=number, search_filters=SearchFilters())
                for _ in range(30):
                    try:
                        return (await client.rent_number(application, idempotency_key="watch-test")).id
                    except ApiError:
                        continue
                raise AssertionError("the sandbox never answered the rental POST")

        return asyncio.run(go())

    def watch(self, rental_id: str, *, key: str | None = "sk_sandbox_verified", interval: float = 1.0):
        out, err = io.StringIO(), io.StringIO()
        env = {"VAP_BASE_URL": BASE_URL} | ({"VAP_API_KEY": key} if key else {})
        keystore = KeyStore(env=env, profiles=ProfileStore(self.config_dir),
                            backend=_EmptyKeyring())
        code = watch_main(rental_id, profile=None, interval=interval, out=out, err=err,
                          keystore=keystore, client_factory=self.client, sleep=self.sleep)
        return code, out.getvalue(), err.getvalue()


class _EmptyKeyring:
    """A keyring that holds nothing, so a test never reads the developer's real keys."""

    priority = 1

    def __init__(self, keys: dict[str, str] | None = None) -> None:
        self.keys = keys or {}

    def get_password(self, service, user):
        return self.keys.get(user)


@pytest.fixture
def sandbox(sandbox_clock, tmp_path) -> Sandbox:
    return Sandbox(sandbox_clock, tmp_path)


def statuses(out: str) -> list[str]:
    return [m.group(1) for line in out.splitlines() if (m := LINE.match(line))]


def test_prints_each_status_change_and_exits_0_when_active(sandbox):
    rental_id = sandbox.rent("912272401010")
    code, out, err = sandbox.watch(rental_id)
    assert code == 0, err
    assert statuses(out) == ["kyc_submitted", "kyc_accepted", "purchasing", "active"]
    lines = out.splitlines()
    assert "● verification" in lines[0] and "✔ prepaid" in lines[0]
    assert lines[-2].endswith("✔ prepaid ✔ submitted ✔ verification ✔ purchase ✔ active")
    assert lines[-1] == "active +912272401010"
    assert err == ""


@pytest.mark.parametrize(("number", "final"), [("912260000002", "kyc_rejected"), ("912273100003", "failed")])
def test_exits_1_when_the_rental_fails_and_says_why(sandbox, number, final):
    code, out, _ = sandbox.watch(sandbox.rent(number))
    assert code == 1
    assert statuses(out)[-1] == final
    assert "✖" in out.splitlines()[-2]
    last = out.splitlines()[-1]
    assert last.startswith(f"{final}: ") and "no reason given" not in last


def test_exits_1_for_a_released_rental_without_polling_on(sandbox):
    async def released_id() -> str:
        async with sandbox.client(BASE_URL, "sk_sandbox_agent") as client:
            return next(r.id for r in (await client.list_rentals()).items if r.status == "released")

    rental_id = asyncio.run(released_id())
    code, out, _ = sandbox.watch(rental_id, key="sk_sandbox_agent")
    assert code == 1
    assert statuses(out) == ["released"]
    last = out.splitlines()[-1]
    assert last.startswith("released: ") and last.count("released") == 1, last  # not "released: released: …"
    assert sandbox.slept == []


def test_slows_down_while_the_rental_waits(sandbox):
    code, _, _ = sandbox.watch(sandbox.rent("912272401010"), interval=0.5)
    assert code == 0
    # Fast after each change, growing while nothing happens, never beyond 5 × the interval.
    assert sandbox.slept[0] == 0.5
    assert max(sandbox.slept) > 0.5
    assert max(sandbox.slept) <= 2.5


def test_keeps_going_through_latency_drops_and_errors(sandbox_clock, tmp_path):
    """Served over real HTTP so a dropped connection is a real one."""
    faults = "latency=5,error_rate=0.25,drop_rate=0.25,seed=11"
    with start_in_thread(clock=sandbox_clock, faults=faults) as served:
        sandbox = Sandbox(sandbox_clock, tmp_path)
        sandbox.client = lambda base_url, key: VapClient(served.base_url, key, sleep=no_wait)  # type: ignore[method-assign]
        rental_id = sandbox.rent("912272401010")
        code, out, err = sandbox.watch(rental_id)
    assert code == 0, err
    assert statuses(out)[-1] == "active"
    assert "retrying in" in err
    assert "Traceback" not in err


@pytest.mark.parametrize(
    ("rental_id", "key", "message"),
    [
        ("00000000-0000-4000-8000-000000000000", "sk_sandbox_agent", "no rental with id"),
        ("00000000-0000-4000-8000-000000000000", "sk_sandbox_revoked", "unauthorized"),
        ("00000000-0000-4000-8000-000000000000", "sk_sandbox_noscope", "forbidden_scope"),
        ("00000000-0000-4000-8000-000000000000", None, "VAP_API_KEY"),
        ("../../v1/tools", "sk_sandbox_agent", "must be the rental's id"),
    ],
)
def test_usage_and_auth_problems_exit_2_with_one_line(sandbox, rental_id, key, message):
    code, out, err = sandbox.watch(rental_id, key=key)
    assert code == 2
    assert out == ""
    assert len(err.strip().splitlines()) == 1 and message in err
    if key:
        assert key not in err


def test_interval_must_be_positive(sandbox):
    code, _, err = sandbox.watch("abc", interval=0)
    assert code == 2 and "--interval" in err


def test_the_vap_command_watches_a_served_sandbox(live_sandbox, sandbox_clock, tmp_path):
    async def rent() -> str:
        async with VapClient(live_sandbox.base_url, "sk_sandbox_verified") as client:
            return (await client.rent_number(RentalApplication(requested_number="912272401010"))).id

    rental_id = asyncio.run(rent())
    env = {**os.environ, "VAP_API_KEY": "sk_sandbox_verified", "VAP_BASE_URL": live_sandbox.base_url,
           "XDG_CONFIG_HOME": str(tmp_path), "XDG_DATA_HOME": str(tmp_path)}
    proc = subprocess.Popen(
        [sys.executable, "-m", "vap_console", "rental", "watch", rental_id, "--interval", "0.05"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
    )
    try:
        first = proc.stdout.readline()
        assert LINE.match(first) and " kyc_submitted " in first
        sandbox_clock.advance(3600)  # everything happens at once: the next poll sees it active
        out, err = proc.communicate(timeout=60)  # bounds a hang only
    finally:
        proc.kill()
    assert proc.returncode == 0, err
    assert out.splitlines()[-1] == "active +912272401010"


def test_works_with_a_profile_and_its_keyring_key(sandbox):
    rental_id = sandbox.rent("912272401010")
    ProfileStore(sandbox.config_dir).add("work", BASE_URL)
    keystore = KeyStore(env={}, profiles=ProfileStore(sandbox.config_dir),
                        backend=_EmptyKeyring({"work": "sk_sandbox_verified"}))
    out, err = io.StringIO(), io.StringIO()
    code = watch_main(rental_id, profile="work", interval=1.0, out=out, err=err, keystore=keystore,
                      client_factory=sandbox.client, sleep=sandbox.sleep)
    assert code == 0, err.getvalue()
    assert statuses(out.getvalue())[-1] == "active"


def test_an_unknown_profile_is_a_usage_error(sandbox):
    keystore = KeyStore(env={}, profiles=ProfileStore(sandbox.config_dir), backend=_EmptyKeyring())
    err = io.StringIO()
    code = watch_main("abc", profile="nope", interval=1.0, out=io.StringIO(), err=err, keystore=keystore,
                      client_factory=sandbox.client, sleep=sandbox.sleep)
    assert code == 2
    assert "nope" in err.getvalue()



class _HostileReasons(httpx.AsyncBaseTransport):
    """The sandbox, with escape sequences in every rejection reason and step detail."""

    EVIL = "\x1b]52;c;cm0gLXJmIH4=\x07 call us \x1b[2J"

    def __init__(self, inner: httpx.AsyncBaseTransport) -> None:
        self.inner = inner

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        response = await self.inner.handle_async_request(request)
        body = json.loads(await response.aread())
        if isinstance(body, dict) and body.get("compliance"):
            body["compliance"]["rejectionReason"] = self.EVIL
            for step in body["timeline"]:
                step["detail"] = step["detail"] and self.EVIL
        return httpx.Response(response.status_code, json=body)


def test_server_text_reaches_the_terminal_with_its_control_characters_visible(sandbox):
    rental_id = sandbox.rent("912260000002")  # KYC rejected
    sandbox.client = lambda base_url, key: VapClient(  # type: ignore[method-assign]
        base_url, key, transport=_HostileReasons(httpx.ASGITransport(app=sandbox.app)), sleep=no_wait)
    code, out, _ = sandbox.watch(rental_id)
    assert code == 1
    assert "\x1b" not in out
    assert out.splitlines()[-1] == "kyc_rejected: ␛]52;c;cm0gLXJmIH4=␇ call us ␛[2J"


def test_a_substituted_number_is_said_before_the_number_bought(sandbox):
    # ...0004: the number was taken meanwhile and the carrier bought another from the search.
    code, out, err = sandbox.watch(sandbox.rent("912260000004"))
    assert code == 0, err
    note = next(line for line in out.splitlines() if line.startswith("note: "))
    bought = out.splitlines()[-1].removeprefix("active ")
    assert bought != "+912260000004"
    assert note == f"note: +912260000004 was taken meanwhile; {bought} was bought instead"
    assert statuses(out)[-1] == "active"
