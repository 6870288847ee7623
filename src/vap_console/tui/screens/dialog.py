"""What every dialog of the console shares: `?` (or F1) lists its keys, and a key bar of its own.

A dialog covers the screen it opened from; without its own key bar the bottom line would go on
showing that screen's keys, which do nothing while the dialog is up.
"""

from __future__ import annotations

from typing import Any, ClassVar, TypeVar

from textual import events, on
from textual.await_complete import AwaitComplete
from textual.binding import Binding
from textual.command import CommandPalette
from textual.containers import VerticalScroll
from textual.screen import ModalScreen, Screen

from vap_console.tui import breakpoints
from vap_console.tui.widgets.key_bar import KeyBar

T = TypeVar("T")


async def _nothing() -> None:
    return None


def answered_already(screen: Screen[Any]) -> bool:
    """Whether ``screen`` has left the stack: an answer to it now would close the one beneath.

    Two answers come from one gesture (a double click, Enter pressed twice before the first is
    handled); Textual's dismiss pops whatever is on top, so the second one closed the screen
    underneath (a wizard, with what was typed) or, with nothing beneath, stopped the console.
    """
    return screen not in screen.app.screen_stack


class AnswersOnce(ModalScreen[T]):
    def dismiss(self, result: T | None = None) -> AwaitComplete:
        if answered_already(self):
            return AwaitComplete(_nothing())
        return super().dismiss(result)


class Palette(CommandPalette):
    """Textual's command palette, closed once however many clicks land on it (its background
    or a command)."""

    def dismiss(self, result: None = None) -> AwaitComplete:
        if answered_already(self):
            return AwaitComplete(_nothing())
        return super().dismiss(result)

    def _select_or_command(self, event: Any = None) -> None:
        # The second click of a double click on a command would run it a second time.
        if answered_already(self):
            if event is not None:
                event.stop()
            return
        super()._select_or_command(event)


class DialogBox(VerticalScroll, can_focus=False):
    """A dialog's frame (class "dialog"): on a short terminal its body scrolls and its docked
    buttons stay on screen. Not a stop for Tab, so the first field or button gets the focus and
    Tab moves between them as before (each scrolled into view as it is focused)."""


class Dialog(AnswersOnce[T]):
    LABEL: ClassVar[str] = "Dialog"
    # The console's bands, also when a dialog runs in another app (the wizard's test host).
    HORIZONTAL_BREAKPOINTS = breakpoints.HORIZONTAL
    VERTICAL_BREAKPOINTS = breakpoints.VERTICAL
    BINDINGS = [
        Binding("question_mark,f1", "show_keys", "Keys", id="dialog.keys", tooltip="Show this dialog's keys"),
    ]

    @on(events.Mount)
    def _size_classes(self) -> None:
        breakpoints.apply_now(self, *self.app.size)

    @on(events.Mount)
    def _add_key_bar(self) -> None:
        if not self.query(KeyBar):
            self.mount(KeyBar())

    def action_show_keys(self) -> None:
        from vap_console.tui.screens.keys_help import KeysHelpScreen

        self.app.push_screen(KeysHelpScreen(self))
