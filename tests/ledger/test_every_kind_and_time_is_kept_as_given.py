"""What the ledger keeps of each call is what it was given (issue 32 point 7): every kind a call can
be, a time given without a zone taken as UTC, a lost placement found to be a call already kept
merged into it; and what it refuses is refused in words naming the rule."""

from __future__ import annotations

from datetime import datetime

import pytest

from vap_console.api.models import CallRecord
from vap_console.ledger import Ledger


@pytest.mark.parametrize("kind", ["web", "talk", "socket", "outbound", "elsewhere"])
def test_every_kind_of_call_is_kept_and_found_by_it(ledger: Ledger, kind: str) -> None:
    ledger.record_started("c1", "frontdesk", kind)
    ledger.cache_record(CallRecord.model_validate({"id": "c2", "status": "completed", "kind": kind}))
    assert sorted((e.call_id, e.kind) for e in ledger.entries(kind)) == [("c1", kind), ("c2", kind)]  # type: ignore[type-var]


def test_a_time_without_a_zone_is_taken_as_utc(ledger: Ledger) -> None:
    ledger.record_started("c1", "a", "web", at=datetime(2026, 11, 26, 9, 30))
    assert ledger.entries()[0].noted_at == "2026-11-26T09:30:00Z"


def test_a_lost_placement_found_to_be_a_call_already_kept_leaves_one_row(ledger: Ledger) -> None:
    row = ledger.record_unknown("a", "outbound", idempotency_key="key-1")
    ledger.record_started("c9", "a", "outbound")  # added by hand meanwhile
    ledger.resolve_unknown(row, "c9")
    assert [(e.call_id, e.unknown) for e in ledger.entries()] == [("c9", False)]


def test_what_is_refused_is_said_in_words(ledger: Ledger) -> None:
    with pytest.raises(ValueError) as no_id:
        ledger.record_started(" ", "a", "web")
    assert str(no_id.value) == "a call id is required"
    with pytest.raises(ValueError) as bad_kind:
        ledger.record_started("c1", "a", "pigeon")
    assert str(bad_kind.value) == "kind 'pigeon': must be one of web, talk, socket, outbound, elsewhere"
    with pytest.raises(ValueError) as bad_total:
        ledger.totals("day")
    assert str(bad_total.value) == "totals are by agent or by kind"
    assert ledger.count() == 0


def test_a_ledger_names_its_profile_and_file(ledger: Ledger) -> None:
    assert repr(ledger) == f"Ledger(profile='work', path={str(ledger.path)!r})"
    assert ledger.profile == "work"


def test_a_call_not_read_yet_has_nothing_said_for_the_calls_filter(ledger: Ledger) -> None:
    # The Calls screen searches what `said` holds: a call never read must add no words to it.
    ledger.record_started("c1", "a", "web")
    [listed] = ledger.entries(transcripts=True)
    [plain] = ledger.entries()
    found = ledger.get("c1")
    assert found is not None and (listed.said, plain.said, found.said) == ("", "", "")


def test_spend_of_a_call_with_no_agent_is_totalled_as_unknown(ledger: Ledger) -> None:
    ledger.cache_record(CallRecord.model_validate({"id": "c1", "status": "completed", "creditsCharged": 2}))
    assert [(t.name, t.calls, t.credits) for t in ledger.totals("agent")] == [("(unknown)", 1, 2.0)]
