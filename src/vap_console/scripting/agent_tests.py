"""`vap agents test FILE…`: conversation tests (docs/talk.md "Conversation tests").

A file (JSON; YAML too where PyYAML is installed) names an agent and its conversations: the turns
to type and what each answer must hold. Every file is read and checked whole before any call is
made, so a mistake in a file costs nothing (exit 2, the field and the rule named). Then each
conversation is held over the agent socket (scripting/dialogue.py) and each expectation reported.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from vap_console.api.conversation import Turn
from vap_console.api.figures import percent
from vap_console.api.limits import TYPED_TURN
from vap_console.api.realtime import CallTools
from vap_console.literal import clean, xml_text
from vap_console.scripting.dialogue import Run
from vap_console.scripting.resembles import Resembles, ResemblesError
from vap_console.scripting.test_gates import (
    COMPARE_KEYS,
    GATE_KEYS,
    GateError,
    Gates,
    SuiteGates,
    read_gates,
    read_thresholds,
)
from vap_console.scripting.tool_expects import ToolExpect, ToolExpectError, judge_call, judge_turn, read_tools

ANSWER_KEYS = {"contains", "not_contains", "matches", "within_ms", "resembles"}
TURN_KEYS = {"say", "expect"}
TURN_EXPECT_KEYS = ANSWER_KEYS | {"tool"}  # a turn's answer may also name the tool it must call
CONVERSATION_KEYS = {"name", "greeting", "turns", "tools_called", "agent_ends_call"} | GATE_KEYS
FILE_KEYS = {"agent", "timeout_ms", "conversations"} | GATE_KEYS | COMPARE_KEYS


class TestFileError(Exception):
    """A test file that cannot be run: the message names the file, the field and the rule."""


@dataclass
class Expect:
    contains: list[str] = field(default_factory=list)
    not_contains: list[str] = field(default_factory=list)
    matches: re.Pattern[str] | None = None
    within_ms: int | None = None
    tools: list[ToolExpect] = field(default_factory=list)  # a turn's expect.tool (scripting/tool_expects.py)
    resembles: Resembles | None = None  # reworded answers (scripting/resembles.py)


@dataclass
class ScriptedTurn:
    say: str
    expect: Expect


@dataclass
class Script:
    name: str
    greeting: Expect
    turns: list[ScriptedTurn]
    tools_called: list[ToolExpect]
    agent_ends_call: bool | None
    # repeat, min_pass_rate, latency and cost budgets (scripting/test_gates.py)
    gates: Gates = field(default_factory=Gates)

    @property
    def asks_tools(self) -> bool:
        """Whether judging it needs the call record's tools."""
        return bool(self.tools_called) or any(t.expect.tools for t in self.turns)


@dataclass
class TestFile:
    path: Path
    agent: str | None
    timeout_ms: int
    conversations: list[Script]
    suite: SuiteGates = field(default_factory=SuiteGates)


@dataclass
class Check:
    """One expectation's outcome."""

    conversation: str
    what: str
    ok: bool
    detail: str = ""


# --- reading ---


def load(path: Path) -> TestFile:
    where = str(path)
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise TestFileError(f"{where}: cannot be read ({exc.__class__.__name__}: {exc})") from None
    if path.suffix.lower() in (".yaml", ".yml"):
        try:
            import yaml  # optional: only when the person has it (mypy: pyproject's overrides)
        except ImportError:
            raise TestFileError(f"{where}: YAML needs PyYAML, which is not installed here; write the test "
                                "as JSON (docs/talk.md), or install pyyaml") from None
        try:
            data = yaml.safe_load(text)
        except yaml.YAMLError as exc:
            raise TestFileError(f"{where}: not valid YAML ({str(exc).splitlines()[0]})") from None
    else:
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise TestFileError(f"{where}: not valid JSON ({exc.msg} at line {exc.lineno})") from None
    return _file(path, data)


def _fail(path: Path, at: str, rule: str) -> TestFileError:
    return TestFileError(f"{path}: {at}: {rule}")


def _object(path: Path, at: str, value: Any, keys: set[str]) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise _fail(path, at, "must be an object")
    unknown = sorted(set(value) - keys)
    if unknown:
        raise _fail(path, f"{at}.{unknown[0]}" if at != "the file" else unknown[0],
                    f"unknown field (known: {', '.join(sorted(keys))})")
    return value


