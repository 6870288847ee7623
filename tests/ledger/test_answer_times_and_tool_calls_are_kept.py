"""The ledger keeps the answer time of each agent turn of a call the console held, and the tool
calls a record lists (issue 34 point 1, issue 33 point 3); a file written before they were kept
is taken up, its calls kept."""

from __future__ import annotations

import math
import sqlite3
from datetime import UTC, date, datetime
from pathlib import Path

import pytest

from vap_console.api.models import CallRecord
from vap_console.ledger import SCHEMA_VERSION, Ledger
from vap_console.ledger.figures import ToolCallSeen
from vap_console.ledger.schema import MIGRATIONS

AT = datetime(2026, 11, 26, 9, 30, tzinfo=UTC)


def _old_file(path: Path, version: int) -> None:
    """A ledger as a vap-console at ``version`` wrote it: its own schema's SQL, one call in it."""
    path.parent.mkdir(parents=True, exist_ok=True)
    conn = sqlite3.connect(path, isolation_level=None)
    for number in range(version):
        conn.executescript(MIGRATIONS[number])
    conn.execute(f"PRAGMA user_version = {version}")
    conn.execute("INSERT INTO calls (call_id, agent, kind, noted_at, status, duration_seconds, credits) "
                 "VALUES ('old-1', 'ua_front', 'talk', '2026-11-20T10:00:00Z', 'completed', 61, 6)")
    conn.close()


def test_a_file_at_the_old_version_opens_keeps_its_calls_and_gains_the_new_columns(tmp_path: Path) -> None:
    path = tmp_path / "calls" / "work.sqlite3"
    _old_file(path, 2)
    ledger = Ledger("work", path=path)
    [entry] = ledger.entries()
    assert (entry.call_id, entry.agent, entry.status, entry.credits) == ("old-1", "ua_front", "completed", 6.0)
    assert entry.answer_times == () and entry.tool_calls is None
    assert ledger.record_answer_times("old-1", [700, 900])
    assert ledger.get("old-1").answer_times == (700.0, 900.0)  # type: ignore[union-attr]
    conn = sqlite3.connect(path)
    assert conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION == 3
    columns = {row[1] for row in conn.execute("PRAGMA table_info(calls)")}
    assert {"answer_ms", "tool_calls"} <= columns


def test_each_turns_answer_time_is_kept_in_order(ledger: Ledger) -> None:
    ledger.record_started("c1", "ua_front", "talk", at=AT)
    assert ledger.record_answer_times("c1", [812.34, 640, 1500])
    assert ledger.get("c1").answer_times == (812.3, 640.0, 1500.0)  # type: ignore[union-attr]
    [listed] = ledger.entries(transcripts=True)
    assert listed.answer_times == (812.3, 640.0, 1500.0)  # the console's list has them for the detail


def test_a_call_not_in_the_ledger_gets_no_row_from_its_times(ledger: Ledger) -> None:
    assert not ledger.record_answer_times("nowhere", [500])
    assert ledger.count() == 0


@pytest.mark.parametrize("bad", [-1.0, math.nan, math.inf])
def test_a_time_that_is_no_time_is_refused_and_nothing_changes(ledger: Ledger, bad: float) -> None:
    ledger.record_started("c1", "ua_front", "talk", at=AT)
    ledger.record_answer_times("c1", [400])
    with pytest.raises(ValueError, match="milliseconds"):
        ledger.record_answer_times("c1", [300, bad])
    assert ledger.get("c1").answer_times == (400.0,)  # type: ignore[union-attr]


def _record(**more: object) -> CallRecord:
    return CallRecord.model_validate({"id": "c1", "kind": "socket", "status": "completed",
                                      "createdAt": "2026-11-26T09:30:05Z", **more})


def test_the_tool_calls_a_record_lists_are_kept_and_the_real_services_none_stays_none(ledger: Ledger) -> None:
    ledger.record_started("c1", "ua_front", "talk", at=AT)
    ledger.cache_record(_record())
    assert ledger.get("c1").tool_calls is None  # type: ignore[union-attr]
    ledger.cache_record(_record(toolCalls=[
        {"name": "book_appointment", "kind": "during_call", "status": 200, "ms": 84.2, "error": None},
        {"name": "crm", "status": None, "ms": 3000, "error": "timed out after 3000 ms"},
        {"name": 7, "status": "teapot", "ms": True, "error": ["x"]}, "not a call"]))
    assert ledger.get("c1").tool_calls == (  # type: ignore[union-attr]
        ToolCallSeen("book_appointment", 200, 84.2, None), ToolCallSeen("crm", None, 3000.0, "timed out after 3000 ms"),
        ToolCallSeen("?", None, None, None))
    ledger.cache_record(_record())  # read again from a server that does not say: what was kept stays
    assert len(ledger.get("c1").tool_calls or ()) == 3  # type: ignore[union-attr]


def test_figures_per_agent_count_calls_minutes_credits_and_every_answer_time(ledger: Ledger) -> None:
    ledger.add_many([
        {"call_id": "a1", "agent": "ua_front", "kind": "talk", "noted_at": "2026-11-20T10:00:00Z",
         "duration_seconds": 60, "credits": 6, "answer_ms": [700, 900]},
        {"call_id": "a2", "agent": "ua_front", "kind": "talk", "noted_at": "2026-11-25T10:00:00Z",
         "duration_seconds": 30, "credits": 3, "answer_ms": [1200]},
        {"call_id": "b1", "agent": "ua_sales", "kind": "web", "noted_at": "2026-11-25T11:00:00Z",
         "duration_seconds": 120, "credits": 12},
    ])
    every = {f.agent: f for f in ledger.agent_figures()}
    assert (every["ua_front"].calls, every["ua_front"].seconds, every["ua_front"].credits) == (2, 90.0, 9.0)
    assert sorted(every["ua_front"].answer_ms) == [700.0, 900.0, 1200.0]
    assert every["ua_sales"].answer_ms == () and every["ua_sales"].calls == 1
    [recent] = ledger.agent_figures(since=datetime(2026, 11, 24, tzinfo=UTC), agents=["ua_front"])
    assert (recent.calls, recent.answer_ms) == (1, (1200.0,))
    days = ledger.answers_per_day(7, today=date(2026, 11, 25))
    assert [d.day.day for d in days] == [19, 20, 21, 22, 23, 24, 25]
    assert [sorted(d.answer_ms) for d in days if d.answer_ms] == [[700.0, 900.0], [1200.0]]
