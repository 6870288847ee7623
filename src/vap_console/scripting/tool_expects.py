"""What a conversation test says about tools (docs/talk.md, docs/testing.md "Tools"): a
conversation's ``tools_called`` and a turn's ``expect.tool``, each a tool's name or
``{"name": …, "args": {…}}``, read from the file and judged against the call record.

The record is what a client can see of a call (GET /v1/calls/{id}). ``toolsCalled`` (the names)
and ``toolCalls`` (each webhook call with its arguments and the caller's turn that led to it) are
both the sandbox's; the real service publishes neither. So an expectation that needs what the
record does not hold (arguments, or which turn) fails saying it cannot be checked, never passes
unseen. Arguments are compared as a subset: each one named must have been given with that value
(compared as text: ``3`` is "3", ``true`` is "true"); others the agent gave are not looked at.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from vap_console.api.limits import LLM_PARAM_NAME_PATTERN, TOOL_NAME_PATTERN
from vap_console.api.realtime import CallTools, ToolCallSeen

TOOL_KEYS = {"name", "args"}
SHAPE = 'a tool\'s name or {"name": "book_appointment", "args": {"date": "Friday"}}'
NOT_RECORDED = ("the call record has no toolCalls, so which turn called a tool and with which arguments "
                "cannot be checked (toolCalls is the sandbox's, with --call-tools; the real service lets a "
                "client see at most the tools' names, toolsCalled)")


class ToolExpectError(Exception):
    """A tool expectation that cannot be read: where (``at``) and the rule."""

    def __init__(self, at: str, rule: str) -> None:
        super().__init__(f"{at}: {rule}")
        self.at, self.rule = at, rule


@dataclass(frozen=True)
class ToolExpect:
    name: str
    args: tuple[tuple[str, str], ...] = ()  # (name, value as text), in the file's order

    def words(self) -> str:
        said = f"tool {self.name!r}"
        if self.args:
            said += " with " + ", ".join(f"{k}={v!r}" for k, v in self.args)
        return said

    def given(self, call: ToolCallSeen) -> bool:
        args = call.args or {}
        return call.name == self.name and all(k in args and _text(args[k]) == v for k, v in self.args)


def _text(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value)


def read_one(at: str, value: Any) -> ToolExpect:
    if isinstance(value, str):
        value = {"name": value}
    if not isinstance(value, dict):
        raise ToolExpectError(at, f"must be {SHAPE}")
    unknown = sorted(set(value) - TOOL_KEYS)
    if unknown:
        raise ToolExpectError(f"{at}.{unknown[0]}", f"unknown field (known: {', '.join(sorted(TOOL_KEYS))})")
    name = value.get("name")
    if not isinstance(name, str) or not re.fullmatch(TOOL_NAME_PATTERN, name):
        raise ToolExpectError(f"{at}.name", "required: the tool's name, a letter then letters, digits or _")
    args = value.get("args", {})
    if not isinstance(args, dict) or ("args" in value and not args):
        raise ToolExpectError(f"{at}.args", 'must be an object of at least one argument: {"date": "Friday"}')
    pairs = []
    for key, given in args.items():
        if not re.fullmatch(LLM_PARAM_NAME_PATTERN, key):
            raise ToolExpectError(f"{at}.args.{key}", "an argument's name is a letter then letters, digits or _")
        if given is None or not isinstance(given, (str, int, float, bool)):
            raise ToolExpectError(f"{at}.args.{key}", "must be a string, a number or true/false")
        pairs.append((key, _text(given)))
    return ToolExpect(name, tuple(pairs))


def read_tools(at: str, value: Any) -> list[ToolExpect]:
    """One expectation or a list of them."""
    items = value if isinstance(value, list) else [value]
    return [read_one(f"{at}[{i}]" if isinstance(value, list) else at, item) for i, item in enumerate(items)]


Outcome = tuple[str, bool, str]  # what was expected, whether it held, what came instead


def _names(seen: CallTools) -> list[str]:
    names = list(seen.tools_called or [])
    return names + [c.name for c in seen.tool_calls or [] if c.name not in names]


def _calls_in_words(calls: list[ToolCallSeen]) -> str:
    if not calls:
        return "none"
    return "; ".join(c.name + (" with " + ", ".join(f"{k}={_text(v)!r}" for k, v in (c.args or {}).items())
                               if c.args else "") for c in calls)


def judge_call(expect: ToolExpect, seen: CallTools | None, why_none: str) -> Outcome:
    """A conversation's ``tools_called`` entry: the call used the tool (with those arguments)."""
    what = f"{expect.words()} was called"
    if seen is None:
        return what, False, why_none
    if not expect.args:
        names = _names(seen)
        if seen.tools_called is None and seen.tool_calls is None:
            return what, False, "the call record does not say which tools were called (GET /v1/calls/{id})"
        return what, expect.name in names, f"called: {', '.join(names) or 'none'}"
    if seen.tool_calls is None:
        return what, False, f"cannot check: {NOT_RECORDED}"
    return what, *_matched(expect, seen, seen.tool_calls, "called")


def judge_turn(expect: ToolExpect, seen: CallTools | None, why_none: str, turn: int) -> Outcome:
    """A turn's ``expect.tool``: answering that turn, the agent called the tool (with those arguments)."""
    what = f"calls {expect.words()}"
    if seen is None:
        return what, False, why_none
    if seen.tool_calls is None:
        return what, False, f"cannot check: {NOT_RECORDED}"
    return what, *_matched(expect, seen, [c for c in seen.tool_calls if c.turn == turn],
                                 f"turn {turn} called")


def _matched(expect: ToolExpect, seen: CallTools, calls: list[ToolCallSeen], said: str) -> tuple[bool, str]:
    if any(expect.given(c) for c in calls):
        return True, ""
    recorded = any(c.name == expect.name for c in seen.tool_calls or [])
    if not recorded and expect.name in (seen.tools_called or []):
        # Named in toolsCalled, with no webhook call on the record: its arguments were never seen.
        return False, (f"cannot check: {expect.name} is in toolsCalled but no webhook call of it is recorded "
                       "(a built-in tool such as end_call, or a sandbox without --call-tools)")
    return False, f"{said}: {_calls_in_words(calls)}"
