"""`vap agents test --junit`: the report is XML a CI system can read whatever the agent or the
server said: control characters (which XML 1.0 cannot hold, even as references), U+FFFF and the
other noncharacters are written as visible stand-ins, the rest as it came."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from vap_console.scripting import agent_tests
from vap_console.scripting.agent_tests import Check, junit

SAID = ("osc52 \x1b]52;c;aGk=\x07 nul \x00 c1 \x9b2J bidi \u202eevil cr \r ffff \uffff fffe \ufffe "
        "fdd0 \ufdd0 plane-16 \U0010ffff नमस्ते 📞")


@pytest.mark.parametrize("where", ["conversation", "what", "detail"])
def test_the_report_parses_and_shows_what_was_said(where: str) -> None:
    check = Check(conversation="hours", what="answer 1 contains '9 am'", ok=False, detail="got 'closed'")
    setattr(check, where, SAID)
    report = junit([(agent_tests.TestFile(Path("front-desk.test.json"), "ua_x", 1000, []), [check])])
    root = ET.fromstring(report.split("\n", 1)[1])  # what a CI system reads: it parses
    case = root.find("testsuite/testcase")
    assert case is not None
    failure = case.find("failure")
    assert failure is not None
    shown = {"conversation": case.get("classname") or "", "what": case.get("name") or "",
             "detail": failure.get("message") or ""}[where]
    for stand_in in ("␛]52;c;aGk=␇", "␀", "\\x9b2J", "\\u202eevil", "\\uffff", "\\ufffe", "\\ufdd0", "नमस्ते 📞"):
        assert stand_in in shown, (stand_in, shown)
    if where == "detail":
        assert "\\uffff" in (failure.text or "")
