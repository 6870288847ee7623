"""A kept call turned into a conversation test (`vap calls to-test`, and `t` on Calls): the file
`vap agents test` reads (scripting/agent_tests.py), so a call that went well becomes a check that
the next version of the agent still does the same (docs/testing.md "A call becomes a test").

From the call's transcript: the agent's turns before the caller first spoke are the greeting;
each caller turn (two or more in a row joined into one) is a ``say``, and what the agent said
before the caller spoke again is its expectation, as ``resembles`` (scripting/resembles.py): a
share of the recorded answer's words, so a reworded answer still passes and no model is needed.
A caller turn the agent never answered (the call ended first) is left out: the test would wait
for an answer the call never had. The tools the call used become ``tools_called``; an agent that
ended the call, ``agent_ends_call``. The answer times the ledger kept for the call (the console
held it: Talk, ``vap agents talk|test``) become a latency budget: the recorded p50 and p95, each
times ``1 + margin`` plus ``LATENCY_SLACK_MS``; a call without them gets no budget, and says so.

Textual-free: the Calls screen calls it from a worker.
"""

from __future__ import annotations

import math
import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from vap_console.api.figures import percentile
from vap_console.api.limits import TYPED_TURN
from vap_console.literal import json_dumps
from vap_console.local_files import FILE_MODE, write_private
from vap_console.scripting.resembles import DEFAULT_SHARE, words

if TYPE_CHECKING:
    from vap_console.api.client import VapClient
    from vap_console.api.models.calls import CallRecord
    from vap_console.api.realtime import CallTools
    from vap_console.ledger import CallEntry, Ledger

# The latency budget: the recorded figure times (1 + LATENCY_MARGIN), plus LATENCY_SLACK_MS so a
# call answered in a few milliseconds (a sped-up sandbox) does not fail on a busy machine's jitter.
LATENCY_MARGIN = 0.5
LATENCY_SLACK_MS = 100
# The caller's and the agent's roles as the call record and the ledger keep them.
CALLER, AGENT = "user", "assistant"


class CallToTestError(Exception):
    """The call cannot become a test (no transcript, nothing the caller said): said in words."""


@dataclass
class Recorded:
    """What is known of the call: from its record (GET /v1/calls/{id}) or the ledger."""

    call_id: str
    agent: str
    transcript: list[tuple[str, str]]  # (role, content), in the order said
    tools: list[str] | None = None  # None: the record does not say
    answer_ms: list[float] | None = None  # None: the ledger kept none for this call
    end_reason: str | None = None
    when: str | None = None


@dataclass
class Written:
    """The test file's data and what the person should know about it."""

    data: dict[str, Any]
    notes: list[str] = field(default_factory=list)

    @property
    def text(self) -> str:
        # Terminal control in a transcript is escaped (\\uXXXX) and reads back as the same text.
        return json_dumps(self.data) + "\n"


def _turns(transcript: Sequence[tuple[str, str]]) -> tuple[list[str], list[tuple[str, list[str]]], int]:
    """(the greeting's parts, [(what the caller said, the agent's answer's parts)], caller turns
    left out for want of an answer)."""
    greeting: list[str] = []
    pairs: list[tuple[str, list[str]]] = []
    for role, content in transcript:
        text = " ".join(content.split())
        if not text:
            continue
        if role == CALLER:
            if pairs and not pairs[-1][1]:  # the caller spoke again before any answer: one turn
                text = f"{pairs.pop()[0]} {text}"
            pairs.append((text, []))
        elif role == AGENT:
            (pairs[-1][1] if pairs else greeting).append(text)
    unanswered = 1 if pairs and not pairs[-1][1] else 0
    return greeting, pairs[:-1] if unanswered else pairs, unanswered


def _budget(times: Sequence[float], margin: float) -> dict[str, int]:
    def within(ms: float | None) -> int:
        return math.ceil((ms or 0) * (1 + margin)) + LATENCY_SLACK_MS

    return {"p50_ms": within(percentile(times, 50)), "p95_ms": within(percentile(times, 95))}


