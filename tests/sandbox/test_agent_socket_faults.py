"""Faults and refusals reach the agent socket through the sandbox's switches: --faults settings
(a dropped socket, a stalled stream, a refused start) and the sandbox keys (no balance, a flaky
start, every slot in use). A refused start is one error frame, then close 4000."""

from __future__ import annotations

from datetime import timedelta

import httpx
import pytest

from vap_console.sandbox.clock import iso
from vap_console.sandbox.faults import Faults, FaultSpecError
from vap_console.sandbox.voice.agent_brain import SandboxAgent
from vap_console.sandbox.voice.call_records import FAILED

from .socket_calls import (
    PRIYA_GREETING,
    account_of,
    agent_ref,
    deltas,
    dialled,
    frame_count,
    limits,
    register,
    sandbox_with,
    speaking_seconds,
    types,
)


async def _refused(sandbox, registered: dict) -> tuple[list[dict], int | None]:
    async with dialled(sandbox, registered["access_token"]) as call:
        events = await call.to_close()
    return events, call.close_code


@pytest.mark.parametrize("code", ["agent_start_failed", "not_configured", "insufficient_balance",
                                  "concurrency_limit_exceeded"])
async def test_an_injected_start_error_is_one_error_frame_then_4000(sandbox_clock, code: str) -> None:
    with sandbox_with(sandbox_clock, f"socket_start_error={code}") as sandbox:
        registered = await register(sandbox)
        events, close_code = await _refused(sandbox, registered)
        assert (await limits(sandbox))["active_requests"] == 0
        record = account_of(sandbox).calls[registered["call_id"]]
    assert [(e["type"], e["code"]) for e in events] == [("error", code)] and events[0]["message"]
    assert close_code == 4000
    assert record.status == FAILED and record.end_reason == code and record.credits_charged == 0


async def test_no_balance_refuses_the_call_without_billing_it(live_sandbox) -> None:
    account = account_of(live_sandbox, "nobalance")
    balance = account.balance()
    events, close_code = await _refused(live_sandbox, await register(live_sandbox, key="nobalance"))
    assert [(e["type"], e["code"]) for e in events] == [("error", "insufficient_balance")] and close_code == 4000
    assert account.balance() == balance


async def test_a_flaky_agents_first_start_fails_and_the_next_one_starts(live_sandbox) -> None:
    events, close_code = await _refused(live_sandbox, await register(live_sandbox, key="flaky"))
    assert [(e["type"], e["code"]) for e in events] == [("error", "agent_start_failed")] and close_code == 4000
    async with dialled(live_sandbox, (await register(live_sandbox, key="flaky"))["access_token"]) as call:
        assert (await call.next())["type"] == "session.created"


async def test_all_slots_in_use_refuses_the_next_call(live_sandbox) -> None:
    tokens = [(await register(live_sandbox))["access_token"] for _ in range(5)]
    calls = []
    for token in tokens[:4]:
        call = dialled(live_sandbox, token)
        calls.append(call)
        assert (await (await call.__aenter__()).next())["type"] == "session.created"
    try:
        assert (await limits(live_sandbox))["active_requests"] == 4
        events, close_code = await _refused(live_sandbox, {"access_token": tokens[4]})
        assert [(e["type"], e["code"]) for e in events] == [("error", "concurrency_limit_exceeded")]
        assert close_code == 4000
    finally:
        for call in calls:
            await call.__aexit__(None, None, None)


async def test_a_dropped_socket_closes_1011_without_session_closed(sandbox_clock) -> None:
    with sandbox_with(sandbox_clock, "socket_drop_after=1") as sandbox:
        registered = await register(sandbox)
        async with dialled(sandbox, registered["access_token"]) as call:
            await call.until("agent_start_talking")
            sandbox_clock.advance(5)
            events = await call.to_close()
        record = account_of(sandbox).calls[registered["call_id"]]
    assert call.close_code == 1011
    assert "session.closed" not in types(events)
    assert len(deltas(call.events)) == 50  # the frames of the first second, and not one after
    assert record.status == FAILED and record.end_reason == "socket_dropped"


