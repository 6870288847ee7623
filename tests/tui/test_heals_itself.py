"""The console heals itself: while the server cannot be reached it looks again by itself, with
backoff, and reloads what failed as soon as it answers; rows kept through an outage say so."""

from __future__ import annotations

from textual.widgets import Static

from tests.tui.console_scenes import console_with_outage, settle, until
from vap_console.tui.widgets.banner import Banner
from vap_console.tui.widgets.list_state import ListState
from vap_console.tui.widgets.rows import RowTable

SIZE = (120, 36)


def count_line(app) -> str:
    return str(app.screen.query_one("#list-count", Static).render())


async def test_a_list_that_could_not_connect_loads_by_itself_when_the_server_is_back() -> None:
    console, outage = console_with_outage(down=True, start_screen="tools")
    async with console.app.run_test(size=SIZE) as pilot:
        app = console.app
        await settle(pilot, expect_failed_workers=True)
        state = app.screen.query_one(ListState)
        assert state.kind == "error" and "tries again by itself" in str(state.query_one("#state-text").content)
        assert app.connection == "offline"
        outage.down = False  # no r pressed: the console finds out itself (its backoff tops at 30 s)
        await until(pilot, lambda: app.screen.query_one(RowTable).total_count > 0)
        assert app.connection == "online"


async def test_rows_kept_through_an_outage_are_marked_until_reloaded() -> None:
    console, outage = console_with_outage(down=False, start_screen="numbers")
    async with console.app.run_test(size=SIZE) as pilot:
        app = console.app
        await settle(pilot)
        rows = app.screen.query_one(RowTable).total_count
        assert rows > 0 and "offline" not in count_line(app)
        outage.down = True
        await pilot.press("r")
        await until(pilot, lambda: app.connection == "offline")
        await settle(pilot, expect_failed_workers=True)
        assert app.screen.query_one(RowTable).total_count == rows  # kept, not wiped
        assert "offline: as of" in count_line(app)
        assert "reloads by itself" in app.screen.query_one(Banner).message
        outage.down = False
        await until(pilot, lambda: "offline" not in count_line(app))
        assert app.connection == "online" and not app.screen.query_one(Banner).message
