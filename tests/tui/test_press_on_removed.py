"""A mouse press that lands where a widget was removed an instant ago (before the next layout)
is dropped instead of stopping the console (make soak, seed 303: Textual's text selection looked
up the removed widget's parent)."""

from __future__ import annotations

from textual import events
from textual.app import ComposeResult
from textual.widgets import Static

from vap_console.tui.untrusted import LiteralApp


class OneLine(LiteralApp[None]):
    def compose(self) -> ComposeResult:
        yield Static("a line of selectable text " * 3, id="line")


async def test_a_press_on_a_widget_just_removed_is_dropped() -> None:
    app = OneLine()
    async with app.run_test(size=(60, 10)) as pilot:
        line = app.query_one("#line")
        await pilot.pause()
        await line.remove()
        # Handled at once, as the terminal's next event would be: the screen is not laid out again.
        press = events.MouseDown(None, 2, 0, 0, 0, 1, False, False, False, screen_x=2, screen_y=0)
        press.set_sender(app)
        await app.on_event(press)
        await pilot.pause()
        assert app.is_running and app._exception is None
        # And a press on what is shown still reaches it.
        shown = Static("still here", id="shown")
        await app.screen.mount(shown)
        await pilot.click("#shown")
        assert app.is_running
