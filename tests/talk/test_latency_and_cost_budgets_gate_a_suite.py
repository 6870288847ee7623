"""Latency budgets (`latency: {"p50_ms", "p95_ms"}`) over every answer time measured, and cost
budgets (`max_credits`) from the call records, per conversation and per suite: a budget broken
fails the run and says by how much; kept, it passes."""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

from tests.talk.gates import HOURS, PRIYA, SPEED, gate_sandbox, write

DELAY_MS = 20_000  # on the sandbox clock: at SPEED 20 each of Priya's turns starts a second late


def test_an_answer_slower_than_the_budget_fails_and_a_generous_budget_holds(tmp_path: Path, capsys: Any) -> None:
    with gate_sandbox(tmp_path, capsys, faults=f"agent_delay_ms={PRIYA}:{DELAY_MS}") as talker:
        tight = write(tmp_path, {"agent": PRIYA, "conversations": [{**HOURS, "latency": {"p95_ms": 500}}]}, "tight.json")
        slow = talker("agents", "test", tight, "--yes", "--json")
        loose = write(tmp_path, {"agent": PRIYA, "latency": {"p50_ms": 600_000, "p95_ms": 600_000},
                                 "conversations": [HOURS]}, "loose.json")
        fine = talker("agents", "test", loose, "--yes")
    assert slow.code == 1, slow.err
    [conversation] = json.loads(slow.out)["conversations"]
    p95 = conversation["answer_ms"]["p95_ms"]
    # The console's measure of the sandbox's configured delay: never less than it (on the wall clock).
    assert p95 >= DELAY_MS / SPEED
    said = re.search(r"FAIL  hours › answer p95 ≤ 500 ms: answer p95 (\d+) ms is over the budget of 500 ms", slow.err)
    assert said is not None, slow.err
    assert abs(int(said.group(1)) - p95) <= 1  # the words round the figure the JSON keeps
    assert fine.code == 0, fine.out + fine.err
    assert "PASS  all conversations › answer p50 ≤ 600000 ms, p95 ≤ 600000 ms" in fine.out


def test_a_call_dearer_than_max_credits_fails_and_the_suite_budget_counts_one_pass(tmp_path: Path,
                                                                                   capsys: Any) -> None:
    # Priya's calls cost 4 credits a started minute here (the sandbox's own price is 3).
    with gate_sandbox(tmp_path, capsys, faults=f"agent_credits_per_minute={PRIYA}:4") as talker:
        path = write(tmp_path, {"agent": PRIYA, "max_credits": 7, "repeat": 2, "conversations": [
            {**HOURS, "max_credits": 3}, {"name": "greets", "greeting": {"contains": "Priya"}, "max_credits": 5}]})
        report = tmp_path / "report.xml"
        result = talker("agents", "test", path, "--yes", "--junit", str(report))
    assert result.code == 1
    assert "FAIL  hours › at most 3 credits a call: credits per call 4 is over the budget of 3" in result.out
    assert "PASS  greets › at most 5 credits a call" in result.out
    # One pass through the suite is 4 + 4 credits, whatever --repeat (2 here) makes of it.
    assert ("FAIL  all conversations › at most 7 credits for one pass: credits for one pass through the suite 8 "
            "is over the budget of 7") in result.out
    suite = ET.parse(report).getroot().find("testsuite")
    assert suite is not None
    figures = {p.get("name"): p.get("value") for p in suite.iter("property")}
    assert figures["hours.credits"] == "4" and figures["credits"] == "8" and figures["hours.runs"] == "2"
    assert "hours.answer_p95_ms" in figures and figures["hours.pass_rate"] == "1"
