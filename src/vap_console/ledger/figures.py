"""What the ledger keeps of a call's figures (issue 34 point 1, issue 33 point 3): the answer time
of each agent turn of a call the console held itself, and each tool call its record listed.

Both are kept as JSON text on the call's row (schema version 3), read back only when asked: a list
of 10,000 calls parses none of them. Anything a hand or another program wrote there that is not
what this module writes reads as nothing measured, never as an error.
"""

from __future__ import annotations

import json
import math
import sqlite3
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import date, timedelta
from typing import Any


@dataclass(frozen=True)
class ToolCallSeen:
    """One call of a tool as the call record told it (``toolCalls``): its name, the HTTP status
    (None: no answer), the milliseconds it took and the error, if any. All of it is server text."""

    name: str
    status: int | None
    ms: float | None
    error: str | None

    @property
    def held(self) -> bool:
        """Whether the tool answered 2xx with no error."""
        return self.status is not None and 200 <= self.status < 300 and not self.error

    def in_words(self) -> str:
        """``book_appointment → 200 in 84 ms``, or what went wrong (server text: clean it to show)."""
        said = f"{self.name} → {self.status if self.status is not None else 'no answer'}"
        said += f" in {self.ms:.0f} ms" if self.ms is not None else ""
        return said + (f": {self.error}" if self.error else "")


def times_json(times: Iterable[float]) -> str:
    """Answer times as kept: milliseconds, rounded to a tenth, in order."""
    kept = []
    for ms in times:
        value = float(ms)
        if not math.isfinite(value) or value < 0:
            raise ValueError(f"an answer time is a number of milliseconds, 0 or more, not {ms!r}")
        kept.append(round(value, 1))
    return json.dumps(kept)


def times_of(text: str | None) -> tuple[float, ...]:
    """Answer times read back; () when none were kept (or the text is not what times_json wrote)."""
    raw = _json(text)
    if not isinstance(raw, list):
        return ()
    return tuple(float(v) for v in raw
                 if isinstance(v, int | float) and not isinstance(v, bool) and math.isfinite(v) and v >= 0)


def tools_json(calls: Sequence[Any]) -> str:
    """A record's tool calls as kept (CallRecord.tool_calls: models with name, status, ms, error)."""
    return json.dumps([{"name": c.name, "status": c.status, "ms": c.ms, "error": c.error} for c in calls],
                      ensure_ascii=False)


def tools_of(text: str | None) -> tuple[ToolCallSeen, ...] | None:
    """The tool calls kept; None when the record told none (the real service has no toolCalls)."""
    raw = _json(text)
    if not isinstance(raw, list):
        return None
    return tuple(ToolCallSeen(str(c.get("name") or "?"), _number(c.get("status"), int), _number(c.get("ms"), float),
                              c["error"] if isinstance(c.get("error"), str) else None)
                 for c in raw if isinstance(c, dict))


def _number(value: Any, kind: type[int] | type[float]) -> Any:
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        return None
    return kind(value)


def _json(text: str | None) -> Any:
    if not text:
        return None
    try:
        return json.loads(text)
    except ValueError:
        return None


@dataclass(frozen=True)
class AgentFigures:
    """One agent's calls in the ledger: how many, their seconds and credits, every answer time."""

    agent: str
    calls: int
    seconds: float
    credits: float
    answer_ms: tuple[float, ...]


@dataclass(frozen=True)
class DayAnswers:
    """Every answer time measured in the calls of one UTC day."""

    day: date
    answer_ms: tuple[float, ...]


def agent_figures(conn: sqlite3.Connection, since: str | None, agents: Sequence[str] | None) -> list[AgentFigures]:
    """Per agent as kept (``agent`` column), the calls noted at or after ``since`` (an ISO time as
    the ledger writes them), only ``agents`` when given; most credits first."""
    where, args = [], []
    if since is not None:
        where.append("noted_at >= ?")
        args.append(since)
    if agents is not None:
        where.append(f"agent IN ({', '.join('?' for _ in agents)})")
        args += list(agents)
    sql = ("SELECT agent, count(*), coalesce(sum(duration_seconds), 0), coalesce(sum(credits), 0), "
           "json_group_array(coalesce(answer_ms, '[]')) FROM calls "
           + (f"WHERE {' AND '.join(where)} " if where else "") + "GROUP BY agent ORDER BY 4 DESC, 2 DESC, 1")
    out = []
    for agent, calls, seconds, charged, per_call in conn.execute(sql, args):
        times = [ms for text in (_json(per_call) or []) for ms in times_of(text)]
        out.append(AgentFigures(agent, int(calls), float(seconds), float(charged), tuple(times)))
    return out


def answers_per_day(conn: sqlite3.Connection, days: int, today: date) -> list[DayAnswers]:
    """The answer times of each of the last ``days`` UTC days, today last, a day without any empty."""
    first = today - timedelta(days=days - 1)
    rows = conn.execute("SELECT substr(noted_at, 1, 10), answer_ms FROM calls "
                        "WHERE noted_at >= ? AND answer_ms IS NOT NULL", (first.isoformat(),)).fetchall()
    seen: dict[str, list[float]] = {}
    for day, text in rows:
        seen.setdefault(day, []).extend(times_of(text))
    return [DayAnswers(day, tuple(seen.get(day.isoformat(), ())))
            for day in (first + timedelta(days=n) for n in range(days))]
