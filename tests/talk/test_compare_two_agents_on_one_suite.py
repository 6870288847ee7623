"""`vap agents test --compare REF_A REF_B`: the suite held with both agents, one table of pass rate,
answer p50/p95 and credits for A, B and the change, and exit 1 when B is worse than the thresholds
(file or flags); --json and JUnit carry the same figures."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

from tests.talk.gates import ARJUN, HOURS, PRIYA, SPEED, gate_sandbox, write

# B (Arjun) starts each turn 20 s of the sandbox clock late (1 s of wall time at speed 20) and costs
# 6 credits a minute where A (Priya) costs the sandbox's 3.
SLOW_DEAR_B = f"agent_delay_ms={ARJUN}:20000,agent_credits_per_minute={ARJUN}:6"
SUITE = {"max_p95_regression": 0.2, "max_cost_increase": 0.5, "conversations": [HOURS]}


def test_a_slower_dearer_b_is_worse_and_the_table_says_by_how_much(tmp_path: Path, capsys: Any) -> None:
    with gate_sandbox(tmp_path, capsys, faults=SLOW_DEAR_B) as talker:
        path = write(tmp_path, SUITE)
        report = tmp_path / "report.xml"
        table = talker("agents", "test", path, "--compare", PRIYA, ARJUN, "--yes", "--junit", str(report))
        document = talker("agents", "test", path, "--compare", PRIYA, ARJUN, "--yes", "--json")
    assert table.code == 1, table.out + table.err
    rows = [line.split("\t") for line in table.out.splitlines() if "\t" in line]
    hours = next(r for r in rows if r[0] == "hours")
    whole = next(r for r in rows if r[0] == "all conversations")
    assert hours[1:4] == ["100 %", "100 %", "+0 pt"] and hours[9:] == ["3", "6", "+100 %"]
    assert whole[9:] == ["3", "6", "+100 %"]
    assert "B is worse: hours: B's answer p95" in table.said and "(at most +20 % allowed)" in table.said
    assert "B is worse: in all: B's credits 6 are +100 % on A's 3 (at most +50 % allowed)" in table.said

    assert document.code == 1
    data = json.loads(document.out)
    [hours_doc, all_doc] = data["compare"]
    assert hours_doc["a"]["credits"] == 3 and hours_doc["b"]["credits"] == 6 and hours_doc["change"]["credits"] == 1.0
    assert hours_doc["b"]["answer_ms"]["p50_ms"] >= 20_000 / SPEED  # the configured delay, as the console measured it
    assert all_doc["conversation"] == "all conversations" and data["held"] is False and data["worse"]

    root = ET.parse(report).getroot()
    compare = [s for s in root.iter("testsuite") if (s.get("name") or "").startswith("compare")]
    assert len(compare) == 1 and compare[0].get("failures") != "0"
    figures = {p.get("name"): p.get("value") for p in compare[0].iter("property")}
    assert figures["hours.a.credits"] == "3" and figures["hours.b.credits"] == "6"
    assert figures["hours.change.credits"] == "1"


def test_b_within_the_thresholds_holds_and_the_flags_override_the_file(tmp_path: Path, capsys: Any) -> None:
    with gate_sandbox(tmp_path, capsys, faults=f"agent_credits_per_minute={ARJUN}:6") as talker:
        path = write(tmp_path, {**SUITE, "conversations": [{"name": "greets", "greeting": {"contains": "Sharma Dental Clinic"}}]})
        # Greetings are not timed (no turn was sent), so only the cost can differ: +100 % against 0.5 …
        worse = talker("agents", "test", path, "--compare", PRIYA, ARJUN, "--yes")
        # … and against --max-cost-increase 1.5 it is allowed.
        allowed = talker("agents", "test", path, "--compare", PRIYA, ARJUN, "--yes", "--max-cost-increase", "1.5")
    assert worse.code == 1 and "B's credits 6 are +100 % on A's 3" in worse.said
    assert allowed.code == 0, allowed.out + allowed.err
