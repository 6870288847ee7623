"""The calls ledger (issue 25 point 1): a call is kept the moment its id is known, what the server
last said is cached on it, nothing secret is written, and its schema is versioned."""

from __future__ import annotations

import sqlite3
from datetime import UTC, date, datetime
from pathlib import Path

import pytest

from vap_console.api.models import CallRecord
from vap_console.ledger import SCHEMA_VERSION, Ledger, LedgerTooNew, ledger_path

SIGNED = "https://media.example.test/sandbox/recordings/c1?expires=99&signature=SECRETSIG0123"


def _record(**fields) -> CallRecord:
    return CallRecord.model_validate({
        "id": "c1", "status": "completed", "agentId": "ag-1", "kind": "outbound", "durationSeconds": 21,
        "endReason": "participant_disconnected", "creditsCharged": 3,
        "transcript": [{"role": "assistant", "content": "Namaste, Dr Rao's clinic"},
                       {"role": "user", "text": "I need to move my appointment"}],
        "recordingUrl": SIGNED, "summary": "5 turns", **fields,
    })


def test_a_started_call_is_listed_with_what_the_server_said_after(ledger: Ledger) -> None:
    ledger.record_started("c1", "ua_front", "outbound", to_number="+919812340001", from_ref="trunk-1")
    [entry] = ledger.entries()
    assert (entry.call_id, entry.agent, entry.kind, entry.shown_status) == ("c1", "ua_front", "outbound", "not read yet")
    assert ledger.open_ids() == ["c1"]
    ledger.cache_record(_record())
    entry = ledger.get("c1")
    assert entry is not None and entry.status == "completed" and entry.credits == 3
    assert entry.agent == "ua_front"  # the console's name for it is kept
    assert [t.content for t in entry.transcript] == ["Namaste, Dr Rao's clinic", "I need to move my appointment"]
    assert entry.has_recording and ledger.open_ids() == []


def test_recording_the_same_call_twice_keeps_one_row_and_its_cache(ledger: Ledger) -> None:
    ledger.record_started("c1", "ua_front", "web")
    ledger.cache_record(_record(kind="web"))
    ledger.record_started("c1", "ua_front", "web")
    assert ledger.count() == 1 and ledger.get("c1").status == "completed"  # type: ignore[union-attr]


def test_no_signed_url_reaches_the_file(ledger: Ledger) -> None:
    ledger.cache_record(_record())
    for name in ("", "-wal"):
        path = Path(str(ledger.path) + name)
        if path.exists():
            assert b"SECRETSIG0123" not in path.read_bytes()
            assert b"recordings/c1" not in path.read_bytes()


def test_the_filter_finds_words_said_agents_and_statuses(ledger: Ledger) -> None:
    ledger.record_started("c1", "ua_front", "outbound")
    ledger.cache_record(_record())
    ledger.record_started("c2", "ua_sales", "web", status="calling")
    assert [e.call_id for e in ledger.entries("APPOINTMENT")] == ["c1"]
    assert [e.call_id for e in ledger.entries("sales")] == ["c2"]
    assert [e.call_id for e in ledger.entries("calling")] == ["c2"]
    assert ledger.entries("100%") == []


def test_a_lost_placement_is_kept_as_outcome_unknown_until_resolved(ledger: Ledger) -> None:
    row = ledger.record_unknown("ua_front", "outbound", idempotency_key="key-1", to_number="+919812340001")
    [entry] = ledger.entries("outcome unknown")
    assert entry.unknown and entry.shown_status == "outcome unknown" and entry.idempotency_key == "key-1"
    assert ledger.open_ids() == []  # nothing to read: no id yet
    ledger.resolve_unknown(row, "c9")
    assert ledger.get("c9") is not None and ledger.count() == 1 and not ledger.get("c9").unknown  # type: ignore[union-attr]


