"""`--faults agent_delay_ms=REF:MS,agent_credits_per_minute=REF:N`: per-agent answer delay and price
of the sandbox's agent socket, read and refused as the other settings are (the behaviour on a call
is tested through `vap agents test`: tests/talk/test_latency_and_cost_budgets_gate_a_suite.py)."""

from __future__ import annotations

import pytest

from vap_console.sandbox.faults import Faults, FaultSpecError


def test_the_settings_are_per_agent_with_a_star_for_every_other_one() -> None:
    faults = Faults.parse("agent_delay_ms=*:300,agent_delay_ms=ua_4152f853c72d:900,agent_credits_per_minute=ua_x:6")
    agents = faults.agents
    assert agents.delay_for("some-id", "ua_4152f853c72d") == 900
    assert agents.delay_for("other-id", "ua_other") == 300
    assert agents.price_for("id", "ua_x", 3) == 6 and agents.price_for("id", "ua_y", 3) == 3
    assert faults.socket_active and "agent_delay_ms=ua_4152f853c72d:900" in str(faults)
    assert Faults.parse("").agents.delay_for("id", "ua_x") == 0


@pytest.mark.parametrize("spec", ["agent_delay_ms=900", "agent_delay_ms=ua_x:-1", "agent_delay_ms=:5",
                                  "agent_delay_ms=ua_x:70000", "agent_credits_per_minute=ua_x:cheap"])
def test_a_wrong_setting_names_its_form(spec: str) -> None:
    with pytest.raises(FaultSpecError, match="must be REF:VALUE"):
        Faults.parse(spec)
