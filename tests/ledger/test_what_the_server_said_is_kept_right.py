"""What a read of GET /v1/calls/{id} leaves in the ledger, as the list, the chart and `vap calls show`
then show it: a call added by its id keeps the server's agent, kind and time; times with an offset
are the same moment in UTC; when it was last read; no recording is no recording; the words as said,
found by the filter; a transcript cell damaged by hand costs its bad turns, not the list."""

from __future__ import annotations

import sqlite3
from datetime import UTC, datetime, timedelta, timezone

from vap_console.api.models import CallRecord
from vap_console.ledger import Ledger

IST = timezone(timedelta(hours=5, minutes=30))


def _read(ledger: Ledger, at: datetime | None = None, **fields) -> None:
    ledger.cache_record(CallRecord.model_validate({"id": "c1", "status": "completed", **fields}), at=at)


def test_a_call_added_by_its_id_keeps_the_servers_agent_kind_and_time(ledger: Ledger) -> None:
    _read(ledger, at=datetime(2026, 11, 26, 12, 0, tzinfo=UTC), agentId="ag-1", kind="web",
          toNumber="+919812340001", fromTrunkId="trunk-1", createdAt="2026-11-26T09:30:00Z")
    entry = ledger.get("c1")
    assert entry is not None
    assert (entry.agent, entry.kind, entry.to_number, entry.from_ref) == ("ag-1", "web", "+919812340001", "trunk-1")
    assert entry.noted_at == "2026-11-26T09:30:00Z"  # when it was made, not when it was added


def test_a_call_of_a_kind_this_console_does_not_know_is_kept_as_elsewhere(ledger: Ledger) -> None:
    _read(ledger, at=datetime(2026, 11, 26, 12, 0, tzinfo=UTC), kind="sip-inbound")
    entry = ledger.get("c1")
    assert entry is not None and (entry.kind, entry.agent) == ("elsewhere", "")
    assert entry.noted_at == "2026-11-26T12:00:00Z"  # no createdAt: noted when it was read


def test_times_with_an_offset_are_the_same_moment_in_utc(ledger: Ledger) -> None:
    _read(ledger, at=datetime(2026, 11, 26, 18, 0, tzinfo=IST),
          createdAt="2026-11-26T15:00:00+05:30", endedAt="2026-11-26T15:04:00+05:30")
    entry = ledger.get("c1")
    assert entry is not None
    assert (entry.noted_at, entry.created_at, entry.ended_at, entry.read_at) == (
        "2026-11-26T09:30:00Z", "2026-11-26T09:30:00Z", "2026-11-26T09:34:00Z", "2026-11-26T12:30:00Z")


def test_when_a_call_was_last_read_is_kept_and_a_failed_read_says_why(ledger: Ledger) -> None:
    _read(ledger, at=datetime(2026, 11, 26, 9, 0, tzinfo=UTC))
    assert ledger.get("c1").read_at == "2026-11-26T09:00:00Z"  # type: ignore[union-attr]
    ledger.record_unreadable("c1", "HTTP 503", at=datetime(2026, 11, 26, 9, 5, tzinfo=UTC), gone=False)
    entry = ledger.get("c1")
    assert entry is not None and (entry.read_at, entry.read_error, entry.status) == (
        "2026-11-26T09:05:00Z", "HTTP 503", "completed")
    _read(ledger, at=datetime(2026, 11, 26, 9, 10, tzinfo=UTC))
    assert ledger.get("c1").read_error is None  # type: ignore[union-attr]


def test_a_call_without_a_recording_says_so(ledger: Ledger) -> None:
    _read(ledger)
    assert ledger.get("c1").has_recording is False  # type: ignore[union-attr]


def test_words_said_in_any_script_are_kept_as_said_and_found(ledger: Ledger) -> None:
    _read(ledger, transcript=[{"role": "user", "content": "नमस्ते, कल आ सकते हैं?"}])
    assert [e.call_id for e in ledger.entries("कल आ सकते")] == ["c1"]
    assert [(t.role, t.content) for t in ledger.get("c1").transcript] == [  # type: ignore[union-attr]
        ("user", "नमस्ते, कल आ सकते हैं?")]


def test_the_consoles_list_holds_each_calls_own_turns_newest_first(ledger: Ledger) -> None:
    ledger.record_started("c1", "a", "web", at=datetime(2026, 11, 26, 9, 0, tzinfo=UTC))
    ledger.record_started("c2", "a", "web", at=datetime(2026, 11, 26, 10, 0, tzinfo=UTC))
    for call_id, said in (("c1", "first call"), ("c2", "second call")):
        ledger.cache_record(CallRecord.model_validate(
            {"id": call_id, "status": "completed", "transcript": [{"role": "user", "content": said}]}))
    listed = ledger.entries(transcripts=True)
    assert [(e.call_id, [t.content for t in e.transcript]) for e in listed] == [
        ("c2", ["second call"]), ("c1", ["first call"])]


def test_a_transcript_damaged_by_hand_shows_the_turns_it_can(ledger: Ledger) -> None:
    for call_id in ("not-json", "not-a-list", "mixed"):
        ledger.record_started(call_id, "a", "web")
    conn = sqlite3.connect(ledger.path)
    with conn:
        for call_id, cell in (("not-json", "[[\"user\", \"cut off"), ("not-a-list", '{"user": "hello"}'),
                              ("mixed", '[["assistant", "hello"], ["only one"], "text", ["a", "b", "c"], 7]')):
            conn.execute("UPDATE calls SET transcript = ? WHERE call_id = ?", (cell, call_id))
    conn.close()
    turns = {e.call_id: [(t.role, t.content) for t in e.transcript] for e in ledger.entries(transcripts=True)}
    assert turns == {"not-json": [], "not-a-list": [], "mixed": [("assistant", "hello")]}
