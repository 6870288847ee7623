"""`vap agents test FILE…`: scripted conversations against the sandbox, each expectation reported,
JUnit XML, exit 0 all held / 1 one failed / 2 a file or option wrong (nothing sent)."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path

from tests.sandbox.socket_calls import sandbox_with
from tests.talk.cli import Talker
from vap_console.sandbox.clock import SystemClock

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "front-desk.test.json"


def write(tmp_path: Path, name: str, data: object) -> str:
    path = tmp_path / name
    path.write_text(json.dumps(data) if not isinstance(data, str) else data, encoding="utf-8")
    return str(path)


def test_the_example_file_holds_against_the_sandbox_with_junit(talker: Talker, tmp_path: Path) -> None:
    report = tmp_path / "report.xml"
    result = talker("agents", "test", str(EXAMPLE), "--yes", "--junit", str(report))
    assert result.code == 0, result.out + result.err
    lines = result.out.splitlines()
    assert lines[0] == "PASS  greets and gives the hours › greeting contains 'Sharma Dental Clinic'"
    assert "PASS  books an appointment and says goodbye › tool 'book_appointment' was called" in lines
    assert "PASS  books an appointment and says goodbye › the agent ended the call" in lines
    assert all(line.startswith("PASS") for line in lines) and len(lines) == 11
    assert "11 expectations in 2 conversations: 11 held, 0 failed; answer p50 " in result.said
    suite = ET.parse(report).getroot().find("testsuite")
    assert suite.get("tests") == "11" and suite.get("failures") == "0"
    assert len(talker.started) == 2


def test_a_failed_expectation_is_reported_with_what_came_and_exits_1(talker: Talker, tmp_path: Path) -> None:
    path = write(tmp_path, "t.json", {"agent": talker.ref(), "conversations": [{
        "name": "hours", "turns": [{"say": "What are your support hours?",
                                    "expect": {"contains": "24 hours", "matches": "Saturday"}}],
        "tools_called": ["transfer_call"], "agent_ends_call": True}]})
    report = tmp_path / "r.xml"
    result = talker("agents", "test", path, "--yes", "--junit", str(report))
    assert result.code == 1
    out = result.out.splitlines()
    assert ("FAIL  hours › answer 1 ('What are your support hours?') contains '24 hours': got 'The support hours "
            "is 9 am to 7 pm, Monday to Saturday.'") in out
    assert "PASS  hours › answer 1 ('What are your support hours?') matches /Saturday/" in out
    assert "FAIL  hours › tool 'transfer_call' was called: called: none" in out
    assert "FAIL  hours › the agent ended the call: You hung up." in out
    assert "4 expectations in 1 conversation: 1 held, 3 failed" in result.said
    cases = ET.parse(report).getroot().iter("testcase")
    failures = [c.find("failure").get("message") for c in cases if c.find("failure") is not None]
    assert len(failures) == 3 and "called: none" in failures


def test_json_prints_every_expectation_and_the_figures(talker: Talker, tmp_path: Path) -> None:
    path = write(tmp_path, "t.json", {"conversations": [{"greeting": {"contains": "Priya"}}]})
    result = talker("agents", "test", path, "--agent", talker.ref(), "--yes", "--json")
    assert result.code == 0, result.err
    document = json.loads(result.out)
    assert document["expectations"] == [{"file": path, "conversation": "conversation 1", "run": 1,
                                         "expectation": "greeting contains 'Priya'", "ok": True, "detail": ""}]
    assert document["held"] is True and document["agent"] == talker.ref()
    [conversation] = document["conversations"]
    assert conversation["pass_rate"] == 1.0 and conversation["outcome"] == "passed"
    assert conversation["credits"] == 3.0  # the sandbox's price of the minute started (call_records.py)


def test_a_call_that_cannot_start_fails_its_expectations(tmp_path: Path, capsys) -> None:
    with sandbox_with(SystemClock(100), "socket_start_error=insufficient_balance") as sandbox:
        talker = Talker(sandbox, tmp_path, capsys)
        path = write(tmp_path, "t.json", {"agent": talker.ref(), "conversations": [{"greeting": {"contains": "x"}}]})
        result = talker("agents", "test", path, "--yes")
    assert result.code == 1
    assert result.out.startswith("FAIL  conversation 1 › greeting contains 'x': insufficient_balance:")
    assert "socket closed with 4000" in result.out


def test_an_unknown_agent_is_refused_before_any_call(talker: Talker, tmp_path: Path) -> None:
    path = write(tmp_path, "t.json", {"agent": "ua_nobody", "conversations": [{"greeting": {"contains": "x"}}]})
    result = talker("agents", "test", path, "--yes")
    assert result.code == 1 and "agent_not_found" in result.said and talker.started == []


def test_a_wrong_file_is_a_usage_error_naming_the_field_and_nothing_is_sent(talker: Talker, tmp_path: Path) -> None:
    cases = {
        "bad.json": ("{not json", "not valid JSON"),
        "none.json": ({"agent": "ua_x"}, "conversations: required: a list of at least one conversation"),
        "regex.json": ({"agent": "ua_x", "conversations": [{"turns": [{"say": "hi", "expect": {"matches": "("}}]}]},
                       "conversations[0].turns[0].expect.matches: not a valid regular expression"),
        "key.json": ({"agent": "ua_x", "conversations": [{"turns": [{"say": "hi", "expect": {"contain": "x"}}]}]},
                     "conversations[0].turns[0].expect.contain: unknown field"),
        "say.json": ({"agent": "ua_x", "conversations": [{"turns": [{"expect": {}}]}]},
                     "conversations[0].turns[0].say: required"),
        "ms.json": ({"agent": "ua_x", "conversations": [{"greeting": {"within_ms": -1}}]},
                    "conversations[0].greeting.within_ms: must be a whole number of milliseconds above 0"),
        "noagent.json": ({"conversations": [{}]}, "agent: required (or --agent REF)"),
    }
    good = write(tmp_path, "good.json", {"agent": talker.ref(), "conversations": [{}]})
    for name, (data, words) in cases.items():
        result = talker("agents", "test", good, write(tmp_path, name, data), "--yes")
        assert result.code == 2, name
        assert words in result.said and "nothing was sent" in result.said, (name, result.said)
    assert talker.started == []
    missing = talker("agents", "test", str(tmp_path / "gone.json"), "--yes")
    assert missing.code == 2 and "gone.json: cannot be read" in missing.said
    no_folder = talker("agents", "test", good, "--yes", "--junit", str(tmp_path / "no" / "r.xml"))
    assert no_folder.code == 2 and "--junit: the folder" in no_folder.said
    assert talker("agents", "test", good).code == 2  # money without a terminal and without --yes
    assert talker.started == []
