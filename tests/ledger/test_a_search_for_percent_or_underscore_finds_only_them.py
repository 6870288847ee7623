"""The Calls filter (and `vap calls list --filter`) finds the text typed, letter for letter: `%`,
`_` and `\\` are what they are, never SQL LIKE wildcards (issue 32 point 7). Each field the filter
reads is searched on its own, so a field dropped from the search is caught too."""

from __future__ import annotations

import pytest

from vap_console.api.models import CallRecord
from vap_console.ledger import Ledger


def _said(ledger: Ledger, call_id: str, words: str) -> None:
    ledger.record_started(call_id, "frontdesk", "web")
    ledger.cache_record(CallRecord.model_validate({
        "id": call_id, "status": "completed", "transcript": [{"role": "user", "content": words}]}))


@pytest.mark.parametrize(("typed", "found"), [
    ("50%", ["pct"]),          # not "50 then anything": "500 rupees" is not found
    ("a_b", ["under"]),        # not "a, any one letter, b": "axb" is not found
    ("c\\d", ["slash"]),
    ("%", ["pct"]),
    ("_", ["under"]),
])
def test_wildcard_letters_match_only_themselves(ledger: Ledger, typed: str, found: list[str]) -> None:
    calls = {"pct": "a 50% discount", "five": "500 rupees", "under": "file a_b please", "axb": "say axb",
             "slash": "path c\\d", "cd": "plain cd"}
    for call_id, words in calls.items():
        _said(ledger, call_id, words)
    assert sorted(e.call_id for e in ledger.entries(typed)) == found  # type: ignore[type-var]


def test_each_field_is_searched_in_any_case(ledger: Ledger) -> None:
    ledger.record_started("agent", "Front_Desk", "outbound")
    ledger.record_started("status", "x", "outbound", status="Ringing")
    ledger.record_started("kind", "x", "talk")
    ledger.record_started("number", "x", "outbound", to_number="+9198_1234")
    _said(ledger, "words", "Tomorrow at NINE")
    ledger.record_unknown("x", "outbound", idempotency_key="k")
    assert [e.call_id for e in ledger.entries("front_desk")] == ["agent"]
    assert [e.call_id for e in ledger.entries("RINGING")] == ["status"]
    assert [e.call_id for e in ledger.entries("TALK")] == ["kind"]
    assert [e.call_id for e in ledger.entries("98_12")] == ["number"]
    assert [e.call_id for e in ledger.entries("at nine")] == ["words"]
    assert [e.unknown for e in ledger.entries("OUTCOME UNKNOWN")] == [True]
    assert len(ledger.entries("  ")) == len(ledger.entries()) == 6  # blanks alone filter nothing


def test_only_the_words_said_are_searched_not_how_they_are_stored(ledger: Ledger) -> None:
    # The transcript is kept as JSON: its quotes, backslashes and role names are not words said.
    _said(ledger, "quoted", 'he said "yes"')
    _said(ledger, "plain", "nothing else")
    assert [e.call_id for e in ledger.entries('"yes"')] == ["quoted"]
    assert [e.call_id for e in ledger.entries("user")] == []
    assert [e.call_id for e in ledger.entries('", "')] == []


def test_a_transcript_damaged_by_hand_does_not_stop_the_search(ledger: Ledger) -> None:
    _said(ledger, "fine", "hello there")
    base = {"agent": "x", "kind": "web", "noted_at": "2025-01-01T00:00:00Z"}
    ledger.add_many([{**base, "call_id": "cut", "transcript": '[["user", "hello'},
                     {**base, "call_id": "object", "transcript": '{"user": "hello"}'},
                     {**base, "call_id": "odd", "transcript": '["hello", 5, {"a": "hello"}, ["user", "hello again"]]'}])
    assert sorted(e.call_id for e in ledger.entries("hello")) == ["fine", "odd"]  # type: ignore[type-var]
