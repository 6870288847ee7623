"""Call records: every web call, socket session and outbound call the sandbox places, as
``GET /v1/calls/{id}`` shows it (reference voice.md §4). Kept per account in ``Account.calls``.

A record either is written as it goes (a socket session: its owner sets ``status``, ``started_at``,
``ended_at`` and appends turns itself) or carries its future as dated ``steps`` laid out when it
is placed (a web call nobody joins, an outbound call). Nothing moves a stepped record: ``view(now)``
folds the steps that have happened by ``now``, as rentals fold their milestones, so a virtual
clock's advance plays a call out and every answer is reproducible.

Billing is the sandbox's own (no price is published): ``PRICE_CREDITS_PER_MINUTE`` credits per
started minute from ``started_at`` to ``ended_at``, one credit being ₹1 in the account's ledger.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import Any

from vap_console.sandbox.clock import iso
from vap_console.sandbox.records import Account, LedgerEntry

# Terminal statuses (voice.md §4: a client polls until one of these).
CALLING = "calling"
IN_PROGRESS = "in_progress"
COMPLETED = "completed"
FAILED = "failed"
EXPIRED = "expired"
TERMINAL = frozenset({COMPLETED, FAILED, EXPIRED})

PRICE_CREDITS_PER_MINUTE = 3
NANOS_PER_CREDIT = 10**9


@dataclass(frozen=True)
class Step:
    """Something that happens to a call at ``at``: a new status (with its end reason when it
    ends the call), a settled transcript turn, or both."""

    at: datetime
    status: str | None = None
    end_reason: str | None = None
    turn: dict[str, str] | None = None


@dataclass
class CallRecord:
    id: str
    agent_id: str
    kind: str  # "web", "socket" or "outbound"
    status: str
    created_at: datetime
    started_at: datetime | None = None
    ended_at: datetime | None = None
    end_reason: str | None = None
    credits_charged: float = 0.0
    to_number: str | None = None
    from_trunk_id: str | None = None
    # [{"role": "user"|"assistant", "content": "..."}], in order
    transcript: list[dict[str, str]] = field(default_factory=list)
    tools_called: list[str] = field(default_factory=list)
    # --call-tools: each call of a tool (the request with its secret masked, status, ms, outputs, error).
    tool_calls: list[dict[str, Any]] = field(default_factory=list)
    # The call's audio, both sides mixed in time order (PCM s16le 24 kHz mono), for the recording.
    audio: bytearray = field(default_factory=bytearray, repr=False)
    summary: str | None = None
    extra: dict[str, Any] = field(default_factory=dict)
    # The call's future, in time order (see the module's docstring); empty for a live record.
    steps: list[Step] = field(default_factory=list)

    def view(self, now: datetime) -> CallRecord:
        """The record as it stands at ``now``: a copy with the steps due by then applied."""
        if not self.steps:
            return self
        seen = replace(self, transcript=list(self.transcript), steps=[])
        for step in self.steps:
            if step.at > now:
                break
            if step.status is not None:
                seen.status = step.status
                if step.status == IN_PROGRESS:
                    seen.started_at = step.at
                elif step.status in TERMINAL:
                    seen.ended_at = step.at
                    seen.end_reason = step.end_reason
                    seen.credits_charged = credits_for(seen.started_at, step.at)
            if step.turn is not None:
                seen.transcript.append(step.turn)
        if seen.status not in TERMINAL:
            seen.summary = None
        return seen

    def holds_slot(self, now: datetime) -> bool:
        """Whether the call holds one of the account's slots at ``now``: an outbound call from
        the moment it is placed (ringing included) until it ends, a socket session from
        ``session.created`` (``in_progress``) until it ends. A socket record still ``calling`` is
        one whose start is being checked, against the slots among other things."""
        seen = self.view(now)
        return seen.status == IN_PROGRESS or (seen.kind == "outbound" and seen.status == CALLING)

    def ends_at(self) -> datetime | None:
        """When a stepped record ends (its last terminal step), if it is laid out."""
        return next((s.at for s in reversed(self.steps) if s.status in TERMINAL), self.ended_at)

    def duration_seconds(self, now: datetime) -> int:
        if self.started_at is None:
            return 0
        end = self.ended_at or now
        return max(0, int((end - self.started_at).total_seconds()))

    def to_wire(self, now: datetime, recording_url: str | None) -> dict[str, Any]:
        """``GET /v1/calls/{id}``'s body at ``now``; ``recording_url`` already signed (or None)."""
        seen = self.view(now)
        return {
            "id": seen.id,
            "agentId": seen.agent_id,
            "kind": seen.kind,
            "status": seen.status,
            "toNumber": seen.to_number,
            "fromTrunkId": seen.from_trunk_id,
            "createdAt": iso(seen.created_at),
            "startedAt": iso(seen.started_at),
            "endedAt": iso(seen.ended_at),
            "durationSeconds": seen.duration_seconds(now),
            "endReason": seen.end_reason,
            "creditsCharged": seen.credits_charged,
            "transcript": [{"role": t["role"], "content": t["content"]} for t in seen.transcript],
            "toolsCalled": list(seen.tools_called),
            "toolCalls": list(seen.tool_calls),
            "recordingUrl": recording_url if seen.status in TERMINAL else None,
            "summary": seen.summary or (summarize(seen.transcript) if seen.status in TERMINAL else None),
        }


def started_minutes(started: datetime | None, ended: datetime) -> int:
    if started is None:
        return 0
    seconds = (ended - started).total_seconds()
    return max(1, math.ceil(seconds / 60)) if seconds >= 0 else 0


def credits_for(started: datetime | None, ended: datetime) -> float:
    return float(started_minutes(started, ended) * PRICE_CREDITS_PER_MINUTE)


def bill(account: Account, record: CallRecord) -> None:
    """Writes the call's charge into the ledger, dated when it ends: at once for a record that
    has ended, in advance for one whose end is laid out in its steps. For a live record, call it
    once ``started_at`` and ``ended_at`` are set; it also sets ``credits_charged``."""
    end = record.ends_at()
    if end is None:
        return
    started = record.view(end).started_at
    charge = credits_for(started, end)
    if not record.steps:
        record.credits_charged = charge
    if charge:
        minutes = started_minutes(started, end)
        account.ledger.append(LedgerEntry(
            end, -int(charge * NANOS_PER_CREDIT),
            f"call {record.id}: {minutes} started minute{'s' if minutes != 1 else ''}"))


def summarize(transcript: list[dict[str, str]]) -> str | None:
    """The sandbox's stand-in for the dashboard's on-demand summary: who said how much, and how
    the agent opened. Deterministic, so a summary reads the same on every run."""
    if not transcript:
        return None
    said = {role: sum(1 for t in transcript if t["role"] == role) for role in ("assistant", "user")}
    opening = next((t["content"] for t in transcript if t["role"] == "assistant"), "")
    text = (f"{len(transcript)} turns ({said['assistant']} by the agent, {said['user']} by the caller).")
    if opening:
        text += f" The agent opened with: “{opening[:160]}”."
    return text
