"""Spend gains an answer-time view (issue 34 point 1): ``a`` switches its charts from calls and
credits a day to the answer p50 and p95 a day (nearest-rank over every answer the console measured
that day), and ``a`` again switches back; the key bar names the view ``a`` goes to."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

from textual.widgets import Static

from tests.tui.console_scenes import build_console, settle, until
from vap_console.ledger import Ledger
from vap_console.sandbox.clock import EPOCH
from vap_console.tui.screens.calls import CallsScreen
from vap_console.tui.screens.spend import SpendScreen
from vap_console.tui.widgets.key_bar import KeyBar

TWO_DAYS_AGO = EPOCH - timedelta(days=2)


def timed_calls(index_dir: Path) -> None:
    noted = TWO_DAYS_AGO.strftime("%Y-%m-%dT%H:%M:%SZ")
    Ledger("sandbox", data_dir=index_dir).add_many([
        {"call_id": "t1", "agent": "ua_front", "kind": "talk", "noted_at": noted, "status": "completed",
         "credits": 3, "answer_ms": [600, 800, 1000]},
        {"call_id": "t2", "agent": "ua_front", "kind": "talk", "noted_at": noted, "status": "completed",
         "credits": 3, "answer_ms": [2500]},
    ])


def shown(screen: SpendScreen) -> list[str]:
    return [c.id or "" for c in screen.query("#spend-charts > *") if c.display]


def bars(screen: SpendScreen, chart: str) -> tuple[float, ...]:
    return screen.query_one(f"#{chart}")._bars[1]  # type: ignore[attr-defined]  # a BarChart's bars


async def test_a_switches_the_charts_to_answer_p50_and_p95_a_day_and_back(tmp_path: Path) -> None:
    timed_calls(tmp_path / "index")
    console = build_console(start_screen="calls", index_dir=tmp_path / "index")
    async with console.app.run_test(size=(120, 36)) as pilot:
        await until(pilot, lambda: isinstance(pilot.app.screen, CallsScreen) and bool(pilot.app.screen.items))
        await pilot.press("c")
        await until(pilot, lambda: isinstance(pilot.app.screen, SpendScreen) and pilot.app.screen.shown is not None)
        screen = pilot.app.screen
        assert isinstance(screen, SpendScreen)
        assert shown(screen) == ["chart-calls", "chart-credits"]
        assert "Answer times" in str(screen.query_one(KeyBar).render())
        await pilot.press("a")
        await settle(pilot)
        assert shown(screen) == ["chart-p50", "chart-p95"]
        assert str(screen.query_one("#spend-title", Static).content).startswith("Answer times · the last 30 days")
        # Two days before today: p50 of 600, 800, 1000, 2500 is 800; p95 is the slowest, 2500.
        assert bars(screen, "chart-p50")[-3:] == (800.0, 0.0, 0.0)
        assert bars(screen, "chart-p95")[-3:] == (2500.0, 0.0, 0.0)
        assert "Calls & credits" in str(screen.query_one(KeyBar).render())
        await pilot.press("a")
        await settle(pilot)
        assert shown(screen) == ["chart-calls", "chart-credits"]
        assert str(screen.query_one("#spend-title", Static).content).startswith("Spend · the last 30 days")


async def test_with_no_answer_time_measured_the_view_says_so(tmp_path: Path) -> None:
    Ledger("sandbox", data_dir=tmp_path / "index").add_many([
        {"call_id": "w1", "agent": "ua_front", "kind": "web", "noted_at": TWO_DAYS_AGO.strftime("%Y-%m-%dT%H:%M:%SZ"),
         "status": "completed", "credits": 3}])
    console = build_console(start_screen="calls", index_dir=tmp_path / "index")
    async with console.app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: isinstance(pilot.app.screen, CallsScreen) and bool(pilot.app.screen.items))
        await pilot.press("c")
        await until(pilot, lambda: isinstance(pilot.app.screen, SpendScreen) and pilot.app.screen.shown is not None)
        await pilot.press("a")
        await settle(pilot)
        title = str(pilot.app.screen.query_one("#spend-title", Static).content)
        assert title == "Answer times · none measured in the last 30 days (UTC) by Talk or vap agents"
