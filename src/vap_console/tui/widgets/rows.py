"""RowTable: a virtual table that stays fast with tens of thousands of rows.

Textual's DataTable measures every cell as rows are added, which makes re-filtering 10,000 rows
take a second. Here rows are kept as plain tuples, filtering only recomputes a list of indices,
and only the lines on screen are rendered.

Widths are display cells, not characters: a CJK character or an emoji takes two cells, a
Devanagari vowel sign or virama none, so every cell is cut and padded to its column's width in
cells (``fit_cell``) and the separators line up whatever the script. Plain ASCII, which most cells
are, keeps a path that never measures.

Building the rows of a large page (``make_row`` for each item, then ``prepare_rows`` for their
search strings and natural widths) needs no widget: a screen does it off the UI loop and hands the
``RowSet`` to ``set_rows``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from rich.cells import cell_len, set_cell_size
from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual import events
from textual.binding import Binding
from textual.geometry import Region, Size
from textual.message import Message
from textual.reactive import reactive
from textual.scroll_view import ScrollView
from textual.scrollbar import ScrollBar
from textual.strip import Strip
from textual.widget import Widget

from vap_console.tui import untrusted
from vap_console.tui.widgets.no_relayout import TableScrollBar

Cell = str | Text


@dataclass(frozen=True)
class Column:
    label: str
    # Widest the column grows to while other columns need the room; beyond that, spare width
    # goes to the columns this cap cut short, then the last column takes what is left.
    max_width: int = 40
    # Narrowest the column is still worth showing at; it is cut (…) no further.
    min_width: int = 4
    # When the columns do not all fit at their min_width, the one with the highest `drop` goes
    # first, then the next; 0: never dropped. Lets a narrow list keep what a person looks for
    # whole (a number, a name) rather than cut every column to "loc…".
    drop: int = 0
    # Never cut: the column's floor is its natural width (up to max_width), e.g. an E.164 number.
    whole: bool = False


@dataclass(frozen=True, slots=True)  # slots: one object less a row for the garbage collector
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


# No column is laid out wider than this many cells, however long its text: measuring a
# 10,000-character name in full would buy nothing.
NATURAL_CAP = 512


def _head(text: str, cells: int) -> tuple[str, int]:
    """A prefix of ``text`` that is all of it or wider than ``cells`` (by a grapheme's margin),
    and its width. Only the start of a long string is ever shown, so only that is measured."""
    end = 2 * cells + 8  # a character takes at most two cells, so this is enough unless marks abound
    while True:
        head = text[:end]
        width = cell_len(head)
        if end >= len(text) or width > cells + 2:
            return head, width
        end *= 2


def cell_width(cell: Cell, cap: int = NATURAL_CAP) -> int:
    """The cell's width in cells, up to ``cap`` (a little over, for a long one)."""
    plain = cell.plain if isinstance(cell, Text) else cell
    if plain.isascii():  # printable ASCII once cleaned: a cell a character
        return min(len(plain), cap + 1)
    return min(_head(plain, cap)[1], cap + 1)


def fit_cell(cell: str, width: int) -> str:
    """``cell`` cut (with …) or padded to exactly ``width`` cells."""
    if width <= 0:
        return ""
    if cell.isascii():
        size = len(cell)
        return cell + " " * (width - size) if size <= width else cell[: width - 1] + "…"
    head, size = _head(cell, width)
    if size <= width and len(head) == len(cell):
        return cell + " " * (width - size)
    # set_cell_size pads with a space where a wide character would straddle the cut.
    return set_cell_size(head, width - 1) + "…"


def fit_text(cell: Text, width: int) -> Text:
    """A styled cell cut (with …) or padded to exactly ``width`` cells."""
    plain = cell.plain
    if len(plain) > 2 * width + 8:
        # Cut before copying: only the start of a long cell can show.
        cell = cell[: len(_head(plain, width)[0])]
    text = cell.copy()
    text.truncate(width, overflow="ellipsis", pad=True)
    return text


@dataclass(frozen=True)
class RowSet:
    """Rows with what the table works out from all of them: search strings and natural widths."""

    rows: list[Row]
    searches: list[str]
    natural: list[int]

    def __len__(self) -> int:
        return len(self.rows)


class RowSetBuilder:
    """Collects rows and measures them as they come (no widget involved: a screen can add rows in
    slices while the UI stays responsive)."""

    def __init__(self, columns: Sequence[Column]) -> None:
        self.natural = [cell_len(c.label) for c in columns]
        self.rows: list[Row] = []
        self.searches: list[str] = []

    def add(self, row: Row) -> None:
        self.rows.append(row)
        self.searches.append(row.search)
        natural = self.natural
        for i, cell in enumerate(row.cells):
            n = len(cell) if type(cell) is str and cell.isascii() else cell_width(cell)
            if n > natural[i]:
                natural[i] = n

    def finish(self) -> RowSet:
        return RowSet(self.rows, self.searches, [min(n, NATURAL_CAP) for n in self.natural])


def prepare_rows(columns: Sequence[Column], rows: Sequence[Row]) -> RowSet:
    builder = RowSetBuilder(columns)
    for row in rows:
        builder.add(row)
    return builder.finish()


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
        self._natural: list[int] = [cell_len(c.label) for c in self.columns]
        self._widths: list[int] = list(self._natural)
        self._layout_width = -1
        self._last_key: str | None = None
        self._paint_styles: tuple[Style, Style, Style, Style] | None = None

    @property
    def vertical_scrollbar(self) -> ScrollBar:
        # Widget.vertical_scrollbar's, with a bar whose resizing lays nothing out again (no_relayout).
        if self._vertical_scrollbar is None:
            self._vertical_scrollbar = bar = TableScrollBar(
                vertical=True, name="vertical", thickness=self.scrollbar_size_vertical)
            bar.display = False
            self.app._start_widget(self, bar)
        return self._vertical_scrollbar

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

    def set_rows(self, rows: Sequence[Row] | RowSet, keep_key: str | None = None) -> list[object]:
        """Show these rows (a RowSet from prepare_rows costs next to nothing here). Returns what
        the rows replaced held (the caller may free it a slice at a time, see base.release)."""
        # The key under the cursor is read before the old rows go, and its neighbours in case the
        # new rows lack it (it was deleted): the cursor then goes to the row that followed it.
        keep_key = keep_key if keep_key is not None else self.cursor_key
        neighbours = self._neighbours() if keep_key == self.cursor_key else []
        prepared = rows if isinstance(rows, RowSet) else prepare_rows(self.columns, rows)
        replaced: list[object] = [*self._rows, *self._searches]
        self._rows = prepared.rows
        self._searches = prepared.searches
        self._natural = list(prepared.natural)
        self._apply_filter(keep_key, neighbours=neighbours)
        return replaced

    def _neighbours(self, reach: int = 50) -> list[str]:
        """The keys after the cursor's row, nearest first, then those before it, nearest first."""
        rows, visible, at = self._rows, self._visible, self.cursor
        after = [rows[i].key for i in visible[at + 1:at + 1 + reach]]
        before = [rows[i].key for i in reversed(visible[max(0, at - reach):max(0, at)])]
        return after + before

    def filter(self, query: str) -> None:
        previous, self._query = self._query, query.strip().lower()
        narrowing = bool(previous) and self._query.startswith(previous) and (
            len(previous.split()) == len(self._query.split()) or previous.endswith(" ")
        )
        self._apply_filter(self.cursor_key, narrowing)

    def _apply_filter(self, keep_key: str | None, narrowing: bool = False,
                      neighbours: Sequence[str] = ()) -> None:
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
            else:
                if neighbours:
                    position = {rows[i].key: n for n, i in enumerate(self._visible)}
                    index = next((position[k] for k in neighbours if k in position), 0)
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

    def _layout(self, repaint: bool = True) -> None:
        # Widths are worked out at render time, when the real width is known (a hidden table has none).
        self._layout_width = -1
        size = Size(self.scrollable_content_region.width, len(self._visible) + 1)
        if size != self.virtual_size:
            # Rows come and go with each filter keystroke; a layout of the whole screen every time
            # would cost more than the filtering. The scrollbar gutter is stable, so only the
            # scrollbar and this widget need updating.
            self.set_reactive(Widget.virtual_size, size)
            self._scroll_update(size)
        if repaint:
            self.refresh()

    def _floors(self) -> list[int]:
        """How narrow each column may be cut."""
        return [min(n, c.max_width) if c.whole else c.min_width for c, n in zip(self.columns, self._natural)]

    def shown_columns(self, width: int | None = None) -> list[str]:
        """The labels of the columns shown at ``width`` (the table's own by default)."""
        widths = self._fit(self.scrollable_content_region.width if width is None else width)
        return [c.label for c, w in zip(self.columns, widths) if w]

    def _fit(self, width: int) -> list[int]:
        """Each column's width in cells; 0 for a column dropped to make room."""
        if width == self._layout_width:
            return self._widths
        floors = self._floors()
        widths = [max(f, min(n, c.max_width)) for c, n, f in zip(self.columns, self._natural, floors)]
        shown = [True] * len(widths)

        def needed() -> int:
            kept = [f for f, keep in zip(floors, shown) if keep]
            return sum(kept) + len(kept) - 1

        # Not even the floors fit: drop columns, least important (highest `drop`) first.
        droppable = sorted((i for i, c in enumerate(self.columns) if c.drop), key=lambda i: -self.columns[i].drop)
        for i in droppable:
            if needed() <= width:
                break
            shown[i] = False
            widths[i] = 0
        live = [i for i, keep in enumerate(shown) if keep]
        spare = width - sum(widths) - (len(live) - 1)
        # Too wide: take a cell at a time from the column with the most to give.
        while spare < 0 and live:
            n = max(live, key=lambda i: widths[i] - floors[i])
            if widths[n] <= floors[n]:
                break
            widths[n] -= 1
            spare += 1
        # Room left: first to the columns their cap cut short, so no text is cut beside blank space.
        for i in live:
            if spare <= 0:
                break
            grow = min(spare, self._natural[i] - widths[i])
            if grow > 0:
                widths[i] += grow
                spare -= grow
        if live and spare > 0:
            widths[live[-1]] += spare
        self._widths = widths
        self._layout_width = width
        return widths

    def on_resize(self, event: events.Resize) -> None:
        # Textual repaints a widget whose size changed, in the frame that resized it; a refresh
        # from here came a frame later (the filter box shown or hidden: one frame more a key).
        self._layout(repaint=False)

    # --- cursor ---

    def validate_cursor(self, value: int) -> int:
        return max(0, min(value, len(self._visible) - 1)) if self._visible else 0

    def watch_cursor(self, old: int, new: int) -> None:
        top = self.scroll_y
        self._scroll_to_cursor()
        if self.scroll_y != top:
            self.refresh()
        else:
            # Only the two rows the cursor left and reached change (a full repaint of rows with long
            # or wide text cost ten times as much a key).
            for n in {old, new}:
                line = n - int(self.scroll_y) + 1
                if line >= 1:
                    self.refresh(Region(0, line, self.size.width, 1))
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
        # Every cell is made exactly its column's width in cells, so the line is sum(widths) plus
        # the separators wide, whatever the script, and the columns line up.
        widths = self._fit(width)[: len(cells)]  # a row with fewer cells than columns ends early
        if 0 in widths:  # columns dropped for want of room
            kept = [(c, w) for c, w in zip(cells, widths) if w]
            cells, widths = [c for c, _ in kept], [w for _, w in kept]
        used = max(sum(widths) + len(widths) - 1, 0)
        if not any(isinstance(cell, Text) for cell in cells):
            # Plain cells (most rows) make one segment: this is what keeps filtering fast.
            line = " ".join(fit_cell(c, w) for c, w in zip(cells, widths))  # type: ignore[arg-type]  # no Text among them: str
            if used < width:
                return Strip([Segment(line + " " * (width - used), style)], width)
            if used == width:
                return Strip([Segment(line, style)], width)
            return Strip([Segment(line, style)], used).adjust_cell_length(width, style)
        segments: list[Segment] = []
        for i, (cell, w) in enumerate(zip(cells, widths)):
            if i:
                segments.append(Segment(" ", style))
            if isinstance(cell, Text):
                segments.extend(
                    Segment(seg.text, style + seg.style if seg.style else style)
                    for seg in fit_text(cell, w).render(self.app.console)
                    if seg.text
                )
            else:
                segments.append(Segment(fit_cell(cell, w), style))
        return Strip(segments, used).adjust_cell_length(width, style)
