"""`vap sandbox serve --call-tools` runs the account's before_call tools at the start of EVERY call,
not only on the agent socket: a web call (`POST /v1/webcall`, by agent or by a register-call
token) and an outbound call (`POST /v1/calls`) call the webhook too, their outputs fill the
outbound greeting, a failure keeps the default and is recorded on the call's `toolCalls`, and the
billed POST is answered without waiting for the webhook."""

from __future__ import annotations

import time
from typing import Any

import httpx
import pytest

from tests.webhook import Webhook
from vap_console.sandbox.server import RunningSandbox
from vap_console.sandbox.voice.trunks import ACTIVE, trunks_of

from .calling import ARJUN, calling, hook, point_lookup_at
from .socket_calls import account_of, agent_ref

__all__ = ["calling", "hook"]  # fixtures
CALLEE = "+919812340001"


def api(sandbox: RunningSandbox) -> httpx.Client:
    return httpx.Client(base_url=sandbox.base_url, headers={"Authorization": "Bearer sk_sandbox_agent"}, timeout=60)


def call_until(sandbox: RunningSandbox, call_id: str, done: Any) -> dict[str, Any]:
    """GET /v1/calls/{id} until ``done(record)``: the tools run after the POST was answered. The
    deadline only bounds a failure."""
    deadline, pause = time.monotonic() + 60, 0.01
    with api(sandbox) as c:
        while True:
            answer = c.get(f"/v1/calls/{call_id}")
            assert answer.status_code == 200, answer.text
            record = answer.json()
            if done(record):
                return record
            assert time.monotonic() < deadline, record
            time.sleep(pause)  # a poll, backing off: the sandbox allows 600 requests a minute
            pause = min(pause * 2, 0.5)


def called(record: dict[str, Any]) -> bool:
    return bool(record["toolCalls"])


def place_outbound(sandbox: RunningSandbox, to: str = CALLEE) -> str:
    account = account_of(sandbox)
    trunk = next(t.id for t in trunks_of(account, sandbox.state.origin).values() if t.status == ACTIVE)
    with api(sandbox) as c:
        placed = c.post("/v1/calls", json={"agentId": agent_ref(sandbox, "Arjun"), "toNumber": to, "fromTrunkId": trunk})
    assert placed.status_code == 202, placed.text
    return str(placed.json()["callId"])


def start_webcall(sandbox: RunningSandbox, by: str) -> str:
    with api(sandbox) as c:
        if by == "agent":
            answer = c.post("/v1/webcall", json={"agentId": agent_ref(sandbox, "Arjun")})
        else:
            token = c.post("/v1/register-call", json={"agent_id": agent_ref(sandbox, "Arjun")}).json()["access_token"]
            answer = c.post("/v1/webcall", json={"accessToken": token})
    assert answer.status_code == 200, answer.text
    return str(answer.json()["callId"])


def greeting_of(record: dict[str, Any]) -> str:
    return next(t["content"] for t in record["transcript"] if t["role"] == "assistant")


def test_an_outbound_calls_greeting_is_filled_by_its_before_call_tool(calling, hook: Webhook) -> None:
    point_lookup_at(calling, hook.url + "/ok")
    call_id = place_outbound(calling)
    record = call_until(calling, call_id, called)
    [got] = hook.arrived
    assert got.query == "phone=%2B919812340001"  # {phone_number}: the callee
    [entry] = record["toolCalls"]
    assert entry["name"] == "lookup_customer" and entry["status"] == 200
    assert entry["outputs"]["customer_name"] == "Asha Rao"
    calling.state.clock.advance(60)  # answered, greeted, done
    record = call_until(calling, call_id, lambda r: r["status"] == "completed")
    assert greeting_of(record) == ARJUN.format(name="Asha Rao")  # the webhook's data.name, not the default


def test_an_outbound_call_whose_tool_fails_keeps_the_default_and_records_why(calling, hook: Webhook) -> None:
    point_lookup_at(calling, hook.url + "/status/503")
    call_id = place_outbound(calling)
    [entry] = call_until(calling, call_id, called)["toolCalls"]
    assert entry["status"] == 503 and entry["outputs"] == {} and "503" in entry["error"]
    calling.state.clock.advance(60)
    record = call_until(calling, call_id, lambda r: r["status"] == "completed")
    assert greeting_of(record) == ARJUN.format(name="there")  # customer_name's default
    assert record["creditsCharged"] > 0  # the call itself went on, and was billed as before


def test_an_outbound_call_rings_until_its_tools_have_answered(calling, hook: Webhook) -> None:
    # A webhook still thinking when the callee would have picked up: the agent does not greet
    # before the variables are filled, and the POST (a billed call) did not wait for it.
    point_lookup_at(calling, hook.url + "/slow", timeout_ms=60_000)
    call_id = place_outbound(calling)
    hook.wait_arrived(1)
    calling.state.clock.advance(60)
    with api(calling) as c:
        record = c.get(f"/v1/calls/{call_id}").json()
        assert record["status"] == "calling" and record["transcript"] == [] and record["toolCalls"] == []
        assert c.get("/v1/agent/limits").json()["active_requests"] == 1  # it holds its slot meanwhile


@pytest.mark.parametrize("by", ["agent", "token"])
def test_a_web_call_runs_the_before_call_tools_and_records_them(calling, hook: Webhook, by: str) -> None:
    point_lookup_at(calling, hook.url + "/ok")
    call_id = start_webcall(calling, by)
    [entry] = call_until(calling, call_id, called)["toolCalls"]
    [got] = hook.arrived
    assert got.query == "phone="  # a web call has no number
    assert entry["name"] == "lookup_customer" and entry["status"] == 200
    assert entry["outputs"] == {"customer_name": "Asha Rao", "customer_tier": "gold"}


def test_a_web_calls_failing_tool_is_recorded(calling, hook: Webhook) -> None:
    point_lookup_at(calling, hook.url + "/html")
    call_id = start_webcall(calling, "agent")
    [entry] = call_until(calling, call_id, called)["toolCalls"]
    assert entry["status"] == 200 and entry["outputs"] == {} and "JSON" in entry["error"]


def test_without_call_tools_no_web_or_outbound_call_reaches_a_webhook(live_sandbox, hook: Webhook) -> None:
    point_lookup_at(live_sandbox, hook.url + "/ok")
    web, outbound = start_webcall(live_sandbox, "agent"), place_outbound(live_sandbox)
    live_sandbox.state.clock.advance(60)
    record = call_until(live_sandbox, outbound, lambda r: r["status"] == "completed")
    assert greeting_of(record) == ARJUN.format(name="there") and record["toolCalls"] == []
    assert call_until(live_sandbox, web, lambda r: True)["toolCalls"] == [] and hook.arrived == []


def test_vap_agents_webcall_on_a_calling_sandbox_reaches_the_webhook(calling, hook: Webhook, tmp_path, capsys) -> None:
    import json

    from tests.talk.cli import Talker

    point_lookup_at(calling, hook.url + "/ok")
    talker = Talker(calling, tmp_path, capsys)
    result = talker("agents", "webcall", talker.ref("Arjun"), "--yes", "--json")
    assert result.code == 0, result.err
    [entry] = call_until(calling, json.loads(result.out)["callId"], called)["toolCalls"]
    assert entry["status"] == 200 and entry["outputs"]["customer_name"] == "Asha Rao"
    assert len(hook.arrived) == 1
