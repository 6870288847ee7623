"""The baseline for bench/tui.py: a bare Textual app showing a DataTable of the given rows.

    python -m bench._bare_table ROWS.json

Reads [[cell, ...], ...] (first row: the headers) and shows them; q quits.
"""

from __future__ import annotations

import json
import sys

from textual.app import App, ComposeResult
from textual.widgets import DataTable


class BareTable(App[None]):
    BINDINGS = [("q", "quit", "Quit")]

    def __init__(self, rows: list[list[str]]) -> None:
        super().__init__()
        self.rows = rows

    def compose(self) -> ComposeResult:
        yield DataTable()

    def on_mount(self) -> None:
        table = self.query_one(DataTable)
        table.add_columns(*self.rows[0])
        table.add_rows(self.rows[1:])


if __name__ == "__main__":
    with open(sys.argv[1], encoding="utf-8") as fh:
        BareTable(json.load(fh)).run()
