"""A tool the sandbox calls during a call (`vap sandbox serve --call-tools`, issue 33 point 3) is
told as it happens: `sandbox.tool_call` is read as a typed event (a malformed one never raises),
kept bounded by the conversation, printed by `vap agents talk` (a `⚙` line; --json its frame) and
shown in Talk's transcript (`⚙ book_appointment → 200 in 84 ms`), its text shown literally. Run
against a real sandbox calling a loopback webhook."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.sandbox.socket_calls import account_of
from tests.talk.cli import LONG_CALLS, SPEED, Talker
from tests.tui.console_scenes import until
from tests.tui.talk_console import talk_console
from tests.webhook import Webhook
from vap_console.api.conversation import MAX_TOOL_CALLS, TOOLS, Conversation
from vap_console.api.realtime import ToolCall, UnknownEvent, parse_event
from vap_console.sandbox.server import RunningSandbox, start_in_thread
from vap_console.sandbox.voice.tool_calls import ToolCalling
from vap_console.scripting.talk_output import EventPrinter

BOOK = "Please book_appointment doctor: Mehta, slot=Friday 10am"
FRAME = {"type": "sandbox.tool_call", "name": "book_appointment", "kind": "during_call", "status": 200,
         "ms": 84.2, "outputs": {"appointment_slot": "Friday 10 am"}, "error": None}


def test_a_tool_call_frame_is_a_typed_event_and_a_misshapen_one_never_raises() -> None:
    event = parse_event(json.dumps(FRAME), received_at=1.0)
    assert isinstance(event, ToolCall)
    assert (event.name, event.kind, event.status, event.ms, event.outputs) == (
        "book_appointment", "during_call", 200, 84.2, {"appointment_slot": "Friday 10 am"})
    assert event.in_words() == "book_appointment → 200 in 84 ms"
    for bad in ({"status": "two hundred"}, {"outputs": ["a"]}, {"ms": {"x": 1}}, {"name": ["x"]}):
        odd = parse_event(json.dumps({**FRAME, **bad}))
        assert isinstance(odd, UnknownEvent) and odd.type == "sandbox.tool_call"


@pytest.mark.parametrize(("frame", "words"), [
    ({"status": None, "ms": None, "error": "book_appointment: the contract does not hold: timed out after 3000 ms"},
     "book_appointment ✘ the contract does not hold: timed out after 3000 ms"),
    ({"status": 500, "ms": 12.4, "error": "book_appointment: the contract does not hold: HTTP 500"},
     "book_appointment ✘ the contract does not hold: HTTP 500 (HTTP 500 in 12 ms)"),
    ({"status": 404, "ms": 3.0}, "book_appointment ✘ 404 in 3 ms"),
    ({"status": None, "ms": None}, "book_appointment ✘ no answer"),
])
def test_a_failed_tool_call_says_how_it_failed(frame: dict[str, Any], words: str) -> None:
    event = parse_event(json.dumps({**FRAME, **frame}))
    assert isinstance(event, ToolCall) and event.in_words() == words


def test_the_conversation_keeps_the_last_tool_calls_and_counts_them_all() -> None:
    talk = Conversation()
    for i in range(MAX_TOOL_CALLS + 50):
        assert talk.apply(parse_event(json.dumps({**FRAME, "name": f"t{i}"}))) == {TOOLS}
    assert talk.tool_calls_total == MAX_TOOL_CALLS + 50 and len(talk.tool_calls) == MAX_TOOL_CALLS
    assert talk.tool_calls[-1].name == f"t{MAX_TOOL_CALLS + 49}"


def test_the_plain_output_prints_a_tool_call_literally(capsys: Any) -> None:
    printer = EventPrinter(as_json=False)
    event = parse_event(json.dumps({**FRAME, "name": "\x1b]0;pwned\x07book", "status": None, "ms": None,
                                    "error": "\x1b[2Jgone"}))
    printer.event(event, Conversation())
    out = capsys.readouterr().out
    assert out.startswith("⚙ ") and "\x1b" not in out and "\x07" not in out and "gone" in out


@pytest.fixture
def hook() -> Iterator[Webhook]:
    with Webhook() as server:
        yield server


@pytest.fixture
def calling_sandbox() -> Iterator[RunningSandbox]:
    with start_in_thread(speed=SPEED, faults=LONG_CALLS, call_tools=ToolCalling()) as running:
        yield running


def _point_booking_at(sandbox: RunningSandbox, url: str, timeout_ms: int = 2000) -> None:
    tool = next(t for t in account_of(sandbox).tools.values() if t.name == "book_appointment")
    tool.config = {**tool.config, "url": url, "timeoutMs": timeout_ms,
                   "outputs": [{"name": "appointment_slot", "path": "data.visits.0.date"}]}


def test_vap_agents_talk_prints_each_tool_call_and_its_json_frame(calling_sandbox: RunningSandbox, hook: Webhook,
                                                                  tmp_path: Path, capsys: Any) -> None:
    _point_booking_at(calling_sandbox, hook.url + "/ok")
    talker = Talker(calling_sandbox, tmp_path, capsys)
    plain = talker("agents", "talk", talker.ref(), "--say", BOOK, "--yes")
    assert plain.code == 0, plain.err
    lines = plain.out.splitlines()
    # The before_call tool first (the seed's points at a host --call-tools does not call: said so).
    first = next(i for i, line in enumerate(lines) if line.startswith("⚙ "))
    assert lines[first].startswith("⚙ lookup_customer ✘ host crm.sharmadental.example is not called")
    tool = next(i for i, line in enumerate(lines) if line.startswith("⚙ book_appointment"))
    assert lines[tool].startswith("⚙ book_appointment → 200 in ") and lines[tool].endswith(" ms")
    # As it happened: after the turn that named it, before the answer that used what it returned.
    assert lines[tool - 1].startswith("you: Please book") and lines[tool + 1].startswith("agent: Done: I used")

    as_json = talker("agents", "talk", talker.ref(), "--say", BOOK, "--yes", "--json")
    assert as_json.code == 0, as_json.err
    frames = as_json.lines()
    before, call = [f for f in frames if f["type"] == "sandbox.tool_call"]
    assert before["name"] == "lookup_customer" and before["kind"] == "before_call" and before["status"] is None
    assert call["name"] == "book_appointment" and call["status"] == 200 and call["error"] is None
    assert call["outputs"] == {"appointment_slot": "2026-01-05"} and call["ms"] >= 0
    assert frames[-1]["type"] == "client.closed" and frames[-1]["tool_calls"] == 2


def test_a_webhook_past_its_timeout_is_told_with_the_failure(calling_sandbox: RunningSandbox, hook: Webhook,
                                                             tmp_path: Path, capsys: Any) -> None:
    _point_booking_at(calling_sandbox, hook.url + "/slow", timeout_ms=300)
    talker = Talker(calling_sandbox, tmp_path, capsys)
    plain = talker("agents", "talk", talker.ref(), "--say", BOOK, "--yes")
    assert plain.code == 0, plain.err
    [line] = [line for line in plain.out.splitlines() if line.startswith("⚙ book_appointment")]
    assert line.startswith("⚙ book_appointment ✘ ") and "300 ms" in line


async def test_talk_shows_the_tool_call_in_the_transcript_as_it_happens(hook: Webhook) -> None:
    with talk_console(call_tools=ToolCalling()) as console:
        _point_booking_at(console.sandbox, hook.url + "/ok")
        async with console.app.run_test(size=(120, 36)) as pilot:
            screen = await console.talking(pilot)
            await console.greeted(pilot)
            await console.say(pilot, BOOK)
            await until(pilot, lambda: any(line.startswith("⚙ book") for line in screen.transcript.lines))
            lines = screen.transcript.lines
            # The before_call tool once the call has started (refused: not a loopback host).
            started = next(i for i, line in enumerate(lines) if line.startswith("The agent answered"))
            assert lines[started + 1].startswith("⚙ lookup_customer ✘ host crm.sharmadental.example")
            tool = next(i for i, line in enumerate(lines) if line.startswith("⚙ book"))
            assert lines[tool].startswith("⚙ book_appointment → 200 in ") and lines[tool].endswith(" ms")
            assert lines[tool - 1].startswith("You") and "book_appointment" in lines[tool - 1]
