"""The Talk screen closes once, whatever answers it: after a call has ended, Esc and a click on
Close can both be on their way before the first is handled (one gesture, two answers). Textual's
dismiss pops whatever screen is on top, so the second answer closed Agents beneath or, with nothing
beneath it, stopped the console."""

from __future__ import annotations

from tests.tui.console_scenes import until
from tests.tui.talk_console import talk_console


async def test_escape_and_close_both_answering_leave_only_the_talk() -> None:
    with talk_console() as console:
        async with console.app.run_test(size=(120, 36)) as pilot:
            screen = await console.talking(pilot)
            beneath = console.app.screen_stack[-2]
            await pilot.press("escape")
            await until(pilot, lambda: screen.ended)
            # Esc, and a click on Close, both on their way before the first is handled:
            screen.action_back()
            screen.action_back()
            await until(pilot, lambda: console.app.screen is beneath)
            assert console.app.is_running and console.app._exception is None