def file_of(call: Recorded, *, min_share: float = DEFAULT_SHARE, margin: float = LATENCY_MARGIN) -> Written:
    """The test file of ``call``; CallToTestError when there is nothing to test."""
    if not call.transcript:
        raise CallToTestError(f"call {call.call_id} has no transcript (nothing was said, or the record "
                              "is not read yet): there is nothing to turn into a test")
    greeting, pairs, unanswered = _turns(call.transcript)
    if not pairs:
        raise CallToTestError(f"call {call.call_id}: the caller said nothing the agent answered; a test "
                              "needs at least one turn and its answer")
    notes: list[str] = []
    conversation: dict[str, Any] = {"name": f"call {call.call_id}" + (f" of {call.when}" if call.when else "")}
    if greeting and words(" ".join(greeting)):
        conversation["greeting"] = {"resembles": {"text": " ".join(greeting), "min_share": min_share}}
    turns = []
    for say, answer in pairs:
        if not TYPED_TURN.allows(len(say)):
            raise CallToTestError(f"call {call.call_id}: a caller turn is {len(say)} characters; a test's "
                                  f"say is {TYPED_TURN.rule()}")
        said = " ".join(answer)
        turns.append({"say": say, "expect": {"resembles": {"text": said, "min_share": min_share}}}
                     if words(said) else {"say": say})
    conversation["turns"] = turns
    if unanswered:
        notes.append("the caller's last turn had no answer (the call ended first): it is left out")
    if call.tools is None:
        notes.append("the call record does not say which tools were called: tools_called is left out")
    elif call.tools:
        conversation["tools_called"] = list(dict.fromkeys(call.tools))
    if call.end_reason == "ended":  # the agent hung up (session.closed "ended")
        conversation["agent_ends_call"] = True
    if call.answer_ms:
        conversation["latency"] = _budget(call.answer_ms, margin)
        notes.append(f"latency budget: the recorded p50 and p95 of {len(call.answer_ms)} answer"
                     f"{'s' if len(call.answer_ms) != 1 else ''} × {1 + margin:g} + {LATENCY_SLACK_MS} ms")
    else:
        notes.append("the calls ledger keeps no answer times for this call (the console did not hold it, or "
                     "kept none): no latency budget")
    return Written({"agent": call.agent, "conversations": [conversation]}, notes)


# --- where a call is read from ---


def _kept_times(entry: CallEntry | None) -> list[float] | None:
    """The answer times the ledger kept for the call, when this ledger keeps them (issue 34)."""
    # CallEntry.answer_times (ledger schema 3); a ledger without them (an older console) has none.
    times = getattr(entry, "answer_times", None) if entry is not None else None
    return [float(ms) for ms in times] if times else None


def recorded_of(call_id: str, record: CallRecord | None, entry: CallEntry | None,
                called: CallTools | None) -> Recorded:
    """The call as its record says (fresher: read now), else as the ledger kept it."""
    answer_ms = _kept_times(entry)
    tools = called.tools_called if called is not None else None
    if record is not None:
        # The agent as the person named it when the console started the call (ua_ handle), else the record's id.
        return Recorded(record.id, (entry.agent if entry else "") or record.agent_id or "",
                        [(t.role, t.content) for t in record.transcript or []], tools, answer_ms,
                        record.end_reason, _day(record.created_at.isoformat() if record.created_at else None))
    if entry is None:
        raise CallToTestError(f"no call {call_id} in this profile's calls ledger, and its record could not be read")
    return Recorded(call_id, entry.agent, [(t.role, t.content) for t in entry.transcript], None, answer_ms,
                    entry.end_reason, _day(entry.created_at or entry.noted_at))


def _day(stamp: str | None) -> str | None:
    return stamp[:10] if stamp else None


async def read_call(client: VapClient | None, ledger: Ledger | None, call_id: str) -> tuple[Recorded, str | None]:
    """The call read from the server (its record and the tools it used), else from the ledger;
    with why the server's record was not used (None: it was)."""
    from vap_console.api import errors

    entry = ledger.get(call_id) if ledger is not None else None
    record, tools, why = None, None, None
    if client is not None:
        try:
            record = await client.get_call(call_id)
            tools = await client.tools_called(call_id)
        except errors.NotFound as error:
            if entry is None:
                raise CallToTestError(f"no call {call_id} on this account or in this profile's calls ledger "
                                      f"({error})") from None
            why = f"the server does not have it now ({error}): from the calls ledger"
        except errors.ApiError as error:
            if entry is None:
                raise
            why = f"its record could not be read ({error}): from the calls ledger"
    elif entry is None:
        raise CallToTestError(f"no call {call_id} in this profile's calls ledger")
    return recorded_of(call_id, record, entry, tools), why


def write_new(path: Path, text: str, *, force: bool) -> None:
    """The file written, its owner's alone (a transcript is in it); an existing one is replaced
    only with ``force`` (FileExistsError otherwise, and nothing is written)."""
    if force:
        write_private(path, text)
        return
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, FILE_MODE)
    with os.fdopen(fd, "wb") as out:
        out.write(text.encode("utf-8"))
