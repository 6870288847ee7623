"""The key names and values of `vap calls list --json`, `vap calls show --json` (from the ledger)
and the JSON export are what scripts read (issue 32 point 7): each key pinned by name, with the
value of the column it comes from, so a renamed key or a value from the wrong column is caught."""

from __future__ import annotations

import json
from datetime import UTC, datetime

from vap_console.api.models import CallRecord
from vap_console.ledger import Ledger
from vap_console.ledger.export import export
from vap_console.ledger.store import CallEntry

AT = datetime(2026, 11, 26, 9, 30, tzinfo=UTC)

LISTED = {
    "callId": "c1", "agent": "ua_front", "kind": "outbound", "toNumber": "+919812340001", "from": "trunk-1",
    "notedAt": "2026-11-26T09:30:00Z", "status": "completed", "endReason": "participant_disconnected",
    "durationSeconds": 21.0, "creditsCharged": 3.0, "summary": "5 turns", "hasRecording": True,
    "createdAt": "2026-11-26T09:30:05Z", "endedAt": "2026-11-26T09:30:26Z", "readAt": "2026-11-26T09:31:00Z",
    "readError": None,
}
TURNS = [{"role": "assistant", "content": "Namaste, Dr Rao's clinic"},
         {"role": "user", "content": "I need to move my appointment"}]


def _answered(ledger: Ledger) -> None:
    ledger.record_started("c1", "ua_front", "outbound", to_number="+919812340001", from_ref="trunk-1", at=AT)
    ledger.cache_record(CallRecord.model_validate({
        "id": "c1", "status": "completed", "agentId": "ag-1", "kind": "outbound", "durationSeconds": 21,
        "endReason": "participant_disconnected", "creditsCharged": 3, "summary": "5 turns",
        "createdAt": "2026-11-26T09:30:05Z", "endedAt": "2026-11-26T09:30:26Z",
        "recordingUrl": "https://media.example.test/r/c1?signature=x", "transcript": TURNS,
    }), at=datetime(2026, 11, 26, 9, 31, tzinfo=UTC))


def test_each_key_of_a_listed_call_holds_its_own_value(ledger: Ledger) -> None:
    _answered(ledger)
    [entry] = ledger.entries()
    assert entry.as_dict(transcript=False) == LISTED
    assert entry.as_dict() == {**LISTED, "transcript": []}  # the list reads no transcript
    assert ledger.get("c1").as_dict() == {**LISTED, "transcript": TURNS}  # type: ignore[union-attr]


def test_a_lost_placement_carries_its_idempotency_key_to_resend_with(ledger: Ledger) -> None:
    ledger.record_unknown("ua_front", "outbound", idempotency_key="key-1", to_number="+919812340001", at=AT)
    [entry] = ledger.entries()
    data = entry.as_dict(transcript=False)
    assert data["idempotencyKey"] == "key-1" and data["status"] == "outcome unknown" and data["callId"] is None
    assert "idempotencyKey" not in _only(ledger, "c1").as_dict()


def _only(ledger: Ledger, call_id: str) -> CallEntry:
    ledger.record_started(call_id, "ua_front", "web", at=AT)
    entry = ledger.get(call_id)
    assert entry is not None
    return entry


def test_the_json_export_has_the_same_keys_and_the_turns(ledger: Ledger) -> None:
    _answered(ledger)
    assert json.loads(export(ledger.with_transcripts(), "json")) == [{**LISTED, "transcript": TURNS}]

