"""The ledger as a file: CSV (one row a call, its transcript in one cell, a turn a line) or JSON
(an array of calls, each with its transcript as turns). Shared by `vap calls export` and `e` on
the Calls screen.

What a caller said or a server sent may hold terminal control (a caller can *type* an OSC 52
clipboard write into a call), and an export is read on terminals too (`vap calls export` prints
to one; `cat calls.json` is the next thing many people do). JSON writes every character that could
steer a terminal as a ``\\uXXXX`` escape (``literal.json_dumps``): the file parses to exactly the
data kept. CSV has no escapes: those characters are written as their visible stand-ins (ESC as
␛, ``literal.defuse``), newlines, carriage returns and tabs kept. docs/calls.md says so."""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Iterable

from vap_console.ledger.store import CallEntry
from vap_console.literal import defuse, json_dumps

CSV_COLUMNS = ("callId", "notedAt", "agent", "kind", "toNumber", "from", "status", "endReason",
               "durationSeconds", "creditsCharged", "summary", "transcript")


# A plain number, signed or not: a phone number (+91…) or a figure stays as it is.
_NUMBER = re.compile(r"[+-]?[0-9]+(\.[0-9]+)?")


def _cell(value: object) -> str:
    # A CR stays: inside a quoted cell it is the spreadsheet's own line break, and it steers no
    # terminal the way an escape does (`vap calls export` to a terminal shows it as ␍ anyway).
    text = "" if value is None else "\r".join(defuse(part) for part in str(value).split("\r"))
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
    return json_dumps([e.as_dict() for e in entries]) + "\n"


_WRITERS = {"csv": to_csv, "json": to_json}


def export(entries: Iterable[CallEntry], fmt: str) -> str:
    write = _WRITERS.get(fmt)
    if write is None:
        raise ValueError(f"format {fmt!r}: use csv or json")
    return write(entries)
