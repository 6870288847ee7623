"""What every dialog, the keys help and the command palette share: an answer is given once.

Its own module so that the dialogs (dialog.py) and the keys help (keys_help.py), which opens from
every dialog and is one itself, both build on it without importing each other.
"""

from __future__ import annotations

from typing import Any, TypeVar

from textual.await_complete import AwaitComplete
from textual.command import CommandPalette
from textual.screen import ModalScreen, Screen

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
        # An answer can come from a worker while a screen opened over this one is up (its keys,
        # the command palette). Textual's dismiss pops the top screen: that one went, this one
        # stayed up answered, and its next answer (Esc) set its result a second time, which stopped
        # the console (InvalidStateError). What was opened over it closes with it.
        while self.app.screen is not self:
            self.app.pop_screen()
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
