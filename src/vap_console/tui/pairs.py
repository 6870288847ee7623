"""Label/value lines for detail panes: labels in a column, values wrapped beside them.

What ``rich.table.Table.grid`` drew for the detail panes, without measuring every cell twice: a
grid took 15–20 ms to draw one rental's detail, redrawn on each cursor move; this takes about 1.

A detail pane is redrawn on every cursor move, so what it shows is bounded whatever the server
sends: a value shows its first ``MAX_CHARS`` characters (or ``MAX_LINES`` lines) and says how many
more there are (``cap_text``); a long list of entries (a rental's events, its compliance history)
shows its first and last ``MAX_ROWS // 2`` and counts the rest; ``capped`` does the same to the
Texts of a whole detail. Wrapping a 10,000-character description took tens of milliseconds a
cursor move, a voice engine's thirty of them seconds. ``Rendered`` wraps a detail once;
``DetailView`` shows it scrolling itself, so a new item needs no layout of the screen.
"""

from __future__ import annotations

import sys
import time
import unicodedata
from collections.abc import Callable, Iterable, Sequence
from typing import Any, TypeVar

from rich.cells import cell_len
from rich.console import Console, ConsoleOptions, ConsoleRenderable, Group, RenderableType, RenderResult, RichCast
from rich.measure import Measurement
from rich.segment import Segment
from rich.text import Text
from textual import events
from textual._context import active_app
from textual.containers import ScrollableContainer
from textual.content import Content
from textual.css.styles import RulesMap
from textual.geometry import Size
from textual.scroll_view import ScrollView
from textual.strip import Strip
from textual.style import Style as VisualStyle
from textual.visual import RenderOptions, Visual, VisualType
from textual.widget import Widget
from textual.widgets import Static

from vap_console.tui import untrusted
from vap_console.tui.slices import SLICE, spare_time

T = TypeVar("T")

MAX_CHARS = 1_000
MAX_LINES = 24
MAX_ROWS = 40
MAX_LABEL = 100
MORE_STYLE = "dim italic"


def _joins(char: str) -> bool:
    """Whether ``char`` belongs to the character before it (a mark, a joiner, a selector)."""
    return char in "\u200c\u200d\ufe0f" or unicodedata.category(char) in ("Mn", "Mc", "Me")


def cut_point(plain: str, max_chars: int = MAX_CHARS, max_lines: int = MAX_LINES) -> int:
    """Where ``plain`` is cut to show at most ``max_chars`` characters and ``max_lines`` lines
    (``len(plain)`` when it fits), never inside a character's marks or a joined emoji."""
    cut = min(len(plain), max_chars)
    newline = -1
    for _ in range(max_lines):
        newline = plain.find("\n", newline + 1, cut)
        if newline < 0:
            break
    else:
        cut = newline
    if cut >= len(plain):
        return len(plain)
    while cut > 0 and (_joins(plain[cut]) or plain[cut - 1] == "\u200d"):
        cut -= 1
    return cut


def more(count: int, what: str = "characters") -> Text:
    return Text(f"… {count:,} more {what}", style=MORE_STYLE)


def cap_text(text: Text | str, max_chars: int = MAX_CHARS, max_lines: int = MAX_LINES) -> Text:
    """``text`` up to the caps, then a dim "… N more characters". A string is cut before it
    becomes a Text (a Text of 10,000 characters costs a pass over all of them to make)."""
    plain = text.plain if isinstance(text, Text) else text
    if len(plain) <= max_chars and plain.count("\n", 0, max_chars) < max_lines:
        return text if isinstance(text, Text) else Text(text)
    cut = cut_point(plain, max_chars, max_lines)
    if cut >= len(plain):
        return text if isinstance(text, Text) else Text(text)
    shown = text[:cut] if isinstance(text, Text) else Text(plain[:cut])
    shown.rstrip()
    if shown.plain:
        shown.append(" ")
    shown.append_text(more(len(plain) - cut))
    return shown


def cap_string(value: str, max_chars: int = MAX_CHARS, max_lines: int = MAX_LINES) -> str:
    """A string up to the caps, then "… N more characters" (unstyled: for f-strings, labels)."""
    if len(value) <= max_chars and value.count("\n", 0, max_chars) < max_lines:
        return value
    cut = cut_point(value, max_chars, max_lines)
    if cut >= len(value):
        return value
    return f"{value[:cut].rstrip()} … {len(value) - cut:,} more characters"


