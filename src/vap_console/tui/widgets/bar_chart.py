"""A bar chart drawn by textual-plotext, in a thread, once for each set of bars, size and theme.

plotext draws in Python, some 20 ms a chart, and PlotextPlot draws on the UI loop on every paint:
a Spend screen with two charts held ``c`` for 40 ms each time it was shown. This chart draws in a
worker thread with a plotext figure of its own (nothing shared with the loop), keeps what it drew
with what it drew it from, and paints that: a paint with nothing new costs nothing, and until the
first drawing lands the chart is blank. Importing this module imports textual-plotext (an optional
extra): import it where its absence is handled.
"""

from __future__ import annotations

import asyncio
import math
from concurrent.futures import ThreadPoolExecutor

from rich.console import Console
from rich.text import Text
from textual import events, on
from textual.geometry import Size
from textual.message import Message
from textual.strip import Strip
from textual_plotext import PlotextPlot
from textual_plotext.plot import Plot

# The thread charts are drawn in: one for all of them, started before a chart is first shown
# (``start_drawer``); Textual's thread workers started a thread on the UI loop, which then waited
# for it to run (tens of ms with the machine busy).
_drawer = ThreadPoolExecutor(max_workers=1, thread_name_prefix="vap-charts")


def start_drawer() -> None:
    """Off the UI loop, before a chart is first shown: the drawing thread, started."""
    _drawer.submit(lambda: None).result()


# What a drawing is made from: (labels, values), the size, the plotext theme.
Bars = tuple[tuple[str, ...], tuple[float, ...]]
Key = tuple[Bars, Size, str]


def draw(title: str, key: Key) -> list[Strip]:
    """In a worker thread: the chart for ``key``, line by line as the widget paints it (turning
    the text into lines on the loop cost as much again as drawing it)."""
    (labels, values), size, theme = key
    plot = Plot()
    positions: list[float] = list(range(len(values)))
    # A tick a week (a fortnight when the chart is narrow), counted back from the last: the last
    # is always labelled, and no two labels crowd each other. Given crowded labels plotext drops
    # some, and which depends on the order of a set: the same chart drew differently from one
    # process to the next (PYTHONHASHSEED 4 and 5 against 1 and 2, at 40 columns).
    room = max(1, size.width - 8) // (max((len(label) for label in labels), default=1) + 3)
    weeks = max(1, math.ceil(len(positions[::-7]) / max(1, room)))
    ticks = positions[::-7 * weeks][::-1]
    plot.bar(positions, list(values), width=0.6)
    plot.title(title)
    plot.xticks(ticks, [labels[int(i)] for i in ticks])
    # Whole numbers on the axis, at most five of them (half a call is no count anyone made), and
    # the axis ends at the first tick at or over the tallest bar: one call a day fills the chart
    # instead of a quarter of it.
    tallest = max(values, default=0)
    step = max(1, math.ceil(tallest / 4))
    ticks_y: list[float] = list(range(0, step * max(1, math.ceil(tallest / step)) + 1, step))
    plot.ylim(0, ticks_y[-1])
    plot.yticks(ticks_y)
    # As PlotextPlot.render sizes its figure (both calls: plotext needs the second).
    plot.plotsize(size.width, size.height)
    plot._set_size(size.width, size.height)
    plot.theme(theme)
    console = Console(width=size.width, color_system="truecolor", force_terminal=True, legacy_windows=False)
    options = console.options.update(width=size.width, no_wrap=True, overflow="crop")
    return [Strip(line, size.width) for line in console.render_lines(Text.from_ansi(plot.build()), options, pad=True)]


class BarChart(PlotextPlot):
    class Drawn(Message):
        def __init__(self, key: Key, lines: list[Strip]) -> None:
            super().__init__()
            self.key = key
            self.lines = lines

    def __init__(self, title: str, *, id: str | None = None) -> None:  # `id`: Textual's name
        super().__init__(id=id)
        self._title = title
        self._bars: Bars | None = None
        self._drawn: tuple[Key, list[Strip]] | None = None
        self._drawing: Key | None = None

    def show_bars(self, labels: list[str], values: list[float]) -> None:
        """One bar a value, the last labelled and every seventh back from it."""
        self._bars = (tuple(labels), tuple(values))
        self._draw_if_needed()

    def _key(self) -> Key | None:
        if self._bars is None or not self.size:
            return None
        return (self._bars, self.size, self._get_plotext_theme_name(self.app.theme))

    def _draw_if_needed(self) -> None:
        key = self._key()
        if key is None or key == self._drawing or (self._drawn is not None and self._drawn[0] == key):
            return
        self._drawing = key
        self.run_worker(self._draw(key), group="draw", exclusive=True, exit_on_error=False)

    async def _draw(self, key: Key) -> None:
        lines = await asyncio.get_running_loop().run_in_executor(_drawer, draw, self._title, key)
        self.post_message(self.Drawn(key, lines))

    def on_resize(self, event: events.Resize) -> None:
        self._draw_if_needed()

    @on(Drawn)
    def _landed(self, message: Drawn) -> None:
        if message.key == self._drawing:
            self._drawing = None
        if message.key == self._key():
            # Under plotext's colours, the widget's own, as Textual paints any content.
            base = self.rich_style
            self._drawn = (message.key, [line.apply_style(base) for line in message.lines])
            self.refresh()

    def render_line(self, y: int) -> Strip:
        if y == 0:
            self._draw_if_needed()  # the theme changed (the bars and the size say so themselves)
        if self._drawn is not None and y < len(self._drawn[1]):
            return self._drawn[1][y]
        return Strip.blank(self.size.width, self.rich_style)
