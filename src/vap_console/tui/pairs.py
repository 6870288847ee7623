"""Label/value lines for detail panes: labels in a column, values wrapped beside them.

What ``rich.table.Table.grid`` drew for the detail panes, without measuring every cell twice: a
grid took 15–20 ms to draw one rental's detail, redrawn on each cursor move; this takes about 1.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from rich.cells import cell_len
from rich.console import Console, ConsoleOptions, RenderResult
from rich.measure import Measurement
from rich.text import Text

from vap_console.tui import untrusted


class Pairs:
    def __init__(self, rows: Iterable[tuple[str, str | Text]], *, label_style: str = "bold", gap: int = 2) -> None:
        # Labels and values may both come from the server (an event's keys, say): shown literally.
        self.rows: Sequence[tuple[str, Text]] = [
            (untrusted.clean(label, multiline=False),
             untrusted.clean_text(value) if isinstance(value, Text) else untrusted.text(value))
            for label, value in rows
        ]
        self.label_style = label_style
        self.gap = gap
        self._label_width = max((cell_len(label) for label, _ in self.rows), default=0)

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        width = options.max_width
        # Labels never wrap; on a very narrow pane they give up width before the values do.
        label_width = min(self._label_width, max(width // 2, 1))
        value_width = max(width - label_width - self.gap, 1)
        indent = " " * (label_width + self.gap)
        for label, value in self.rows:
            head = Text(label, end="")
            head.truncate(label_width, overflow="ellipsis", pad=True)
            head.stylize(self.label_style)  # the label only: the Text's own style would reach the value
            head.append(" " * self.gap)
            lines = value.wrap(console, value_width, overflow="fold") if value.plain else [Text()]
            for number, line in enumerate(lines):
                out = head.copy() if number == 0 else Text(indent)
                out.append_text(line)
                out.no_wrap, out.overflow, out.end = True, "crop", "\n"
                yield out

    def __rich_measure__(self, console: Console, options: ConsoleOptions) -> Measurement:
        widest = max((value.cell_len for _, value in self.rows), default=0)
        return Measurement(self._label_width + self.gap + 1, self._label_width + self.gap + widest)
