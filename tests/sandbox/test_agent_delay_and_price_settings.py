"""`--faults agent_delay_ms=REF:MS,agent_credits_per_minute=REF:N`: per-agent answer delay and price
of the sandbox's agent socket, read and refused as the other settings are (the behaviour on a call
is tested through `vap agents test`: tests/talk/test_latency_and_cost_budgets_gate_a_suite.py)."""

from __future__ import annotations

import pytest

from vap_console.sandbox.agent_pace import DEFAULT_DELAY_MS
from vap_console.sandbox.faults import Faults, FaultSpecError


def test_the_settings_are_per_agent_with_a_star_for_every_other_one() -> None:
    faults = Faults.parse("agent_delay_ms=*:300,agent_delay_ms=ua_4152f853c72d:900,agent_credits_per_minute=ua_x:6")
    agents = faults.agents
    assert agents.delay_for("some-id", "ua_4152f853c72d") == 900
    assert agents.delay_for("other-id", "ua_other") == 300
    assert agents.price_for("id", "ua_x", 3) == 6 and agents.price_for("id", "ua_y", 3) == 3
    assert faults.socket_active and "agent_delay_ms=ua_4152f853c72d:900" in str(faults)
    assert Faults.parse("").agents.delay_for("id", "ua_x") == DEFAULT_DELAY_MS == 400  # docs/sandbox-voice.md
    assert Faults.parse("agent_delay_ms=*:0").agents.delay_for("id", "ua_x") == 0


@pytest.mark.parametrize("spec", ["agent_delay_ms=900", "agent_delay_ms=ua_x:-1", "agent_delay_ms=:5",
                                  "agent_delay_ms=ua_x:70000", "agent_credits_per_minute=ua_x:cheap"])
def test_a_wrong_setting_names_its_form(spec: str) -> None:
    with pytest.raises(FaultSpecError, match="must be REF:VALUE"):
        Faults.parse(spec)


async def test_by_default_the_greeting_and_each_answer_start_400_ms_of_the_sandbox_clock_late() -> None:
    """No agent answers in zero time unless told to: session.created comes first, then nothing
    until 400 ms of the sandbox's clock have passed (the vendor's Node bridge relies on that gap)."""
    from datetime import timedelta

    from tests.sandbox.socket_calls import dialled, register, types
    from vap_console.sandbox.clock import VirtualClock, iso
    from vap_console.sandbox.server import start_in_thread

    clock = VirtualClock()
    with start_in_thread(clock=clock, faults="call_max_s=86400") as sandbox:  # no agent_delay_ms given
        async with dialled(sandbox, (await register(sandbox))["access_token"]) as call:
            assert (await call.next())["type"] == "session.created"
            await call.speaker_waits(DEFAULT_DELAY_MS / 1000)  # the greeting's first frame waits for it
            assert "agent_start_talking" not in types(await call.probe())
            clock.advance(DEFAULT_DELAY_MS / 1000)
            started = (await call.until("agent_start_talking"))[-1]
            assert started["timestamp"] == iso(clock.start + timedelta(milliseconds=DEFAULT_DELAY_MS))
            clock.advance(60)
            await call.until("agent_stop_talking")
            typed_at = clock.now()
            await call.send(type="input_text.send", text="What are your support hours?")
            await call.speaker_waits((typed_at - clock.start).total_seconds() + DEFAULT_DELAY_MS / 1000)
            assert "agent_start_talking" not in types(await call.probe())
            clock.advance(DEFAULT_DELAY_MS / 1000)
            answer = (await call.until("agent_start_talking"))[-1]
            assert answer["timestamp"] == iso(typed_at + timedelta(milliseconds=DEFAULT_DELAY_MS))


async def test_the_default_delay_is_listed_in_openapi_as_a_sandbox_extension(client) -> None:
    info = (await client.get("/openapi.json")).json()["info"]
    pace = info["x-sandbox-agent-pace"]
    assert pace["defaultAnswerDelayMs"] == DEFAULT_DELAY_MS
    assert "agent_delay_ms=REF:MS" in pace["description"] and "--speed" in pace["description"]
    assert "400 unless set" in info["x-sandbox-faults"]["--faults agent_delay_ms="]
