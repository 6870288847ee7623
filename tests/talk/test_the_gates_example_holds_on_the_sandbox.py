"""docs/testing.md's worked example, examples/front-desk.gates.test.json, holds on the sandbox as
written (three runs of each conversation, two side by side), its JUnit carrying the figures."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

from tests.talk.gates import gate_sandbox

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "front-desk.gates.test.json"


def test_the_gates_example_holds_with_its_figures_in_junit(tmp_path: Path, capsys: Any) -> None:
    report = tmp_path / "report.xml"
    with gate_sandbox(tmp_path, capsys) as talker:
        result = talker("agents", "test", str(EXAMPLE), "--yes", "--parallel", "2", "--junit", str(report))
    assert result.code == 0, result.out + result.err
    assert "27 expectations in 2 conversations (6 runs): 27 held, 0 failed" in result.said
    assert "PASS  all conversations › at most 20 credits for one pass: 6 credits for one pass" in result.out
    suite = ET.parse(report).getroot().find("testsuite")
    assert suite is not None and suite.get("failures") == "0"
    figures = {p.get("name"): p.get("value") for p in suite.iter("property")}
    assert figures["gives the hours.runs"] == "3" and figures["credits"] == "6"
    assert float(figures["answer_p95_ms"]) > 0
