"""`vap agents webcall` starts at most one billed call per run: its own Idempotency-Key, a lost
answer said in words with the slots and the way to ask for that call again, never resent."""

from __future__ import annotations

import re

import httpx

from tests.scripting.conftest import Vap
from vap_console.sandbox.keys import SANDBOX_KEYS


class Keys(httpx.AsyncBaseTransport):
    """Keeps each POST /v1/webcall's Idempotency-Key; loses the first one's answer when asked to,
    after the sandbox has started the call (the connection resets on the way back)."""

    def __init__(self, inner: httpx.AsyncBaseTransport, *, lose_first: bool) -> None:
        self.inner = inner
        self.lose_first = lose_first
        self.keys: list[str | None] = []

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        if request.method == "POST" and request.url.path == "/v1/webcall":
            self.keys.append(request.headers.get("Idempotency-Key"))
            if self.lose_first and len(self.keys) == 1:
                await (await self.inner.handle_async_request(request)).aread()
                raise httpx.ReadError("connection reset by peer")
        return await self.inner.handle_async_request(request)


def watched(vap: Vap, *, lose_first: bool = False) -> list[Keys]:
    made: list[Keys] = []
    vap.wrap = lambda inner: made.append(Keys(inner, lose_first=lose_first)) or made[-1]
    return made


def deployed_ref(vap: Vap) -> str:
    return next(a["handle"] for a in vap.api("GET", "/v1/agents")["items"] if a.get("deployed"))


def webcalls(vap: Vap) -> list[dict]:
    return vap.app.state.sandbox.account(SANDBOX_KEYS[vap.key]).webcalls


def test_a_lost_answer_is_said_with_the_slots_and_the_key_and_never_resent(vap: Vap) -> None:
    made = watched(vap, lose_first=True)
    ref = deployed_ref(vap)
    result = vap("agents", "webcall", ref, "--yes")
    assert result.code == 1 and result.out == ""
    assert vap.sent.count("POST /v1/webcall") == 1 and len(webcalls(vap)) == 1
    err = " ".join(result.err.split())
    assert "The call may be running and billing now" in err
    assert "(call slots 1/4 in use now)" in err and "`vap agents limits` shows them" in err
    assert "Nothing was sent again" in err
    key = made[0].keys[0]
    assert key and f"--idempotency-key {key}`" in err
    assert "one that does not starts a second call, billed too" in err
    # Run again with the printed key: the sandbox honours it, so this is the first call, one slot.
    made = watched(vap)
    again = vap("agents", "webcall", ref, "--yes", "--idempotency-key", key, "--json")
    assert again.code == 0, again.err
    assert again.json()["callId"] == webcalls(vap)[0]["callId"] and len(webcalls(vap)) == 1
    assert made[-1].keys == [key]


def test_every_run_sends_a_key_of_its_own(vap: Vap) -> None:
    made = watched(vap)
    ref = deployed_ref(vap)
    for _ in range(2):
        assert vap("agents", "webcall", ref, "--yes").code == 0
    keys = [k for transport in made for k in transport.keys]
    assert len(keys) == 2 and all(keys) and keys[0] != keys[1]
    assert len(webcalls(vap)) == 2


def test_the_question_shows_the_slots_in_use(vap: Vap) -> None:
    result = vap("agents", "webcall", deployed_ref(vap), "--yes")
    assert result.code == 0
    assert "(call slots 0/4 in use)" in result.err and "even if nobody joins; rate:" in result.err


def test_a_key_no_server_could_take_is_refused_before_anything_is_sent(vap: Vap) -> None:
    result = vap("agents", "webcall", deployed_ref(vap), "--yes", "--idempotency-key", "has space")
    assert result.code == 2 and vap.sent == []
    assert "--idempotency-key: must be 1 to 255 printable ASCII characters" in result.err


def test_limits_prints_the_slots(vap: Vap) -> None:
    assert vap("agents", "webcall", deployed_ref(vap), "--yes").code == 0
    result = vap("agents", "limits")
    assert result.code == 0
    assert re.search(r"in use\s+1\b", result.out) and re.search(r"slots\s+4\b", result.out)