def test_spend_per_day_and_totals(ledger: Ledger) -> None:
    # Days long past: the chart's last day is the one asked for, not the machine's today.
    ledger.add_many([
        {"call_id": "a", "agent": "ua_front", "kind": "web", "noted_at": "2025-03-09T10:00:00Z", "credits": 6,
         "duration_seconds": 40},
        {"call_id": "b", "agent": "ua_front", "kind": "outbound", "noted_at": "2025-03-10T09:00:00Z", "credits": 3,
         "duration_seconds": 20},
        {"call_id": "c", "agent": "ua_sales", "kind": "outbound", "noted_at": "2025-03-10T11:00:00Z"},
        {"call_id": "old", "agent": "ua_sales", "kind": "web", "noted_at": "2025-01-01T11:00:00Z", "credits": 50},
    ])
    days = ledger.per_day(30, today=date(2025, 3, 10))
    assert len(days) == 30 and days[-1].day == date(2025, 3, 10)
    assert (days[-1].calls, days[-1].credits) == (2, 3) and (days[-2].calls, days[-2].credits) == (1, 6)
    assert sum(d.calls for d in days) == 3 and sum(d.credits for d in days) == 9  # January is outside
    assert [(t.name, t.calls, t.credits, t.seconds) for t in ledger.totals("kind")] == [
        ("web", 2, 56, 40), ("outbound", 2, 3, 20)]
    assert ledger.totals("agent")[0].name == "ua_sales"


def test_todays_calls_are_on_the_charts_last_day(ledger: Ledger) -> None:
    ledger.record_started("c1", "ua_front", "web")
    days = ledger.per_day(7)
    assert days[-1].day == datetime.now(UTC).date() and days[-1].calls == 1


def test_the_file_is_per_profile_in_the_data_directory(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    Ledger("work").record_started("c1", "a", "web")
    assert ledger_path("work") == tmp_path / "data" / "vap-console" / "calls" / "work.sqlite3"
    assert Ledger("home").entries() == []


def test_the_schema_is_versioned_and_a_newer_file_is_refused(ledger: Ledger) -> None:
    ledger.record_started("c1", "a", "web")
    conn = sqlite3.connect(ledger.path)
    assert conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    conn.close()
    with pytest.raises(LedgerTooNew, match="update vap-console"):
        Ledger("work", path=ledger.path).entries()


def test_the_next_command_opens_the_same_file_and_finds_its_calls(ledger: Ledger) -> None:
    ledger.record_started("c1", "ua_front", "web")
    later = Ledger("work", path=ledger.path)  # another `vap` run, or the console started after it
    assert [e.call_id for e in later.entries()] == ["c1"]
    later.record_started("c2", "ua_front", "web")
    assert ledger.count() == 2


def test_a_bad_kind_or_empty_id_changes_nothing(ledger: Ledger) -> None:
    with pytest.raises(ValueError, match="kind"):
        ledger.record_started("c1", "a", "carrier-pigeon")
    with pytest.raises(ValueError, match="call id"):
        ledger.record_started(" ", "a", "web")
    assert ledger.count() == 0


def test_times_are_kept_in_utc(ledger: Ledger) -> None:
    ledger.record_started("c1", "a", "web", at=datetime(2026, 11, 26, 9, 30, tzinfo=UTC))
    assert ledger.entries()[0].noted_at == "2026-11-26T09:30:00Z"


def test_a_call_the_server_does_not_have_is_not_read_again(ledger: Ledger) -> None:
    ledger.record_started("c1", "a", "web")
    ledger.record_started("c2", "a", "web")
    ledger.record_unreadable("c1", "HTTP 500", gone=False)
    ledger.record_unreadable("c2", "No call here", gone=True)
    assert ledger.open_ids() == ["c1"]
    gone = ledger.get("c2")
    assert gone is not None and gone.shown_status == "not found" and not gone.open and gone.read_error == "No call here"


def test_a_call_is_read_again_until_it_ends(ledger: Ledger) -> None:
    ledger.record_started("new", "a", "web")
    ledger.record_started("calling", "a", "outbound", status="calling")
    for call_id, status in (("done", "completed"), ("busy", "failed"), ("no-answer", "expired")):
        ledger.cache_record(_record(id=call_id, status=status))
    ledger.record_unknown("a", "outbound", idempotency_key="key-1")
    is_open = {e.call_id: e.open for e in ledger.entries()}
    assert is_open == {"new": True, "calling": True, "done": False, "busy": False, "no-answer": False,
                       None: False}  # the lost placement has no id to read
    assert sorted(ledger.open_ids()) == ["calling", "new"]