def capped(renderable: Any) -> RenderableType:
    """A detail's renderable with every Text in it (a Group's parts too) capped."""
    if isinstance(renderable, Text):
        return cap_text(renderable)
    if isinstance(renderable, Group):
        return Group(*(capped(part) for part in renderable.renderables))
    return renderable  # Pairs cap themselves


def _style(style: str | VisualStyle) -> VisualStyle:
    return style if isinstance(style, VisualStyle) else VisualStyle.parse(style)  # the app's theme variables


class Drawn:
    """Textual Content made for a width, among a detail's Rich renderables: a rental's timeline
    wraps and indents itself and uses the theme's colours. A Rendered draws it with the pane's
    styles, as a widget of its own would have, ``indent`` cells in from each side. Printed with
    Rich (tests), it is its plain lines."""

    def __init__(self, make: Callable[[int], Content], *, indent: int = 0) -> None:
        self.make = make
        self.indent = indent
        self._made: tuple[int, Content] = (-1, Content())

    def content(self, width: int) -> Content:
        if self._made[0] != width:
            inner = max(width - 2 * self.indent, 1)
            pad = Content(" " * self.indent)
            lines = self.make(inner).wrap(inner)
            self._made = (width, Content("\n").join(pad + line for line in lines))
        return self._made[1]

    def renew(self) -> None:
        """Made again when next drawn (what it shows has aged: "3 min ago")."""
        self._made = (-1, Content())

    def strips(self, width: int, style: VisualStyle) -> list[Strip]:
        return self.content(width).render_strips(width, None, style, RenderOptions(_style, RulesMap()))

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        yield Text(self.content(options.max_width).plain)


def _units(renderable: RenderableType) -> list[RenderableType]:
    """``renderable`` cut where its lines break anyway (after each part that ends its line, between
    the rows of a Pairs), so the part a pane shows can be drawn before the rest."""
    parts: list[RenderableType] = []

    def flatten(item: RenderableType) -> None:
        if isinstance(item, Group):
            for part in item.renderables:
                flatten(part)
        else:
            parts.append(item)

    flatten(renderable)
    units: list[RenderableType] = []
    pending: list[RenderableType] = []
    for part in parts:
        if isinstance(part, Pairs) and not pending:
            units += [_PairsRow(part, i) for i in range(len(part.rows))]
            continue
        pending.append(part)
        if not (isinstance(part, Text) and not part.end.endswith("\n")):  # it ends its line
            units.append(pending[0] if len(pending) == 1 else Group(*pending))
            pending = []
    if pending:
        units.append(Group(*pending))
    return units


class Rendered(Visual):
    """A detail pane's content, wrapped once per width and kept as lines.

    Textual draws a Static's Rich renderable to find its height, then again to paint it, and
    again at each layout the pane's scrollbar sets off: three to five times a cursor move, every
    line each time. This draws it once for the pane's width; heights and paints read the lines.
    It is drawn a part at a time (``first_lines``): a DetailView draws what it shows first and the
    rest in spare time. Drawn parts are drawn as Textual Content. Printed with Rich (tests), it is
    the renderable itself.
    """

    def __init__(self, renderable: RenderableType) -> None:
        self.renderable = renderable
        self._lines: tuple[int, list[list[Segment]]] = (-1, [])
        self._units = _units(renderable)
        self._key: tuple[int, object] = (-1, None)
        self._strips: list[Strip] = []
        self._next = 0  # the first unit not drawn yet

    def lines(self, width: int) -> list[list[Segment]]:
        if self._lines[0] != width:
            self._lines = (width, self._render_lines(self.renderable, width))
        return self._lines[1]

    @staticmethod
    def _render_lines(renderable: RenderableType, width: int) -> list[list[Segment]]:
        app = active_app.get()
        options = app.console_options.update(highlight=False, width=width, height=None)
        return app.console.render_lines(renderable, options, pad=False, new_lines=False)

    def render_strips(self, width: int, height: int | None, style: VisualStyle, options: RenderOptions) -> list[Strip]:
        strips = self.styled_lines(width, style)
        return strips if height is None else strips[:height]

    @property
    def complete(self) -> bool:
        """Whether every line is drawn (at the width and style last asked for)."""
        return self._next >= len(self._units)

    def first_lines(self, width: int, style: VisualStyle, count: int) -> list[Strip]:
        """The lines at this width in this style, drawn until there are ``count`` or all are
        (kept, and drawn on from there, for the next call with the same two)."""
        if self._key != (width, style):
            self._key, self._strips, self._next = (width, style), [], 0
        units, strips = self._units, self._strips
        base = style.rich_style
        while self._next < len(units) and len(strips) < count:
            unit = units[self._next]
            self._next += 1
            if isinstance(unit, Drawn):
                strips += unit.strips(width, style)
            else:
                strips += [Strip(Segment.apply_style(line, base)) for line in self._render_lines(unit, width)]
        return strips

    def draw_more(self, width: int, style: VisualStyle) -> None:
        """Draw the next part not drawn yet."""
        self.first_lines(width, style, len(self._strips) + 1 if self._key == (width, style) else 0)

    def styled_lines(self, width: int, style: VisualStyle) -> list[Strip]:
        """Every line at this width in this style."""
        return self.first_lines(width, style, sys.maxsize)

    def renew(self) -> None:
        """Draw again (the Drawn parts made again: what they show has aged)."""
        for unit in self._units:
            if isinstance(unit, Drawn):
                unit.renew()
        self._key = (-1, None)

    def get_optimal_width(self, rules: RulesMap, container_width: int) -> int:
        return container_width  # a detail pane's content fills the pane

    def get_height(self, rules: RulesMap, width: int) -> int:
        return len(self.lines(width))

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        yield self.renderable

    def __rich_measure__(self, console: Console, options: ConsoleOptions) -> Measurement:
        return Measurement.get(console, options, self.renderable)


