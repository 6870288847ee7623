"""Coming back finds things as they are: escape after a filter shows every call again with the
cursor on the call it was on (restored in escape's own handler, not on the emptied box's message),
and Spend, kept between two ``c``, shows a call added meanwhile (it reads the ledger again)."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

from textual.widgets import Input, Static

from tests.tui.console_scenes import build_console, settle, until
from tests.tui.test_calls_screen import plain
from vap_console.ledger import Ledger
from vap_console.sandbox.clock import EPOCH
from vap_console.tui.screens.spend import SpendScreen
from vap_console.tui.widgets.rows import RowTable

SIZE = (120, 36)
CALLS = 40


def ledger_of(index_dir: Path, count: int, first: int = 0) -> None:
    """``count`` ended calls, an hour apart; every fourth said "evening"."""
    Ledger("sandbox", data_dir=index_dir).add_many([{
        "call_id": f"call-{n:03d}", "agent": "ua_front_desk", "kind": "outbound" if n % 2 else "web",
        "to_number": f"+9198123{n:05d}" if n % 2 else None,
        "noted_at": (EPOCH - timedelta(hours=n)).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "status": "completed", "end_reason": "participant_disconnected", "duration_seconds": 30, "credits": 3,
        "transcript": '[["user", "%s"]]' % ("Could we meet in the evening?" if n % 4 == 0 else "Morning works."),
    } for n in range(first, first + count)])


async def test_escape_after_a_filter_shows_every_call_with_the_cursor_on_the_call_it_was_on(tmp_path: Path) -> None:
    index_dir = tmp_path / "index"
    ledger_of(index_dir, CALLS)
    console = build_console(start_screen="calls", index_dir=index_dir)
    async with console.app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        table = pilot.app.screen.query_one(RowTable)
        await until(pilot, lambda: table.row_count == CALLS)
        await pilot.press("slash", *"evening")
        await until(pilot, lambda: table.row_count == CALLS // 4)
        await pilot.press("enter", "down", "down", "down")  # to the fourth call that said it
        await until(pilot, lambda: table.cursor_key == "call-012")
        await pilot.press("escape")
        await settle(pilot)
        box = pilot.app.screen.query_one("#filter", Input)
        assert table.row_count == CALLS and table.filter_text == ""
        assert table.cursor_key == "call-012" and table.has_focus
        assert not box.display and box.value == ""
        assert table.cursor == 12  # the 13th line: every call listed, newest first
        assert plain(pilot.app.screen.query_one("#list-count", Static)).strip() == f"{CALLS} calls"
        assert "call-012" in plain(pilot.app.screen.query_one("#detail", Static))  # its detail beside
        await pilot.press("slash")  # the box comes back empty: no filter left over
        await settle(pilot)
        assert box.display and box.value == "" and table.row_count == CALLS


async def test_spend_shown_again_counts_a_call_added_meanwhile(tmp_path: Path) -> None:
    index_dir = tmp_path / "index"
    ledger_of(index_dir, 6)
    console = build_console(start_screen="calls", index_dir=index_dir)
    async with console.app.run_test(size=SIZE) as pilot:
        await settle(pilot)

        def web_calls() -> str:
            return calls_counted(pilot.app, "#totals-kind", "web")

        await pilot.press("c")
        await until(pilot, lambda: isinstance(pilot.app.screen, SpendScreen) and web_calls() == "3")
        spend = pilot.app.screen
        await pilot.press("escape")
        await settle(pilot)
        ledger_of(index_dir, 1, first=100)  # another process (vap calls add) keeps a web call
        await pilot.press("c")
        await until(pilot, lambda: pilot.app.screen is spend and web_calls() == "4")
        await settle(pilot)
        assert web_calls() == "4"


def calls_counted(app, table: str, row: str) -> str:
    """The calls Spend's ``table`` (#totals-kind, #totals-agent) counts on ``row``; "" if none."""
    totals = plain(app.screen.query_one(table, Static))
    return next((line.split()[1] for line in totals.splitlines() if line.split()[:1] == [row]), "")


def agent_calls(app) -> str:
    """The calls Spend counts for ua_front_desk (every call here is its)."""
    return calls_counted(app, "#totals-agent", "ua_front_desk")


async def test_spend_after_another_profile_shows_that_profiles_calls(tmp_path: Path) -> None:
    from vap_console.tui.call_book import CallBook

    index_dir = tmp_path / "index"
    ledger_of(index_dir, 6)
    console = build_console(start_screen="calls", index_dir=index_dir)
    async with console.app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        app = pilot.app
        await pilot.press("c")
        await until(pilot, lambda: isinstance(app.screen, SpendScreen) and agent_calls(app) == "6")
        first = app.screen
        await pilot.press("escape")
        await settle(pilot)
        other = tmp_path / "other"
        ledger_of(other, 2)
        # As the app's profile switch does: another profile's ledger, the areas stale.
        app.calls = CallBook(Ledger("sandbox", data_dir=other), lambda _: None, app.now)
        app.stale.mark("calls")
        app.screen.reload_if_stale()
        await settle(pilot)
        await pilot.press("c")
        await until(pilot, lambda: isinstance(app.screen, SpendScreen) and app.screen is not first)
        await until(pilot, lambda: agent_calls(app) == "2")
        assert not app.is_screen_installed(first)
