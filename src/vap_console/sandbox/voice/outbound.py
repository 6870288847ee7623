"""Outbound calls and reading a call: ``POST /v1/calls`` and ``GET /v1/calls/{id}`` (voice.md §4,
all [T]: one third party's client; the real reference pages were never captured).

``POST /v1/calls {agentId, toNumber, fromTrunkId}`` answers 202 ``{callId, status: "calling",
toNumber}``; the call then plays out on the sandbox clock, chosen by the callee number's last four
digits like the rental scenarios (``OUTCOMES``), laid out as the record's steps when it is placed.
An answered call is a short scripted conversation that opens with the agent's greeting; the callee
hangs up after it. ``fromTrunkId`` is one of the account's SIP trunks, or the id of one of its
rented numbers (a rental), which must be active either way.
"""

from __future__ import annotations

import re
from datetime import datetime, timedelta
from enum import Enum
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from vap_console.sandbox.calls import active_calls, find_agent_or_404, require_call_account, require_voice_agents
from vap_console.sandbox.problems import FieldProblems, Problem, json_object, not_found
from vap_console.sandbox.records import Account, AgentRecord, stable_id
from vap_console.sandbox.voice.call_records import (
    CALLING,
    COMPLETED,
    EXPIRED,
    FAILED,
    IN_PROGRESS,
    CallRecord,
    Step,
    bill,
)
from vap_console.sandbox.voice.recordings import recording_url
from vap_console.sandbox.voice.trunks import ACTIVE, E164, trunks_of
from vap_console.sandbox.wire import account_of, read_json, sandbox_of

# Seconds on the sandbox clock (stretched by --speed like everything else).
RING_SECONDS = 4.0
NO_ANSWER_SECONDS = 30.0
BUSY_SECONDS = 3.0
FAIL_SECONDS = 2.0
# A scripted turn lasts this long per word, and the next one starts after a pause.
SECONDS_PER_WORD = 0.4
PAUSE_SECONDS = 0.8
REF_MAX = 200


class Outcome(Enum):
    """An outbound call's fate by the callee number's last four digits (none clash with the
    rental scenarios' 0002 to 0005)."""

    ANSWERED = "answered"
    NO_ANSWER = "0006"
    BUSY = "0007"
    FAILS = "0008"

    @classmethod
    def of(cls, number: str) -> Outcome:
        return next((o for o in cls if o.value == number[-4:]), cls.ANSWERED)


OUTCOMES = {
    Outcome.ANSWERED: f"answered after {RING_SECONDS:g} s: a scripted conversation from the agent's greeting, "
                      "then completed (endReason participant_disconnected), charged per started minute",
    Outcome.NO_ANSWER: f"rings {NO_ANSWER_SECONDS:g} s unanswered: expired, endReason no_answer, nothing charged",
    Outcome.BUSY: f"busy: failed after {BUSY_SECONDS:g} s, endReason busy, nothing charged",
    Outcome.FAILS: f"the call cannot be placed: failed after {FAIL_SECONDS:g} s, endReason carrier_error, "
                   "nothing charged",
}


def _filled(text: str, account: Account, agent: AgentRecord, tool_values: dict[str, str] | None = None) -> str:
    """The greeting as a callee hears it: {variables} with what the call's before_call tools
    gave (``--call-tools``), else the account's defaults, as a call with no tool output fills them."""
    values = {name: v.default_value for name, v in account.variables.items()} | (tool_values or {})
    values.setdefault("agent_name", agent.name.split(" – ")[0])
    return re.sub(r"\{([A-Za-z_][A-Za-z0-9_]*)\}", lambda m: values.get(m[1], m[0]), text)


def script(account: Account, agent: AgentRecord, tool_values: dict[str, str] | None = None) -> list[dict[str, str]]:
    greeting = _filled(agent.greeting.strip(), account, agent, tool_values) or f"Hello, this is {agent.name}."
    return [
        {"role": "assistant", "content": greeting},
        {"role": "user", "content": "Hi, yes, I can talk now."},
        {"role": "assistant", "content": "Thank you. This is a sandbox test call; nothing else is needed today."},
        {"role": "user", "content": "Okay, thank you. Bye."},
        {"role": "assistant", "content": "Goodbye!"},
    ]


def plan(outcome: Outcome, account: Account, agent: AgentRecord, start: datetime,
         tool_values: dict[str, str] | None = None) -> list[Step]:
    def after(seconds: float) -> datetime:
        return start + timedelta(seconds=seconds)

    if outcome is Outcome.NO_ANSWER:
        return [Step(after(NO_ANSWER_SECONDS), EXPIRED, "no_answer")]
    if outcome is Outcome.BUSY:
        return [Step(after(BUSY_SECONDS), FAILED, "busy")]
    if outcome is Outcome.FAILS:
        return [Step(after(FAIL_SECONDS), FAILED, "carrier_error")]
    steps = [Step(after(RING_SECONDS), IN_PROGRESS)]
    t = RING_SECONDS
    for turn in script(account, agent, tool_values):
        t += len(turn["content"].split()) * SECONDS_PER_WORD
        steps.append(Step(after(t), turn=turn))  # a turn is settled when it has been said
        t += PAUSE_SECONDS
    steps.append(Step(after(t), COMPLETED, "participant_disconnected"))
    return steps


