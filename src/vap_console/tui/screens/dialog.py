"""What every dialog of the console shares: `?` (or F1) lists its keys, and a key bar of its own.

A dialog covers the screen it opened from; without its own key bar the bottom line would go on
showing that screen's keys, which do nothing while the dialog is up.
"""

from __future__ import annotations

from typing import ClassVar, TypeVar

from textual import events, on
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import ModalScreen

from vap_console.tui import breakpoints
from vap_console.tui.widgets.key_bar import KeyBar

T = TypeVar("T")


class DialogBox(VerticalScroll, can_focus=False):
    """A dialog's frame (class "dialog"): on a short terminal its body scrolls and its docked
    buttons stay on screen. Not a stop for Tab, so the first field or button gets the focus and
    Tab moves between them as before (each scrolled into view as it is focused)."""


class Dialog(ModalScreen[T]):
    LABEL: ClassVar[str] = "Dialog"
    # The console's bands, also when a dialog runs in another app (the wizard's test host).
    HORIZONTAL_BREAKPOINTS: ClassVar[list[tuple[int, str]] | None] = breakpoints.HORIZONTAL
    VERTICAL_BREAKPOINTS: ClassVar[list[tuple[int, str]] | None] = breakpoints.VERTICAL
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
