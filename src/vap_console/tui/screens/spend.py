"""Spend at a glance (``c`` on Calls): calls and credits a day over the last 30 days, charted
with textual-plotext, and the totals per agent and per kind, all from the calls ledger. ``a``
switches the charts to the answer times a day (p50 and p95, nearest-rank, of every answer measured
in the calls the console held that day: Talk, `vap agents talk` and `test`), and back.

Credits are what the last read of each call said (``creditsCharged``); a call never read again
counts as a call with no credits yet. Days are UTC days, as the ledger keeps them. Without
textual-plotext the screen says so in one sentence and still shows the totals.
"""

from __future__ import annotations

import contextlib
import importlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import date

from rich.table import Table
from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.message import Message
from textual.screen import Screen
from textual.widget import Widget
from textual.widgets import Static

from vap_console.ledger import DaySpend, Total
from vap_console.ledger.figures import DayAnswers
from vap_console.tui import untrusted
from vap_console.tui.call_book import CallBook
from vap_console.tui.widgets.key_bar import KeyBar

DAYS = 30
NO_CHART = ("The chart needs textual-plotext, which is not installed here (pip install textual-plotext); "
            "the totals below need nothing.")


def _minutes(seconds: float) -> str:
    whole = int(seconds)
    return f"{whole // 60}:{whole % 60:02d}"


def totals_table(title: str, totals: list[Total]) -> Table:
    table = Table(title=title, title_justify="left", box=None, pad_edge=False, expand=False)
    for name, justify in (("", "left"), ("calls", "right"), ("credits", "right"), ("time", "right")):
        table.add_column(name, justify=justify)  # type: ignore[arg-type]  # rich's JustifyMethod literals
    for total in totals:
        table.add_row(untrusted.text(total.name, multiline=False), str(total.calls), f"{total.credits:g}",
                      _minutes(total.seconds))
    if not totals:
        table.add_row(Text("no calls yet", style="dim"), "", "", "")
    return table


@dataclass(frozen=True)
class Spend:
    """What the screen shows, as read from the ledger (compared whole: unchanged, nothing is redrawn)."""

    days: tuple[DaySpend, ...]
    agents: tuple[Total, ...]
    kinds: tuple[Total, ...]
    answers: tuple[DayAnswers, ...] = ()


def read(book: CallBook, today: date | None) -> Spend:
    """In the ledger's thread."""
    ledger = book.ledger
    return Spend(tuple(ledger.per_day(DAYS, today=today)), tuple(ledger.totals("agent")),
                 tuple(ledger.totals("kind")), tuple(ledger.answers_per_day(DAYS, today=today)))


# The charts of each view, by id: what ``a`` switches between.
VIEWS = {"credits": ("chart-calls", "chart-credits"), "answers": ("chart-p50", "chart-p95")}
TITLES = {"credits": f"Spend · the last {DAYS} days (UTC), from this profile's calls",
          "answers": f"Answer times · the last {DAYS} days (UTC), p50 and p95 of the calls held here"}
# Each short enough for 80 columns; docs/calls.md says which calls are measured and how.
NO_ANSWERS = f"Answer times · none measured in the last {DAYS} days (UTC) by Talk or vap agents"


