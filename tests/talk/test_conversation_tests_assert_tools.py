"""Conversation tests assert tools (issue 33, point 4): ``tools_called`` takes a bare name or
``{"name", "args"}`` (args a subset of what the agent gave), a turn's ``expect.tool`` names the
tool that turn must call; on the sandbox with --call-tools a suite exercises a loopback webhook end
to end; where the record cannot show arguments or turns (the real service, or no --call-tools) the
expectation fails saying it cannot be checked; bad values exit 2 before any call."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.sandbox.calling import hook
from tests.sandbox.socket_calls import account_of
from tests.talk.cli import LONG_CALLS, SPEED, Talker
from tests.webhook import Webhook
from vap_console.api.realtime import CallTools
from vap_console.sandbox.server import RunningSandbox, start_in_thread
from vap_console.sandbox.voice.tool_calls import ToolCalling
from vap_console.scripting.tool_expects import ToolExpect, judge_call, judge_turn

__all__ = ["hook"]  # a fixture
BOOK = "Please book_appointment doctor: Mehta, slot=Friday 10am"


@pytest.fixture
def calling(hook: Webhook) -> Iterator[RunningSandbox]:
    with start_in_thread(speed=SPEED, faults=LONG_CALLS, call_tools=ToolCalling()) as running:
        for tool in account_of(running).tools.values():
            if tool.name in ("lookup_customer", "book_appointment"):
                tool.config = {**tool.config, "url": hook.url + "/ok", "timeoutMs": 5000}
        yield running


def write(tmp_path: Path, data: Any, name: str = "t.json") -> str:
    path = tmp_path / name
    path.write_text(json.dumps(data), encoding="utf-8")
    return str(path)


def suite(talker: Talker, turns: list[dict[str, Any]], tools: list[Any]) -> dict[str, Any]:
    return {"agent": talker.ref(), "conversations": [{"name": "books", "turns": turns, "tools_called": tools}]}


def test_a_suite_on_the_sandbox_with_call_tools_checks_the_webhook_end_to_end(
        calling: RunningSandbox, hook: Webhook, tmp_path: Path, capsys) -> None:
    talker = Talker(calling, tmp_path, capsys)
    path = write(tmp_path, suite(talker, [
        {"say": "hello"},
        {"say": BOOK, "expect": {"contains": "appointment", "tool": {"name": "book_appointment",
                                                                    "args": {"doctor": "Mehta"}}}},
    ], ["lookup_customer", {"name": "book_appointment", "args": {"slot": "Friday 10am", "doctor": "Mehta"}}]))
    result = talker("agents", "test", path, "--yes")
    assert result.code == 0, result.out + result.err
    out = result.out.splitlines()
    assert (f"PASS  books › answer 2 ('{BOOK}') calls tool 'book_appointment' with doctor='Mehta'") in out
    assert "PASS  books › tool 'lookup_customer' was called" in out
    assert "PASS  books › tool 'book_appointment' with slot='Friday 10am', doctor='Mehta' was called" in out
    booked = [a for a in hook.arrived if a.method == "POST"]
    assert len(booked) == 1 and json.loads(booked[0].body)["doctor"] == "Mehta"  # the developer's webhook got it


def test_other_arguments_or_another_turn_fail_saying_what_was_called(
        calling: RunningSandbox, tmp_path: Path, capsys) -> None:
    talker = Talker(calling, tmp_path, capsys)
    path = write(tmp_path, suite(talker, [
        {"say": BOOK, "expect": {"tool": {"name": "book_appointment", "args": {"doctor": "Rao"}}}},
        {"say": "thanks", "expect": {"tool": "book_appointment"}},
    ], [{"name": "book_appointment", "args": {"slot": "Monday"}}]))
    result = talker("agents", "test", path, "--yes")
    assert result.code == 1
    out = result.out.splitlines()
    called = "book_appointment with doctor='Mehta', slot='Friday 10am'"
    assert f"FAIL  books › answer 1 ('{BOOK}') calls tool 'book_appointment' with doctor='Rao': turn 1 called: {called}" in out
    assert "FAIL  books › answer 2 ('thanks') calls tool 'book_appointment': turn 2 called: none" in out
    assert f"FAIL  books › tool 'book_appointment' with slot='Monday' was called: called: lookup_customer; {called}" in out


def test_without_call_tools_arguments_cannot_be_checked_and_say_so(talker: Talker, tmp_path: Path) -> None:
    path = write(tmp_path, suite(talker, [{"say": BOOK, "expect": {"tool": "book_appointment"}}],
                                 ["book_appointment", {"name": "book_appointment", "args": {"doctor": "Mehta"}}]))
    result = talker("agents", "test", path, "--yes")
    assert result.code == 1  # never a silent pass
    out = result.out.splitlines()
    assert "PASS  books › tool 'book_appointment' was called" in out  # the name alone is on the record
    cannot = ("cannot check: book_appointment is in toolsCalled but no webhook call of it is recorded "
              "(a built-in tool such as end_call, or a sandbox without --call-tools)")
    assert f"FAIL  books › answer 1 ('{BOOK}') calls tool 'book_appointment': {cannot}" in out
    assert f"FAIL  books › tool 'book_appointment' with doctor='Mehta' was called: {cannot}" in out


def test_on_a_record_without_tool_calls_as_the_real_services_an_args_check_is_cannot_check() -> None:
    # The real service's record publishes no toolCalls: at most the names (toolsCalled).
    record = CallTools.model_validate({"id": "c", "toolsCalled": ["book_appointment"]})
    with_args = ToolExpect("book_appointment", (("date", "Friday"),))
    for what, ok, detail in (judge_call(with_args, record, ""), judge_turn(ToolExpect("book_appointment"), record, "", 1)):
        assert not ok and detail.startswith("cannot check: the call record has no toolCalls"), what
        assert "the real service lets a client see at most the tools' names, toolsCalled" in detail
    assert judge_call(ToolExpect("book_appointment"), record, "")[1]  # a bare name it can see


@pytest.mark.parametrize(("tools", "expect", "words"), [
    ([{"name": "book", "arg": {}}], None, "conversations[0].tools_called[0].arg: unknown field (known: args, name)"),
    ([{"args": {"date": "Fri"}}], None, "conversations[0].tools_called[0].name: required: the tool's name"),
    (["book-it"], None, "conversations[0].tools_called[0].name: required: the tool's name, a letter then"),
    ([{"name": "book", "args": {"date": None}}], None,
     "conversations[0].tools_called[0].args.date: must be a string, a number or true/false"),
    ([{"name": "book", "args": {}}], None, "conversations[0].tools_called[0].args: must be an object of at least one"),
    ([{"name": "book", "args": ["date"]}], None, "conversations[0].tools_called[0].args: must be an object"),
    ([], 5, "conversations[0].turns[0].expect.tool: must be a tool's name or {\"name\": \"book_appointment\""),
    ([], {"name": "book", "args": {"a b": 1}}, "conversations[0].turns[0].expect.tool.args.a b: an argument's name"),
])
def test_a_wrong_tool_expectation_is_a_usage_error_before_any_call(
        talker: Talker, tmp_path: Path, tools: list[Any], expect: Any, words: str) -> None:
    turn: dict[str, Any] = {"say": "hi"} | ({"expect": {"tool": expect}} if expect is not None else {})
    path = write(tmp_path, {"agent": talker.ref(), "conversations": [{"turns": [turn], "tools_called": tools}]})
    result = talker("agents", "test", path, "--yes")
    assert result.code == 2 and words in result.said and "nothing was sent" in result.said, result.said
    assert talker.started == []
