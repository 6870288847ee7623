"""How a command's answer is printed: for people, for programs, or exactly as the API sent it.

* On a terminal: an aligned table, columns measured in display cells (rich.cells, what the
  console measures with), so Devanagari, CJK and emoji keep the columns straight.
* Piped: one plain line per row, fields separated by a tab, no header, no escape bytes, so
  ``cut -f1`` and ``while read`` work.
* ``--json``: the API's own bytes re-indented, never a re-serialised model (a field the console
  does not know still comes through).

Whatever the server sent goes through ``literal.clean`` first: text from the server never reaches
a terminal as control sequences. In JSON those characters are written as ``\\uXXXX`` escapes,
which keeps the document equal to the API's; zero-width characters, which steer nothing, are
written as they came.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from typing import Any, TextIO

from rich.cells import cell_len

from vap_console.literal import UNSAFE_ONE_LINE, ZERO_WIDTH, clean


def _json_escape(match: Any) -> str:
    return f"\\u{ord(match.group(0)):04x}"


def dump_json(value: Any, indent: int | None = 2) -> str:
    """``value`` as JSON (indented; ``indent=None``: one line) whose text holds no control
    character: escapes instead."""
    text = json.dumps(value, ensure_ascii=False, indent=indent)
    # Outside strings JSON has only spaces and newlines, which this leaves alone; inside them
    # json.dumps already escaped C0 controls, and what is left (DEL, C1, bidi) becomes \uXXXX.
    # Zero-width characters steer nothing: they stay the very characters the API sent.
    return UNSAFE_ONE_LINE.sub(lambda m: m.group(0) if m.group(0) in "\n" + ZERO_WIDTH else _json_escape(m),
                               text)


def cell(value: object, terminal: bool = True) -> str:
    """One table cell: the value on one line, control characters visible; None is a dash for
    people and nothing for programs."""
    if value is None:
        return "—" if terminal else ""
    if isinstance(value, bool):
        return "yes" if value else "no"
    return clean(value, multiline=False)


def print_rows(
    headers: Sequence[str], rows: Iterable[Sequence[object]], *, out: TextIO, terminal: bool
) -> None:
    """A table on a terminal (header, columns padded to the widest cell); tab-separated lines otherwise."""
    cells = [[cell(v, terminal) for v in row] for row in rows]
    if not terminal:
        for row in cells:
            # A tab inside a value would split the field: clean() made it a space already.
            out.write("\t".join(row) + "\n")
        return
    widths = [cell_len(h) for h in headers]
    for row in cells:
        widths = [max(w, cell_len(v)) for w, v in zip(widths, row, strict=True)]
    for row in [list(headers), *cells]:
        padded = [v + " " * (w - cell_len(v)) for v, w in zip(row, widths, strict=True)]
        out.write("  ".join(padded).rstrip() + "\n")


def print_pairs(pairs: Iterable[tuple[str, object]], *, out: TextIO, terminal: bool) -> None:
    """One record as ``label  value`` lines (aligned on a terminal, tab-separated when piped)."""
    items = [(label, cell(value, terminal)) for label, value in pairs]
    width = max((cell_len(label) for label, _ in items), default=0)
    for label, value in items:
        if terminal:
            out.write(f"{label}{' ' * (width - cell_len(label))}  {value}".rstrip() + "\n")
        else:
            out.write(f"{label}\t{value}\n")
