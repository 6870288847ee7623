"""RowTable: a virtual table that stays fast with tens of thousands of rows.

Textual's DataTable measures every cell as rows are added, which makes re-filtering 10,000 rows
take a second. Here rows are kept as plain tuples, filtering only recomputes a list of indices,
and only the lines on screen are rendered.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from rich.cells import cell_len
from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual import events
from textual.binding import Binding
from textual.geometry import Region, Size
from textual.message import Message
from textual.reactive import reactive
from textual.scroll_view import ScrollView
from textual.strip import Strip
from textual.widget import Widget

from vap_console.tui import untrusted

Cell = str | Text


@dataclass(frozen=True)
class Column:
    label: str
    # Widest the column grows to while other columns need the room; beyond that, spare width
    # goes to the columns this cap cut short, then the last column takes what is left.
    max_width: int = 40
    min_width: int = 4


@dataclass(frozen=True)
class Row:
    key: str
    cells: tuple[Cell, ...]
    # Lower-cased text the filter matches against, computed once.
    search: str = ""


def make_row(key: str, cells: Sequence[Cell], extra: str = "") -> Row:
    # Cells are server data: shown literally on one line (a newline would break the row).
    cells = [untrusted.clean_text(c, multiline=False) if isinstance(c, Text) else untrusted.clean(c, multiline=False)
             for c in cells]
    plain = " ".join(c.plain if isinstance(c, Text) else c for c in cells)
    return Row(key, tuple(cells), f"{plain} {extra}".lower())


class RowTable(ScrollView, can_focus=True):
    """A header line and a cursor over rows; posts Highlighted and Selected with the row key."""

    BINDINGS = [
        Binding("up,k", "cursor(-1)", "Up", show=False, id="rows.up"),
        Binding("down,j", "cursor(1)", "Down", show=False, id="rows.down"),
        Binding("pageup", "page(-1)", "Page up", show=False, id="rows.page_up"),
        Binding("pagedown", "page(1)", "Page down", show=False, id="rows.page_down"),
        Binding("home", "first", "First", show=False, id="rows.first"),
        Binding("end", "last", "Last", show=False, id="rows.last"),
        Binding("enter", "select", "Open", show=False, id="rows.select"),
    ]

    COMPONENT_CLASSES = {"rowtable--header", "rowtable--cursor", "rowtable--odd"}

    DEFAULT_CSS = """
    RowTable {
        height: 1fr;
        overflow-x: hidden;
        scrollbar-gutter: stable;
    }
    RowTable > .rowtable--header { text-style: bold; color: $text-accent; }
    RowTable > .rowtable--cursor { background: $surface-lighten-2; }
    RowTable:focus > .rowtable--cursor { background: $accent 40%; text-style: bold; }
    RowTable > .rowtable--odd { background: $surface-darken-1 30%; }
    """

    cursor = reactive(0, always_update=True, repaint=False)

    class Highlighted(Message):
        def __init__(self, table: RowTable, key: str | None) -> None:
            super().__init__()
            self.table = table
            self.key = key

        @property
        def control(self) -> RowTable:
            return self.table

    class Selected(Message):
        def __init__(self, table: RowTable, key: str) -> None:
            super().__init__()
            self.table = table
            self.key = key

        @property
        def control(self) -> RowTable:
            return self.table

    def __init__(self, columns: Sequence[Column], *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self.columns = tuple(columns)
        self._rows: list[Row] = []
        self._searches: list[str] = []
        self._visible: list[int] = []
        self._query = ""
        self._natural: list[int] = [len(c.label) for c in self.columns]
        self._widths: list[int] = list(self._natural)
        self._layout_width = -1
        self._last_key: str | None = None
        self._paint_styles: tuple[Style, Style, Style, Style] | None = None

    # --- data ---

    @property
    def row_count(self) -> int:
        return len(self._visible)

    @property
    def total_count(self) -> int:
        return len(self._rows)

    @property
    def filter_text(self) -> str:
        """The filter in force, lower-cased (Widget.query is Textual's: never shadow it)."""
        return self._query

    def set_rows(self, rows: Sequence[Row], keep_key: str | None = None) -> None:
        # The key under the cursor is read before the old rows go.
        keep_key = keep_key if keep_key is not None else self.cursor_key
        self._rows = list(rows)
        self._searches = [row.search for row in self._rows]
        natural = [len(c.label) for c in self.columns]
        for row in self._rows:
            for i, cell in enumerate(row.cells):
                n = cell.cell_len if isinstance(cell, Text) else len(cell)
                if n > natural[i]:
                    natural[i] = n
        self._natural = natural
        self._apply_filter(keep_key)

    def filter(self, query: str) -> None:
        previous, self._query = self._query, query.strip().lower()
        narrowing = bool(previous) and self._query.startswith(previous) and (
            len(previous.split()) == len(self._query.split()) or previous.endswith(" ")
        )
        self._apply_filter(self.cursor_key, narrowing)

    def _apply_filter(self, keep_key: str | None, narrowing: bool = False) -> None:
        words = self._query.split()
        # Typing on narrows what is already shown, so only those rows need checking again.
        candidates = self._visible if narrowing else range(len(self._rows))
        searches = self._searches
        for word in words:
            candidates = [i for i in candidates if word in searches[i]]
        self._visible = list(candidates)
        rows = self._rows
        index = 0
        if keep_key is not None:
            for n, i in enumerate(self._visible):
                if rows[i].key == keep_key:
                    index = n
                    break
        self._layout()
        self.cursor = index

    @property
    def cursor_key(self) -> str | None:
        if 0 <= self.cursor < len(self._visible):
            return self._rows[self._visible[self.cursor]].key
        return None

    @property
    def keys(self) -> list[str]:
        return [self._rows[i].key for i in self._visible]

    def row_text(self, n: int) -> list[str]:
        """The cells of visible row n as plain strings (for tests and copying)."""
        row = self._rows[self._visible[n]]
        return [c.plain if isinstance(c, Text) else c for c in row.cells]

    def move_to_key(self, key: str) -> None:
        for n, i in enumerate(self._visible):
            if self._rows[i].key == key:
                self.cursor = n
                return

    # --- layout ---

    def _layout(self) -> None:
        # Widths are worked out at render time, when the real width is known (a hidden table has none).
        self._layout_width = -1
        size = Size(self.scrollable_content_region.width, len(self._visible) + 1)
        if size != self.virtual_size:
            # Rows come and go with each filter keystroke; a layout of the whole screen every time
            # would cost more than the filtering. The scrollbar gutter is stable, so only the
            # scrollbar and this widget need updating.
            self.set_reactive(Widget.virtual_size, size)
            self._scroll_update(size)
        self.refresh()

    def _fit(self, width: int) -> list[int]:
        if width == self._layout_width:
            return self._widths
        widths = [max(c.min_width, min(n, c.max_width)) for c, n in zip(self.columns, self._natural)]
        spare = width - sum(widths) - (len(widths) - 1)
        # Too wide: take a cell at a time from the column with the most to give.
        while spare < 0 and widths:
            n = max(range(len(widths)), key=lambda i: widths[i] - self.columns[i].min_width)
            if widths[n] <= self.columns[n].min_width:
                break
            widths[n] -= 1
            spare += 1
        # Room left: first to the columns their cap cut short, so no text is cut beside blank space.
        for i, natural in enumerate(self._natural):
            if spare <= 0:
                break
            grow = min(spare, natural - widths[i])
            if grow > 0:
                widths[i] += grow
                spare -= grow
        if widths and spare > 0:
            widths[-1] += spare
        self._widths = widths
        self._layout_width = width
        return widths

    def on_resize(self, event: events.Resize) -> None:
        self._layout()

    # --- cursor ---

    def validate_cursor(self, value: int) -> int:
        return max(0, min(value, len(self._visible) - 1)) if self._visible else 0

    def watch_cursor(self, old: int, new: int) -> None:
        self._scroll_to_cursor()
        self.refresh()
        key = self.cursor_key
        if key != self._last_key:
            self._last_key = key
            self.post_message(self.Highlighted(self, key))

    def _scroll_to_cursor(self) -> None:
        height = self.scrollable_content_region.height - 1
        if height <= 0:
            return
        top = int(self.scroll_y)
        if self.cursor < top:
            self.scroll_to(y=self.cursor, animate=False, immediate=True)
        elif self.cursor >= top + height:
            self.scroll_to(y=self.cursor - height + 1, animate=False, immediate=True)

    def action_cursor(self, delta: int) -> None:
        self.cursor += delta

    def action_page(self, direction: int) -> None:
        self.cursor += direction * max(self.scrollable_content_region.height - 2, 1)

    def action_first(self) -> None:
        self.cursor = 0

    def action_last(self) -> None:
        self.cursor = len(self._visible) - 1

    def action_select(self) -> None:
        key = self.cursor_key
        if key is not None:
            self.post_message(self.Selected(self, key))

    def on_click(self, event: events.Click) -> None:
        if event.y == 0:
            return
        n = int(self.scroll_y) + event.y - 1
        if 0 <= n < len(self._visible):
            self.cursor = n
            if event.chain >= 2:
                self.action_select()

    # --- rendering ---

    def _line_styles(self) -> tuple[Style, Style, Style, Style]:
        """(row, header, odd row, what the cursor adds)."""
        base = self.rich_style
        return (
            base,
            base + self.get_component_rich_style("rowtable--header"),
            base + self.get_component_rich_style("rowtable--odd"),
            self.get_component_rich_style("rowtable--cursor"),
        )

    def render_lines(self, crop: Region) -> list[Strip]:
        # The styles are the same for every line of one paint; looking them up per line (each
        # walks the widget's ancestors) was a fifth of a filter keystroke.
        self._paint_styles = self._line_styles()
        try:
            return super().render_lines(crop)
        finally:
            self._paint_styles = None

    def render_line(self, y: int) -> Strip:
        width = self.scrollable_content_region.width
        base, header, odd, cursor = self._paint_styles or self._line_styles()
        if y == 0:
            return self._strip([c.label for c in self.columns], header, width)
        n = int(self.scroll_y) + y - 1
        if n >= len(self._visible):
            return Strip.blank(width, base)
        row = self._rows[self._visible[n]]
        style = odd if n % 2 else base
        if n == self.cursor:
            style += cursor
        return self._strip(row.cells, style, width)

    def _strip(self, cells: Sequence[Cell], style: Style, width: int) -> Strip:
        widths = self._fit(width)
        if not any(isinstance(cell, Text) for cell in cells):
            # Plain cells (most rows) make one segment: this is what keeps filtering fast.
            line = " ".join(
                (c if len(c) <= w else c[: max(w - 1, 0)] + "…").ljust(w)
                for c, w in zip(cells, widths)  # type: ignore[union-attr]
            )
            line = line[:width].ljust(width) if cell_len(line) == len(line) else line
            return Strip([Segment(line, style)]).adjust_cell_length(width, style)
        segments: list[Segment] = []
        for i, (cell, w) in enumerate(zip(cells, widths)):
            if i:
                segments.append(Segment(" ", style))
            if isinstance(cell, Text):
                text = cell.copy()
                text.truncate(w, overflow="ellipsis", pad=True)
                segments.extend(
                    Segment(seg.text, style + seg.style if seg.style else style)
                    for seg in text.render(self.app.console)
                    if seg.text
                )
            else:
                if len(cell) > w:
                    cell = cell[: max(w - 1, 0)] + "…"
                segments.append(Segment(cell.ljust(w), style))
        return Strip(segments).adjust_cell_length(width, style)