async def test_a_stalled_stream_sends_nothing_until_the_call_ends(sandbox_clock) -> None:
    with sandbox_with(sandbox_clock, "socket_stall_after=0.5") as sandbox:
        async with dialled(sandbox, (await register(sandbox))["access_token"]) as call:
            await call.until("agent_start_talking")
            sandbox_clock.advance(120)
            events = await call.to_close()
    assert len(deltas(call.events)) == 25 < frame_count(PRIYA_GREETING)
    assert "agent_stop_talking" not in types(events)
    assert events[-1] == {"type": "session.closed", "reason": "max_duration"}


async def test_a_stall_with_an_end_delays_the_rest_of_the_turn(sandbox_clock) -> None:
    with sandbox_with(sandbox_clock, "socket_stall_after=0.5,socket_stall_for=2") as sandbox:
        async with dialled(sandbox, (await register(sandbox))["access_token"]) as call:
            start = (await call.until("agent_start_talking"))[-1]["timestamp"]
            sandbox_clock.advance(1.5)
            await call.speaker_waits(2.5)  # frame 25 waits for the stall's end
            sandbox_clock.advance(speaking_seconds(PRIYA_GREETING) + 0.5)
            events = await call.until("agent_stop_talking")
    assert start.endswith("09:00:00.000Z")
    assert events[-1]["timestamp"] == iso(sandbox_clock.start + timedelta(seconds=speaking_seconds(PRIYA_GREETING) + 2))
    assert len(deltas(call.events)) == frame_count(PRIYA_GREETING)


@pytest.mark.parametrize(("spec", "message"), [
    ("socket_drop_after=soon", "socket_drop_after must be seconds"),
    ("socket_stall_after=-1", "socket_stall_after must be seconds"),
    ("socket_start_error=busy", "socket_start_error must be one of"),
])
def test_a_bad_socket_fault_spec_says_which_setting_and_why(spec: str, message: str) -> None:
    with pytest.raises(FaultSpecError, match=message):
        Faults.parse(spec)


async def test_web_calls_and_sockets_share_the_slots(live_sandbox) -> None:
    async with httpx.AsyncClient(base_url=live_sandbox.base_url,
                                 headers={"Authorization": "Bearer sk_sandbox_agent"}) as c:
        for _ in range(4):
            assert (await c.post("/v1/webcall", json={"agentId": agent_ref(live_sandbox, "Priya")})).status_code == 200
    events, close_code = await _refused(live_sandbox, await register(live_sandbox))
    assert [(e["type"], e["code"]) for e in events] == [("error", "concurrency_limit_exceeded")]
    assert close_code == 4000


async def test_a_failure_inside_the_sandbox_closes_the_session_with_reason_error(live_sandbox, monkeypatch) -> None:
    def broken(self, heard: str):
        raise RuntimeError("the sandbox agent failed")

    monkeypatch.setattr(SandboxAgent, "answer", broken)
    registered = await register(live_sandbox)
    async with dialled(live_sandbox, registered["access_token"]) as call:
        await call.next()
        await call.greeted()
        await call.send(type="input_text.send", text="hello")
        events = await call.to_close()
    assert events == [{"type": "transcript", "role": "user", "text": "hello"},
                      {"type": "session.closed", "reason": "error"}]
    assert call.close_code == 1000
    record = account_of(live_sandbox).calls[registered["call_id"]]
    assert record.status == FAILED and record.end_reason == "error"
    assert (await limits(live_sandbox))["active_requests"] == 0


async def test_call_max_s_moves_the_calls_longest_length(sandbox_clock) -> None:
    """A test on a fast clock sets calls a day long, so a busy machine never ends one at 120 s."""
    with sandbox_with(sandbox_clock, "call_max_s=300") as sandbox:
        registered = await register(sandbox)
        async with dialled(sandbox, registered["access_token"]) as call:
            await call.next()
            await call.greeted()
            sandbox_clock.advance(120)
            assert await call.probe() == []
            sandbox_clock.advance(180)
            assert await call.to_close() == [{"type": "session.closed", "reason": "max_duration"}]
        record = account_of(sandbox).calls[registered["call_id"]]
    assert record.end_reason == "max_duration" and record.credits_charged == pytest.approx(5 * 3.0)  # five started minutes


def test_call_max_s_is_seconds_within_a_day() -> None:
    assert Faults.parse("call_max_s=90").call_max_s == 90
    with pytest.raises(FaultSpecError, match="call_max_s must be seconds from 0 to 86400"):
        Faults.parse("call_max_s=-1")
