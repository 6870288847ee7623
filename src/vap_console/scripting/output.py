"""How a command's answer is printed: for people, for programs, or exactly as the API sent it.

* On a terminal: an aligned table, columns measured in display cells (rich.cells, what the
  console measures with), so Devanagari, CJK and emoji keep the columns straight. A table wider
  than the terminal is fitted as the console fits its lists: the least important columns go
  first (each table names them), then the widest are cut with …, never the key column; stderr
  says which columns were left out.
* Piped: one plain line per row, every column, fields separated by a tab, no header, no escape
  bytes, so ``cut -f1`` and ``while read`` work.
* ``--json``: the API's own bytes re-indented, never a re-serialised model (a field the console
  does not know still comes through).

Whatever the server sent is cleaned: a table cell or a label goes through ``literal.clean``
(control, bidi and zero-width characters visible); in JSON the characters that could steer a
terminal are ``\\uXXXX`` escapes (``literal.json_dumps``), which keeps the document equal to the
API's. And every command's output, whatever printed it, leaves through ``Defused``, the one writer
``scripting.root.run`` puts in front of stdout and stderr: nothing a command forgot to clean can
reach the terminal as control.
"""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any, TextIO

from rich.cells import cell_len, set_cell_size

from vap_console.literal import clean, defuse, json_dumps


def dump_json(value: Any, indent: int | None = 2) -> str:
    """``value`` as JSON (indented; ``indent=None``: one line) whose text holds no control
    character: escapes instead. Zero-width characters stay the very characters the API sent."""
    return json_dumps(value, indent=indent)


class Defused:
    """A text stream that writes what it is given through ``literal.defuse``: the command line's
    one way to its stdout and stderr. Everything else (isatty, flush, the binary ``buffer`` a WAV
    goes to) is the stream's own."""

    def __init__(self, inner: TextIO) -> None:
        self._inner = inner

    def write(self, text: str) -> int:
        self._inner.write(defuse(text))
        return len(text)

    def writelines(self, lines: Iterable[str]) -> None:
        for line in lines:
            self.write(line)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)


@contextlib.contextmanager
def defused_streams() -> Iterator[None]:
    """stdout and stderr through ``Defused`` while a command runs (put back after)."""
    out, err = sys.stdout, sys.stderr
    sys.stdout, sys.stderr = Defused(out), Defused(err)
    try:
        yield
    finally:
        sys.stdout, sys.stderr = out, err


def cell(value: object, terminal: bool = True) -> str:
    """One table cell: the value on one line, control characters visible; None is a dash for
    people and nothing for programs."""
    if value is None:
        return "—" if terminal else ""
    if isinstance(value, bool):
        return "yes" if value else "no"
    return clean(value, multiline=False)


@dataclass(frozen=True)
class Fit:
    """How a table gives way on a narrow terminal: ``key``, the column never dropped nor cut
    (what a person passes to the next command); ``drop``, the columns left out first, least
    important first. The others are cut (…) when dropping was not enough."""

    key: str
    drop: tuple[str, ...] = ()


GAP = 2  # cells between two columns
NARROWEST = 6  # a cut column keeps at least this many cells ("Ben…" says little less)


def fit_widths(headers: Sequence[str], natural: Sequence[int], width: int, fit: Fit) -> list[int]:
    """Each column's width in cells at a terminal ``width`` cells wide; 0 for a column left out."""
    widths = list(natural)

    def total() -> int:
        shown = [w for w in widths if w]
        return sum(shown) + GAP * (len(shown) - 1)

    for label in fit.drop:
        if total() <= width:
            break
        widths[headers.index(label)] = 0
    # Still too wide: a cell at a time from the widest column that may be cut.
    cuttable = [i for i, label in enumerate(headers) if label != fit.key and widths[i]]
    excess = total() - width
    while excess > 0:
        widest = max(cuttable, key=lambda i: widths[i], default=None)
        if widest is None or widths[widest] <= max(NARROWEST, cell_len(headers[widest])):
            break
        widths[widest] -= 1
        excess -= 1
    return widths


def _fitted(text: str, width: int) -> str:
    """``text`` padded, or cut with …, to exactly ``width`` cells."""
    size = cell_len(text)
    if size <= width:
        return text + " " * (width - size)
    return set_cell_size(text, width - 1) + "…"


def print_rows(
    headers: Sequence[str], rows: Iterable[Sequence[object]], *, out: TextIO, terminal: bool,
    width: int | None = None, fit: Fit | None = None, note: TextIO | None = None,
) -> None:
    """A table on a terminal (header, columns padded to the widest cell, fitted to ``width``
    cells as ``fit`` says); tab-separated lines, every column, otherwise."""
    cells = [[cell(v, terminal) for v in row] for row in rows]
    if not terminal:
        for row in cells:
            # A tab inside a value would split the field: clean() made it a space already.
            out.write("\t".join(row) + "\n")
        return
    # No column is measured wider than the terminal: a 10,000-character cell buys nothing.
    cap = width or 10_000
    natural = [cell_len(h) for h in headers]
    for row in cells:
        natural = [max(w, min(cell_len(v), cap)) for w, v in zip(natural, row, strict=True)]
    widths = fit_widths(headers, natural, width, fit) if width and fit else natural
    for row in [list(headers), *cells]:
        padded = [_fitted(v, w) for v, w in zip(row, widths, strict=True) if w]
        out.write("  ".join(padded).rstrip() + "\n")
    left_out = [h for h, w in zip(headers, widths, strict=True) if not w]
    if left_out and note is not None:
        note.write(f"(left out to fit {width} columns: {', '.join(left_out)}; piped or with --json "
                   "every column is printed)\n")


def print_pairs(pairs: Iterable[tuple[str, object]], *, out: TextIO, terminal: bool) -> None:
    """One record as ``label  value`` lines (aligned on a terminal, tab-separated when piped)."""
    # A label can be the server's too (a transcript's role, an extra ttsConfig key).
    items = [(clean(label, multiline=False), cell(value, terminal)) for label, value in pairs]
    width = max((cell_len(label) for label, _ in items), default=0)
    for label, value in items:
        if terminal:
            out.write(f"{label}{' ' * (width - cell_len(label))}  {value}".rstrip() + "\n")
        else:
            out.write(f"{label}\t{value}\n")
