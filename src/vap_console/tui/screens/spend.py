"""Spend at a glance (``c`` on Calls): calls and credits a day over the last 30 days, charted
with textual-plotext, and the totals per agent and per kind, all from the calls ledger.

Credits are what the last read of each call said (``creditsCharged``); a call never read again
counts as a call with no credits yet. Days are UTC days, as the ledger keeps them. Without
textual-plotext the screen says so in one sentence and still shows the totals.
"""

from __future__ import annotations

import math
from datetime import date

from rich.table import Table
from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.message import Message
from textual.screen import Screen
from textual.widgets import Static

from vap_console.ledger import DaySpend, Total
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


class SpendScreen(Screen[None]):
    LABEL = "Spend"
    BINDINGS = [
        Binding("escape,c,q", "app.pop_screen", "Back to calls", id="spend.back", tooltip="Return to the Calls list"),
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
        def __init__(self, days: list[DaySpend], agents: list[Total], kinds: list[Total]) -> None:
            super().__init__()
            self.days, self.agents, self.kinds = days, agents, kinds

    def __init__(self, book: CallBook, *, today: date | None = None) -> None:
        super().__init__()
        self.book = book
        self.today = today

    def compose(self) -> ComposeResult:
        yield Static(f"Spend · the last {DAYS} days (UTC), from this profile's calls", id="spend-title")
        # The charts are mounted once their numbers are read: an empty plot drawn first would
        # cost as much as the real one (plotext draws in Python, ~20 ms a chart).
        yield Horizontal(id="spend-charts")
        with Horizontal(id="spend-totals"):
            yield Static(id="totals-agent")
            yield Static(id="totals-kind")
        yield KeyBar()

    def on_mount(self) -> None:
        self.read_spend()

    @work(exclusive=True, group="spend", exit_on_error=False)
    async def read_spend(self) -> None:
        ledger = self.book.ledger
        days = await self.book.run(lambda: ledger.per_day(DAYS, today=self.today))
        agents = await self.book.run(ledger.totals, "agent")
        kinds = await self.book.run(ledger.totals, "kind")
        self.post_message(self.Read(days, agents, kinds))

    @on(Read)
    def _read(self, message: Read) -> None:
        self.query_one("#totals-agent", Static).update(totals_table("Per agent", message.agents))
        self.query_one("#totals-kind", Static).update(totals_table("Per kind", message.kinds))
        try:
            from textual_plotext import PlotextPlot
        except ImportError:
            self.query_one("#spend-charts").mount(Static(NO_CHART, id="spend-no-chart"))
            return
        charts = [PlotextPlot(id="chart-calls"), PlotextPlot(id="chart-credits")]
        positions: list[float] = list(range(len(message.days)))
        # A tick a week, counted back from today: today is always labelled, and no two labels
        # crowd each other (plotext then drops one, not always the same).
        ticks = positions[::-7][::-1]
        labels = [message.days[int(i)].day.strftime("%m-%d") for i in ticks]
        for widget, values, title in (
            (charts[0], [d.calls for d in message.days], "Calls a day"),
            (charts[1], [d.credits for d in message.days], "Credits a day"),
        ):
            plt = widget.plt
            plt.clear_data()
            plt.bar(positions, values, width=0.6)
            plt.title(title)
            plt.xticks(ticks, labels)
            # Whole numbers on the axis, four or five of them: half a call is no count anyone made.
            step = max(1, math.ceil(max(values, default=0) / 4))
            ticks_y: list[float] = list(range(0, step * 5, step))
            plt.ylim(0, ticks_y[-1])
            plt.yticks(ticks_y)
        self.query_one("#spend-charts").mount_all(charts)