def _caller_checked(account: Account, ref: str, now: datetime, origin: datetime) -> None:
    """``fromTrunkId`` must be an active SIP trunk or an active rented number of the account."""
    trunk = trunks_of(account, origin).get(ref)
    if trunk is not None:
        if trunk.status != ACTIVE:
            raise Problem(409, "trunk_not_active", f"SIP trunk {ref} is {trunk.status}: calls go out on an "
                                                   "active trunk only.")
        return
    rental = account.rentals.get(ref)
    if rental is not None:
        status = rental.render(now, account)["status"]
        if status != "active":
            raise Problem(409, "trunk_not_active", f"Rented number {ref} is {status}: calls go out on an "
                                                   "active number only.")
        return
    raise Problem(404, "trunk_not_found", f"No SIP trunk or rented number {ref!s:.80} on this account.")


def _body(raw: Any) -> tuple[str, str, str]:
    raw = json_object(raw, "Send a JSON object with agentId, toNumber and fromTrunkId.")
    problems = FieldProblems()
    values: dict[str, str] = {}
    ref_field = "agentId" if "agentId" in raw or "agent_id" not in raw else "agent_id"
    for name, rule in ((ref_field, "the agent's uuid or ua_<handle>"), ("toNumber", "an E.164 number"),
                       ("fromTrunkId", "a SIP trunk's id or a rented number's id")):
        value = raw.get(name)
        if value is None:
            problems.add(name, f"is required: {rule}")
        elif not isinstance(value, str) or not value.strip() or len(value) > REF_MAX:
            problems.add(name, f"must be {rule}, 1 to {REF_MAX} characters")
        else:
            values[name] = value
    if "toNumber" in values and not E164.fullmatch(values["toNumber"]):
        problems.add("toNumber", "must be an E.164 number: + and 8 to 15 digits, the first not 0")
    problems.raise_if_any()
    return values[ref_field], values["toNumber"], values["fromTrunkId"]


async def place_call(request: Request) -> Response:
    account = account_of(request)
    require_call_account(account)
    key = account.key
    ref, to_number, trunk_id = _body(await read_json(request))
    agent = find_agent_or_404(account, ref)
    if not agent.deployed:
        raise Problem(409, "agent_not_deployed", f"{agent.name} is a draft: only a deployed agent takes calls.")
    state = sandbox_of(request)
    now = state.now()
    _caller_checked(account, trunk_id, now, state.origin)
    active = active_calls(account, now)
    if active >= key.call_slots:
        raise Problem(429, "concurrency_limit_exceeded", f"All {key.call_slots} concurrent-call slots are in use.",
                      active_requests=active, limit=key.call_slots)
    if key.start_fails_first and agent.id not in account.failed_starts:
        account.failed_starts.add(agent.id)
        raise Problem(502, "agent_start_failed", f"{agent.name} could not be started; safe to retry.")
    outcome = Outcome.of(to_number)
    record = CallRecord(
        id=account.next_call_id(), agent_id=agent.id, kind="outbound", status=CALLING, created_at=now,
        to_number=to_number, from_trunk_id=trunk_id, steps=plan(outcome, account, agent, now),
    )
    account.calls[record.id] = record
    if not _tools_first(request, account, agent, record, outcome):
        bill(account, record)
    return JSONResponse({"callId": record.id, "status": CALLING, "toNumber": to_number}, status_code=202)


def _tools_first(request: Request, account: Account, agent: AgentRecord, record: CallRecord,
                 outcome: Outcome) -> bool:
    """``--call-tools``: the account's before_call tools run as the call is placed (its callee is
    their ``{phone_number}``); the call rings meanwhile, with nothing laid out, and is answered
    RING_SECONDS after it was placed or when they have all answered, whichever is later, its
    greeting filled with their outputs. False when there is nothing to run."""
    from vap_console.sandbox.voice.tool_calls import start_before_call

    policy = getattr(request.app.state, "call_tools", None)
    if policy is None:
        return False
    state, placed, steps = sandbox_of(request), record.created_at, record.steps

    def answered(filled: dict[str, str], entries: list[dict[str, Any]]) -> None:
        record.tool_calls.extend(entries)
        start = max(placed, state.now() - timedelta(seconds=RING_SECONDS))
        record.steps = plan(outcome, account, agent, start, filled)
        bill(account, record)

    record.steps = []  # ringing until the tools have answered
    if start_before_call(policy, account, agent, record.id, record.to_number or "", answered):
        return True
    record.steps = steps
    return False


# One answered outbound call every account made the day before the sandbox's origin (id from fixed
# names, like the seeded trunks), so that `vap calls add` and `vap calls show` have a call to read
# on a fresh sandbox, as their --help examples show. Its record says what it cost; the seeded
# wallet is not charged for it (it stays what the rentals' docs say it is).
SEEDED_CALL_ID = stable_id("call", "seeded", "front-desk")
SEEDED_CALL_TO = "+919812340001"


def seed_call(account: Account, origin: datetime) -> None:
    if SEEDED_CALL_ID in account.calls:
        return
    trunk = next((t for t in trunks_of(account, origin).values() if t.status == ACTIVE), None)
    agents = sorted((a for a in account.agents.values() if a.deployed), key=lambda a: a.created_at)
    if trunk is None or not agents:
        return
    start = origin - timedelta(days=1)
    account.calls[SEEDED_CALL_ID] = CallRecord(
        id=SEEDED_CALL_ID, agent_id=agents[0].id, kind="outbound", status=CALLING, created_at=start,
        to_number=SEEDED_CALL_TO, from_trunk_id=trunk.id,
        steps=plan(Outcome.ANSWERED, account, agents[0], start),
    )


async def get_call(request: Request) -> Response:
    account = account_of(request)
    require_voice_agents(account)
    seed_call(account, sandbox_of(request).origin)
    record = account.calls.get(request.path_params["call_id"])
    if not isinstance(record, CallRecord):
        raise not_found("call")
    now = sandbox_of(request).now()
    return JSONResponse(record.to_wire(now, recording_url(str(request.base_url), account, record, now)))