class DetailView(ScrollView, Static, can_focus=True):
    """A detail pane's body that scrolls itself and draws only the lines on screen.

    A Static in the pane's VerticalScroll changed height with each item, and every change laid out
    the whole screen twice (the Static's height, then the pane's scroll size): two full repaints
    a cursor move. This view fills the pane whatever it shows, so a new item changes a scroll size
    only, as the row table does (its scrollbar's column is kept, drawn only when needed). It is
    still a Static to whoever holds it (``update``, ``content``), so code that knows the pane's body
    as one keeps working.
    """

    # The scrollbar's column is always there, its bar drawn only when there is more to scroll
    # (-fits): a scrollbar that came and went laid the screen out on each cursor move.
    DEFAULT_CSS = """
    DetailView { height: 100%; overflow-x: hidden; overflow-y: scroll; }
    DetailView.-fits {
        scrollbar-background: transparent; scrollbar-background-hover: transparent;
        scrollbar-background-active: transparent; scrollbar-color: transparent;
        scrollbar-color-hover: transparent; scrollbar-color-active: transparent;
    }
    """

    def __init__(self, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self._rendered = Rendered(Text())

    # Static's `content` and `update`, kept with Static's types (a DetailView is a Static to whoever
    # holds it); what it stores is a Rich renderable.
    @property
    def content(self) -> VisualType:
        """What the pane shows (a Rich renderable: tests print it)."""
        return self._rendered.renderable

    @content.setter
    def content(self, content: VisualType) -> None:
        self.update(content)

    def update(self, content: VisualType = "", *, layout: bool = False) -> None:
        if isinstance(content, Rendered):
            self._rendered = content
        elif isinstance(content, str):
            self._rendered = Rendered(Text(content))
        elif isinstance(content, ConsoleRenderable | RichCast):
            self._rendered = Rendered(content)
        else:
            raise TypeError(f"a detail pane shows Rich renderables, not {type(content).__name__}")
        self.scroll_to(0, 0, animate=False, immediate=True)
        self._resize_content()

    def renew(self) -> None:
        """Draw what has aged again (a timeline's "3 min ago"), where the pane is scrolled to."""
        self._rendered.renew()
        self._resize_content()

    def _resize_content(self) -> None:
        region = self.scrollable_content_region
        width, rendered = region.width, self._rendered
        height = 0
        if width > 0:
            # What the pane shows first (two panes' worth from where it is scrolled); the rest is
            # drawn in spare time, and the scroll size grows to it then.
            height = len(rendered.first_lines(width, self.visual_style, int(self.scroll_y) + 2 * region.height))
            if not rendered.complete:
                height += 1  # more to come
                self.run_worker(self._draw_rest(rendered), group="detail-rest")
        self.set_class(rendered.complete and height <= region.height, "-fits")
        size = Size(width, height)
        if size == self.virtual_size:
            self.refresh()
            return
        # The view fills the pane whatever it shows, its scrollbar always there: only its scroll
        # size changes (no layout of the screen).
        self.set_reactive(Widget.virtual_size, size)
        self._scroll_update(size)
        self.refresh()

    async def _draw_rest(self, rendered: Rendered) -> None:
        started = time.perf_counter()
        while not rendered.complete:
            width = self.scrollable_content_region.width
            if rendered is not self._rendered or width <= 0:
                return  # another item is shown, or the pane is not (the next resize draws it)
            rendered.draw_more(width, self.visual_style)
            if time.perf_counter() - started > SLICE:
                await spare_time()
                started = time.perf_counter()
        if rendered is self._rendered:
            self._resize_content()

    def on_mount(self) -> None:
        # The pane around it no longer scrolls (this view fills it at most): Tab and the scroll
        # keys come here instead.
        if isinstance(self.parent, ScrollableContainer):
            self.parent.can_focus = False

    def on_resize(self, event: events.Resize) -> None:
        self._resize_content()

    def render_line(self, y: int) -> Strip:
        width = self.scrollable_content_region.width
        style = self.visual_style
        n = int(self.scroll_y) + y
        strips = self._rendered.first_lines(width, style, n + 1)
        if n < len(strips):
            strip = strips[n]
            # Not padded here: the widget's own padding fills the rest, as it does for a Static.
            return strip.crop(0, width) if strip.cell_length > width else strip
        return Strip.blank(width, style.rich_style)


def first_and_last(items: Sequence[T], max_rows: int = MAX_ROWS) -> tuple[list[T], list[T], int]:
    """The entries a pane shows of a long list (its first and last ``max_rows // 2``) and how many
    are left out: a caller formats only these, not thousands it would never show."""
    if len(items) <= max_rows:
        return list(items), [], 0
    half = max(max_rows // 2, 1)
    return list(items[:half]), list(items[-half:]), len(items) - 2 * half


def entry_rows(items: Sequence[T], row: Callable[[T], tuple[str, Text]]) -> Pairs:
    """Pairs of a long list of entries (events, history), formatting only the ones shown."""
    head, tail, hidden = first_and_last(items)
    rows = [row(item) for item in head]
    if hidden:
        rows.append(("…", more(hidden, "entries")))
    rows += [row(item) for item in tail]
    return Pairs(rows, label_style="dim", gap=1, max_rows=len(rows))


class Pairs:
    def __init__(self, rows: Iterable[tuple[str, str | Text]], *, label_style: str = "bold", gap: int = 2,
                 max_rows: int = MAX_ROWS) -> None:
        rows = list(rows)
        hidden = 0
        if len(rows) > max_rows:
            # The first and the last entries (a timeline's start and its latest news), the rest counted.
            half = max(max_rows // 2, 1)
            hidden = len(rows) - 2 * half
            rows = [*rows[:half], ("…", more(hidden, "entries")), *rows[-half:]]
        # Labels and values may both come from the server (an event's keys, say): shown literally,
        # and only as much of them as a pane can use.
        self.rows: Sequence[tuple[str, Text]] = [
            (untrusted.clean(label[:MAX_LABEL], multiline=False),
             cap_text(untrusted.clean_text(value) if isinstance(value, Text) else untrusted.clean(value)))
            for label, value in rows
        ]
        self.hidden = hidden
        self.label_style = label_style
        self.gap = gap
        self._label_width = max((cell_len(label) for label, _ in self.rows), default=0)

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        for label, value in self.rows:
            yield from self.row_lines(console, options.max_width, label, value)

    def row_lines(self, console: Console, width: int, label: str, value: Text) -> Iterable[Text]:
        """One row's lines at ``width``, its label in the column all the rows share."""
        # Labels never wrap; on a very narrow pane they give up width before the values do.
        label_width = min(self._label_width, max(width // 2, 1))
        value_width = max(width - label_width - self.gap, 1)
        indent = " " * (label_width + self.gap)
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


class _PairsRow:
    """One row of a Pairs, drawn on its own (Rendered draws a detail a part at a time)."""

    def __init__(self, pairs: Pairs, index: int) -> None:
        self.pairs, self.index = pairs, index

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        label, value = self.pairs.rows[self.index]
        yield from self.pairs.row_lines(console, options.max_width, label, value)