def _strings(path: Path, at: str, value: Any) -> list[str]:
    items = [value] if isinstance(value, str) else value
    if not isinstance(items, list) or not all(isinstance(v, str) and v for v in items):
        raise _fail(path, at, "must be a non-empty string or a list of them")
    return list(items)


def _positive(path: Path, at: str, value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
        raise _fail(path, at, "must be a whole number of milliseconds above 0")
    return value


def _tools(path: Path, at: str, value: Any) -> list[ToolExpect]:
    try:
        return read_tools(at, value)
    except ToolExpectError as exc:
        raise _fail(path, exc.at, exc.rule) from None


def _expect(path: Path, at: str, value: Any, keys: set[str] = ANSWER_KEYS) -> Expect:
    data = _object(path, at, value if value is not None else {}, keys)
    expect = Expect()
    if "tool" in data:
        expect.tools = _tools(path, f"{at}.tool", data["tool"])
    if "contains" in data:
        expect.contains = _strings(path, f"{at}.contains", data["contains"])
    if "not_contains" in data:
        expect.not_contains = _strings(path, f"{at}.not_contains", data["not_contains"])
    if "matches" in data:
        pattern = data["matches"]
        if not isinstance(pattern, str) or not pattern:
            raise _fail(path, f"{at}.matches", "must be a non-empty regular expression")
        try:
            expect.matches = re.compile(pattern)
        except re.error as exc:
            raise _fail(path, f"{at}.matches", f"not a valid regular expression ({exc})") from None
    if "within_ms" in data:
        expect.within_ms = _positive(path, f"{at}.within_ms", data["within_ms"])
    if "resembles" in data:
        try:
            expect.resembles = Resembles.read(f"{at}.resembles", data["resembles"])
        except ResemblesError as exc:
            raise _fail(path, exc.at, exc.rule) from None
    return expect


def _script(path: Path, at: str, value: Any, index: int) -> Script:
    data = _object(path, at, value, CONVERSATION_KEYS)
    name = data.get("name", f"conversation {index + 1}")
    if not isinstance(name, str) or not name.strip():
        raise _fail(path, f"{at}.name", "must be a non-empty string")
    turns_in = data.get("turns", [])
    if not isinstance(turns_in, list):
        raise _fail(path, f"{at}.turns", "must be a list of {\"say\": …, \"expect\": {…}}")
    turns = []
    for i, item in enumerate(turns_in):
        here = f"{at}.turns[{i}]"
        turn = _object(path, here, item, TURN_KEYS)
        say = turn.get("say")
        if not isinstance(say, str) or not say.strip() or not TYPED_TURN.allows(len(say)):
            raise _fail(path, f"{here}.say", f"required: the text to type, {TYPED_TURN.rule()}")
        turns.append(ScriptedTurn(say, _expect(path, f"{here}.expect", turn.get("expect"), TURN_EXPECT_KEYS)))
    tools = _tools(path, f"{at}.tools_called", data["tools_called"]) if "tools_called" in data else []
    ends = data.get("agent_ends_call")
    if ends is not None and not isinstance(ends, bool):
        raise _fail(path, f"{at}.agent_ends_call", "must be true or false")
    try:
        gates = read_gates(data, at)
    except GateError as exc:
        raise _fail(path, exc.at, exc.rule) from None
    return Script(name.strip(), _expect(path, f"{at}.greeting", data.get("greeting")), turns, tools, ends, gates)


def _file(path: Path, data: Any) -> TestFile:
    top = _object(path, "the file", data, FILE_KEYS)
    agent = top.get("agent")
    if agent is not None and (not isinstance(agent, str) or not agent.strip()):
        raise _fail(path, "agent", "must be the agent's id or ua_<handle>")
    timeout = _positive(path, "timeout_ms", top["timeout_ms"]) if "timeout_ms" in top else 30_000
    items = top.get("conversations")
    if not isinstance(items, list) or not items:
        raise _fail(path, "conversations", "required: a list of at least one conversation")
    scripts = [_script(path, f"conversations[{i}]", item, i) for i, item in enumerate(items)]
    try:
        suite = SuiteGates(read_gates(top, ""), read_thresholds(top))
    except GateError as exc:
        raise _fail(path, exc.at, exc.rule) from None
    return TestFile(path, agent.strip() if agent else None, timeout, scripts, suite)


# --- judging ---

_NO_RECORD = "the call record could not be read (GET /v1/calls/{id})"


def _said(turns: list[Turn]) -> str:
    return " ".join(t.text for t in turns)


def _short(text: str) -> str:
    text = clean(text, multiline=False)
    return repr(text if len(text) <= 120 else text[:119] + "…")


def judge_answer(conversation: str, label: str, expect: Expect, answer: list[Turn] | None,
                 why_none: str) -> list[Check]:
    checks: list[Check] = []

    def check(what: str, ok: bool, got: str) -> None:
        checks.append(Check(conversation, f"{label} {what}", ok, "" if ok else got))

    text = _said(answer) if answer else ""
    got = f"got {_short(text)}" if answer else why_none
    for needle in expect.contains:
        check(f"contains {needle!r}", bool(answer) and needle.lower() in text.lower(), got)
    for needle in expect.not_contains:
        check(f"does not contain {needle!r}", bool(answer) and needle.lower() not in text.lower(), got)
    if expect.matches is not None:
        check(f"matches /{expect.matches.pattern}/", bool(answer) and expect.matches.search(text) is not None, got)
    if expect.resembles is not None:
        share = expect.resembles.share_in(text) if answer else 0.0
        check(expect.resembles.in_words(), bool(answer) and expect.resembles.holds(text),
              f"{got} ({percent(share)} of its words)" if answer else got)
    if expect.within_ms is not None:
        ms = answer[0].answer_ms if answer else None
        within = ms is not None and ms <= expect.within_ms
        check(f"comes within {expect.within_ms} ms", within,
              f"it took {ms:.0f} ms" if ms is not None else why_none)
    return checks


def judge(script: Script, run: Run | None, failure: str | None, tools: CallTools | None) -> list[Check]:
    """Every expectation of ``script`` against what happened (``failure``: the call never ran;
    ``tools``: the call record's tools, None when it could not be read)."""
    checks: list[Check] = []
    segments = run.segments if run else []
    talk = run.conversation if run else None
    ended_why = failure or (f"no answer: {talk.how_it_ended}" if talk and talk.ended else "no answer")
    if run and run.no_answer is not None:
        ended_why = f"no answer within the time allowed (timeout_ms) to {run.no_answer!r}"
    checks += judge_answer(script.name, "greeting", script.greeting, segments[0] if segments else None, ended_why)
    for i, turn in enumerate(script.turns):
        answer = segments[i + 1] if len(segments) > i + 1 else None
        label = f"answer {i + 1} ({_short(turn.say)})"
        checks += judge_answer(script.name, label, turn.expect, answer, ended_why)
        for tool in turn.expect.tools:
            what, ok, detail = judge_turn(tool, tools, failure or _NO_RECORD, i + 1)
            checks.append(Check(script.name, f"{label} {what}", ok, detail))
    for tool in script.tools_called:
        what, ok, detail = judge_call(tool, tools, failure or _NO_RECORD)
        checks.append(Check(script.name, what, ok, detail))
    if script.agent_ends_call is not None:
        reason = talk.closed.reason if talk and talk.closed else None
        ended_by_agent = reason == "ended"
        how = failure or (talk.how_it_ended if talk else "")
        what = "the agent ended the call" if script.agent_ends_call else "the agent did not end the call"
        checks.append(Check(script.name, what, ended_by_agent == script.agent_ends_call and failure is None, how))
    return checks


# --- JUnit ---


def _xml(value: object, *, multiline: bool = False) -> str:
    return xml_text(value, multiline=multiline)


def junit(results: list[tuple[TestFile, list[Check]]]) -> str:
    """JUnit XML: a suite per file, a case per expectation (what CI systems show); valid XML
    whatever the server said."""
    import xml.etree.ElementTree as ET

    root = ET.Element("testsuites", name="vap agents test")
    for test_file, checks in results:
        failed = sum(not c.ok for c in checks)
        suite = ET.SubElement(root, "testsuite", name=_xml(test_file.path),
                              tests=str(len(checks)), failures=str(failed), errors="0")
        for c in checks:
            case = ET.SubElement(suite, "testcase", classname=_xml(f"{test_file.path.stem}.{c.conversation}"),
                                 name=_xml(c.what))
            if not c.ok:
                ET.SubElement(case, "failure", message=_xml(c.detail)).text = _xml(c.detail, multiline=True)
    ET.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"
