"""`vap calls stats`: per agent, from the calls ledger, the calls, minutes and credits, and the answer
times p50/p95/max of the calls the console held itself (issue 34 point 1).

The ledger keeps each call under the reference it was started with (a ``ua_<handle>``, or the id a
call record names), never the agent's name; when the server lists its agents, the references of
one agent are counted together and shown with its name, and ``--agent`` takes a name too.
Percentiles are nearest-rank over every answer time kept (api/figures.py).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta
from typing import Any

from vap_console.api.figures import Times
from vap_console.ledger.figures import AgentFigures
from vap_console.literal import clean

SINCE_RULE = ("a span back from now, a whole number then d, h or m (7d, 24h, 30m), "
              "or an ISO date or time (2026-11-01, 2026-11-01T09:00Z)")
_SPAN = re.compile(r"(\d{1,9})([dhm])")
_UNITS = {"d": "days", "h": "hours", "m": "minutes"}


def parse_since(text: str, now: datetime) -> datetime:
    """The moment ``--since`` names (UTC); ValueError saying the rule when it names none."""
    given = text.strip()
    span = _SPAN.fullmatch(given.lower())
    try:
        if span:
            return now - timedelta(**{_UNITS[span.group(2)]: int(span.group(1))})
        if len(given) == 10:
            return datetime.combine(date.fromisoformat(given), datetime.min.time(), UTC)
        moment = datetime.fromisoformat(given.replace("Z", "+00:00").replace("z", "+00:00"))
    except (ValueError, OverflowError):
        raise ValueError(f"--since {clean(given[:40], multiline=False)!r}: give {SINCE_RULE}") from None
    return moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment.astimezone(UTC)


@dataclass
class Names:
    """What the server says of its agents: each reference (id, ua_<handle>) → the agent's one
    reference to show, and its name. Empty when the server could not be asked."""

    ref_of: dict[str, str] = field(default_factory=dict)
    name_of: dict[str, str] = field(default_factory=dict)

    @classmethod
    def of(cls, agents: Sequence[Any]) -> Names:
        names = cls()
        for agent in agents:
            for alias in (agent.id, agent.handle):
                if alias:
                    names.ref_of[alias] = agent.ref
            if agent.name:
                names.name_of[agent.ref] = agent.name
        return names

    def kept_under(self, given: str, kept: Sequence[str]) -> list[str]:
        """The references in the ledger (``kept``) of the agent ``given`` names: its id, its
        ua_<handle> or its name. ValueError when a name fits more than one agent."""
        by_name = sorted({ref for ref, name in self.name_of.items() if name == given})
        if given not in self.ref_of and len(by_name) > 1:
            raise ValueError(f"--agent {clean(given[:60], multiline=False)!r}: {len(by_name)} agents have that "
                             f"name ({', '.join(by_name)}); give one's id or ua_<handle>")
        ref = self.ref_of.get(given) or (by_name[0] if by_name else None)
        if ref is None:
            return [given]  # not an agent the server lists (deleted, or not asked): as kept
        return [k for k in kept if self.ref_of.get(k) == ref] or [ref]


@dataclass(frozen=True)
class AgentStats:
    ref: str
    name: str | None
    calls: int
    seconds: float
    credits: float
    times: Times

    def as_dict(self) -> dict[str, Any]:
        return {"agent": self.ref, "name": self.name, "calls": self.calls, "minutes": round(self.seconds / 60, 2),
                "credits": self.credits, "answerMs": self.times.as_dict()}

    def row(self) -> list[object]:
        def ms(value: float | None) -> str:
            return "" if value is None else f"{value:.0f}"

        return [self.name or "", self.ref, self.calls, f"{self.seconds / 60:.1f}", f"{self.credits:g}",
                ms(self.times.p50), ms(self.times.p95), ms(self.times.max), self.times.count]


HEADERS = ["NAME", "AGENT", "CALLS", "MINUTES", "CREDITS", "P50 MS", "P95 MS", "MAX MS", "ANSWERS"]


def per_agent(kept: Sequence[AgentFigures], names: Names) -> list[AgentStats]:
    """The ledger's figures, each agent's references counted together; most credits first."""
    merged: dict[str, list[AgentFigures]] = {}
    for figures in kept:
        merged.setdefault(names.ref_of.get(figures.agent, figures.agent), []).append(figures)
    out = [AgentStats(ref or "(unknown)", names.name_of.get(ref), sum(f.calls for f in group),
                      sum(f.seconds for f in group), sum(f.credits for f in group),
                      Times.of([ms for f in group for ms in f.answer_ms]))
           for ref, group in merged.items()]
    return sorted(out, key=lambda s: (-s.credits, -s.calls, s.ref))
