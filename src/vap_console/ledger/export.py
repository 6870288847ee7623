"""The ledger as a file: CSV (one row a call, its transcript in one cell, a turn a line) or JSON
(an array of calls, each with its transcript as turns). Shared by `vap calls export` and `e` on
the Calls screen."""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Iterable

from vap_console.ledger.store import CallEntry

FORMATS = ("csv", "json")
CSV_COLUMNS = ("callId", "notedAt", "agent", "kind", "toNumber", "from", "status", "endReason",
               "durationSeconds", "creditsCharged", "summary", "transcript")


def _cell(value: object) -> str:
    text = "" if value is None else str(value)
    # A spreadsheet runs a cell starting with = + - @ as a formula: what a caller said must not be.
    return "'" + text if text[:1] in ("=", "+", "-", "@") and not text[1:2].isdigit() else text


def to_csv(entries: Iterable[CallEntry]) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(CSV_COLUMNS)
    for entry in entries:
        data = entry.as_dict()
        data["transcript"] = "\n".join(f"{t.role}: {t.content}" for t in entry.transcript)
        writer.writerow([_cell(data.get(column)) for column in CSV_COLUMNS])
    return out.getvalue()


def to_json(entries: Iterable[CallEntry]) -> str:
    return json.dumps([e.as_dict() for e in entries], ensure_ascii=False, indent=2) + "\n"


def export(entries: Iterable[CallEntry], fmt: str) -> str:
    if fmt not in FORMATS:
        raise ValueError(f"format {fmt!r}: use csv or json")
    return to_csv(entries) if fmt == "csv" else to_json(entries)
