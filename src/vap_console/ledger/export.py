"""The ledger as a file: CSV (one row a call, its transcript in one cell, a turn a line) or JSON
(an array of calls, each with its transcript as turns). Shared by `vap calls export` and `e` on
the Calls screen."""

from __future__ import annotations

import csv
import io
import json
import re
from collections.abc import Iterable

from vap_console.ledger.store import CallEntry

CSV_COLUMNS = ("callId", "notedAt", "agent", "kind", "toNumber", "from", "status", "endReason",
               "durationSeconds", "creditsCharged", "summary", "transcript")


# A plain number, signed or not: a phone number (+91…) or a figure stays as it is.
_NUMBER = re.compile(r"[+-]?[0-9]+(\.[0-9]+)?")


def _cell(value: object) -> str:
    text = "" if value is None else str(value)
    # A spreadsheet may run a cell starting with = + - @, a tab or a CR as a formula: what a caller
    # said must not be, `+1+cmd|…` included. Only a plain number is left as it is.
    if text[:1] in ("=", "+", "-", "@", "\t", "\r") and not _NUMBER.fullmatch(text):
        return "'" + text
    return text


def to_csv(entries: Iterable[CallEntry]) -> str:
    out = io.StringIO()
    # Every cell quoted: unquoted, a CR in what was said (the rows end in LF alone) would split
    # the call's row in two for whoever reads the file.
    writer = csv.writer(out, lineterminator="\n", quoting=csv.QUOTE_ALL)
    writer.writerow(CSV_COLUMNS)
    for entry in entries:
        data = entry.as_dict()
        data["transcript"] = "\n".join(f"{t.role}: {t.content}" for t in entry.transcript)
        writer.writerow([_cell(data.get(column)) for column in CSV_COLUMNS])
    return out.getvalue()


def to_json(entries: Iterable[CallEntry]) -> str:
    return json.dumps([e.as_dict() for e in entries], ensure_ascii=False, indent=2) + "\n"


_WRITERS = {"csv": to_csv, "json": to_json}


def export(entries: Iterable[CallEntry], fmt: str) -> str:
    write = _WRITERS.get(fmt)
    if write is None:
        raise ValueError(f"format {fmt!r}: use csv or json")
    return write(entries)
