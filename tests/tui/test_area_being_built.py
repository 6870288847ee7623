"""An area shown for the first time is built over a few turns of the event loop after its key is
pressed; meanwhile it is already the app's screen. A timer fires in its own task, and a worker or
another screen's handler runs in theirs, so what they do can land in that moment (on a busy machine
it often does). Neither the 429 countdown's tick nor a reload asked by another area's change may
stop the console there; each takes effect once the area is up.

The tests press the key and act at the first turn of the loop where the new area is the screen and
not built yet, as the timer's or worker's task would: the moment is found, not hoped for."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from textual.pilot import Pilot
from textual.screen import Screen

from tests.tui.console_scenes import DEADLINE, build_console, settle, until
from vap_console.tui.screens.base import ListScreen
from vap_console.tui.widgets.banner import Banner
from vap_console.tui.widgets.rows import RowTable


async def act_while_built(pilot: Pilot, key: str, act: Callable[[], object]) -> Screen:
    """Press ``key`` (an area not shown yet) and run ``act`` the moment its screen is the app's
    screen but not built, as a timer's callback runs (Textual's Timer hands an exception to the
    app, which stops on it). The area's screen."""
    app = pilot.app
    before = app.screen
    caught: list[Screen] = []

    async def in_that_moment() -> None:
        while True:
            await asyncio.sleep(0)
            screen = app.screen
            if screen is not before and isinstance(screen, ListScreen) and not screen.is_mounted:
                caught.append(screen)
                try:
                    act()
                except Exception as error:  # noqa: BLE001 - what Textual's Timer._tick does
                    app._handle_exception(error)
                return

    task = asyncio.create_task(in_that_moment())
    await pilot.press(key)
    await asyncio.wait_for(task, DEADLINE)  # the moment came (else the test proves nothing)
    assert caught, "the area was never seen before it was built"
    return caught[0]


async def test_the_429_countdown_ticking_while_an_area_is_built_shows_there_once_it_is_up() -> None:
    # A budget of one request a minute, no retries in the client: the console waits out each 429
    # itself (call_api), for as long as the test holds the wait.
    console = build_console(start_screen="numbers", rate_limit=1, max_retries=0)
    app = console.app
    released = asyncio.Event()

    async def wait_out(seconds: float) -> None:
        await released.wait()
        console.clock.advance(seconds)

    app.sleep = wait_out
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)  # the minute's one request: Numbers' rows
        await pilot.press("r")  # the next meets a 429, waited out
        await until(pilot, lambda: app.connection == "limited")
        tools = await act_while_built(pilot, "2", app._show_rate_limit)  # a tick in that moment
        await until(pilot, lambda: tools.is_mounted)
        assert app._exception is None and app.is_running, f"the console stopped: {app._exception!r}"
        app._show_rate_limit()  # the next tick: the countdown is on the area now shown
        banner = tools.query_one(Banner)
        assert "HTTP 429" in banner.message and "Trying again in" in banner.message
        released.set()
        await settle(pilot)
        assert app.connection == "online" and tools.query_one(RowTable).total_count > 0


async def test_a_reload_asked_while_an_area_is_built_loads_it_once_it_is_up() -> None:
    # What a delete on Tools asks of Variables when it lands (tools.py: invalidate("tools",
    # "variables")), and a placed call of Calls, while that area is being switched to.
    console = build_console(start_screen="tools")
    app = console.app
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        variables = await act_while_built(pilot, "3", lambda: app.invalidate("tools", "variables"))
        await settle(pilot)
        assert app._exception is None and app.is_running, f"the console stopped: {app._exception!r}"
        assert app.screen is variables
        assert variables.query_one(RowTable).total_count > 0  # its rows, loaded
        assert variables.query_one(Banner).message == ""  # and no error said
        assert "variables" not in app.stale