class SpendScreen(Screen[None]):
    """Shown again each time ``c`` is pressed (CallsScreen keeps it): the ledger is read again, off
    the UI loop, and what changed is redrawn."""

    LABEL = "Spend"
    BINDINGS = [
        Binding("escape,c,q", "app.pop_screen", "Back to calls", id="spend.back", tooltip="Return to the Calls list"),
        Binding("a", "show('answers')", "Answer times", id="spend.answers",
                tooltip="Chart the answer times a day (p50, p95) instead of calls and credits"),
        Binding("a", "show('credits')", "Calls & credits", id="spend.credits",
                tooltip="Chart the calls and credits a day again"),
    ]
    DEFAULT_CSS = """
    SpendScreen { layout: vertical; }
    SpendScreen #spend-title { height: 1; text-style: bold; padding: 0 1; }
    SpendScreen #spend-charts { height: 1fr; min-height: 8; }
    SpendScreen #spend-charts > * { width: 1fr; height: 1fr; }
    SpendScreen #spend-totals { height: auto; max-height: 45%; padding: 0 1; }
    SpendScreen #spend-totals > Static { width: 1fr; height: auto; }
    """

    class Read(Message):
        def __init__(self, spend: Spend) -> None:
            super().__init__()
            self.spend = spend

    def __init__(self, book: CallBook, *, today: Callable[[], date] | None = None) -> None:
        super().__init__()
        self.book = book
        # The console's clock: the 30 days end today, whenever the screen is shown again.
        self.today = today
        # What is on show (None: nothing read yet), and what prefetch read before it was shown.
        self.shown: Spend | None = None
        self._prefetched: Spend | None = None
        # Which charts are on show: "credits" (calls and credits a day) or "answers" (p50, p95).
        self.view = "credits"

    async def prefetch(self) -> None:
        """Before the screen is first shown: its numbers, read now, are composed with it (no
        layout again when they come)."""
        if self.shown is None and not self.is_mounted:
            self._prefetched = await self.book.run(read, self.book, self.today() if self.today else None)

    def compose(self) -> ComposeResult:
        spend, self.shown = self._prefetched, self._prefetched
        yield Static(TITLES[self.view], id="spend-title")
        with Horizontal(id="spend-charts"):
            try:
                importlib.import_module("textual_plotext")  # asked each time: the module below stays imported
                from vap_console.tui.widgets.bar_chart import BarChart
            except ImportError:
                yield Static(NO_CHART, id="spend-no-chart")
            else:
                # Blank until their numbers are read and drawn (in a thread: see BarChart).
                charts = (BarChart("Calls a day", id="chart-calls"), BarChart("Credits a day", id="chart-credits"),
                          BarChart("Answer p50 a day (ms)", id="chart-p50"),
                          BarChart("Answer p95 a day (ms)", id="chart-p95"))
                for chart in charts:
                    chart.display = chart.id in VIEWS[self.view]
                if spend is not None:
                    show_bars(charts, spend)
                yield from charts
        with Horizontal(id="spend-totals"):
            yield Static(totals_table("Per agent", list(spend.agents)) if spend else "", id="totals-agent")
            yield Static(totals_table("Per kind", list(spend.kinds)) if spend else "", id="totals-kind")
        yield KeyBar()

    def on_screen_resume(self) -> None:
        self.read_spend()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "show":
            return parameters[0] != self.view  # ``a`` names the view it switches to
        return True

    def action_show(self, view: str) -> None:
        self.view = view
        for chart in self.query("#spend-charts > *"):
            if chart.id != "spend-no-chart":
                chart.display = chart.id in VIEWS[view]
        self._show_title()
        self.refresh_bindings()

    def _show_title(self) -> None:
        none = self.view == "answers" and self.shown is not None and not any(d.answer_ms for d in self.shown.answers)
        self.query_one("#spend-title", Static).update(NO_ANSWERS if none else TITLES[self.view])

    @work(exclusive=True, group="spend", exit_on_error=False)
    async def read_spend(self) -> None:
        today = self.today() if self.today is not None else None
        self.post_message(self.Read(await self.book.run(read, self.book, today)))

    @on(Read)
    def _read(self, message: Read) -> None:
        spend = message.spend
        if spend == self.shown:
            return  # shown again with nothing new: nothing drawn again
        self.shown = spend
        self._show_title()
        self.query_one("#totals-agent", Static).update(totals_table("Per agent", list(spend.agents)))
        self.query_one("#totals-kind", Static).update(totals_table("Per kind", list(spend.kinds)))
        if not self.query("#spend-no-chart"):  # textual-plotext is installed
            show_bars(list(self.query("#spend-charts > *")), spend)


def show_bars(charts: Sequence[Widget], spend: Spend) -> None:
    """The calls a day, the credits, the answer p50 and p95 (0: none measured that day), one chart
    each in that order (BarChart: textual-plotext)."""
    from vap_console.api.figures import Times

    labels = [d.day.strftime("%m-%d") for d in spend.days]
    times = [Times.of(d.answer_ms) for d in spend.answers] or [Times.of(())] * len(labels)
    series = ([float(d.calls) for d in spend.days], [d.credits for d in spend.days],
              [t.p50 or 0.0 for t in times], [t.p95 or 0.0 for t in times])
    for chart, values in zip(charts, series):
        chart.show_bars(labels, values)  # type: ignore[attr-defined]  # a BarChart, imported only when installed


def prepare_charts() -> None:
    """In a worker thread, before Spend is first shown: importing textual-plotext takes ~60 ms, and
    the charts' drawing thread is started."""
    with contextlib.suppress(ImportError):
        importlib.import_module("vap_console.tui.widgets.bar_chart").start_drawer()
