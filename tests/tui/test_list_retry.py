"""A list that failed to load offers Retry: reachable with Tab, pressed with Enter or a click."""

from __future__ import annotations

from textual.widgets import Button

from tests.tui.console_scenes import console_with_outage, settle, until
from vap_console.tui.widgets.list_state import ListState
from vap_console.tui.widgets.rows import RowTable

SIZE = (120, 36)


async def test_retry_of_a_failed_list_is_reached_with_tab_and_works() -> None:
    console, outage = console_with_outage(down=True, start_screen="tools")
    async with console.app.run_test(size=SIZE) as pilot:
        app = console.app
        await settle(pilot, expect_failed_workers=True)
        state = app.screen.query_one(ListState)
        assert state.kind == "error" and "Could not connect" in str(state.query_one("#state-text").content)
        await pilot.press("tab")
        assert isinstance(app.focused, Button) and app.focused.id == "state-retry"
        outage.down = False
        await pilot.press("enter")
        await until(pilot, lambda: app.screen.query_one(RowTable).total_count > 0)


async def test_a_click_on_retry_loads_the_list_again() -> None:
    console, outage = console_with_outage(down=True, start_screen="tools")
    async with console.app.run_test(size=SIZE) as pilot:
        app = console.app
        await settle(pilot, expect_failed_workers=True)
        outage.down = False
        await pilot.click("#state-retry")
        await until(pilot, lambda: app.screen.query_one(RowTable).total_count > 0)
