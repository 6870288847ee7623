"""Yes/no confirmation dialog for anything destructive or billed; the safe answer has the focus."""

from __future__ import annotations

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.widgets import Button, Static

from vap_console.tui import untrusted
from vap_console.tui.screens.dialog import Dialog, DialogBox


class ConfirmScreen(Dialog[bool]):
    LABEL = "Confirm"
    BINDINGS = [
        Binding("escape,n", "answer(False)", "Keep", id="confirm.no", tooltip="Do nothing"),
        Binding("y", "answer(True)", "Yes", id="confirm.yes", tooltip="Go ahead"),
    ]
    AUTO_FOCUS = "#no"

    def __init__(self, title: str, body: str, yes: str = "Delete", no: str = "Keep") -> None:
        super().__init__()
        self._title = title
        self._body = body
        self._yes = yes
        self._no = no

    def compose(self) -> ComposeResult:
        with DialogBox(classes="dialog"):
            # Titles name what is deleted: a server's name, shown literally.
            yield Static(untrusted.content(self._title), classes="dialog-title")
            yield Static(untrusted.content(self._body), classes="dialog-body")
            with Horizontal(classes="dialog-buttons"):
                yield Button(f"{self._yes} (y)", id="yes", variant="error")
                yield Button(f"{self._no} (n)", id="no")

    @on(Button.Pressed, "#yes")
    def _yes_pressed(self) -> None:
        self.dismiss(True)

    @on(Button.Pressed, "#no")
    def _no_pressed(self) -> None:
        self.dismiss(False)

    def action_answer(self, value: bool) -> None:
        self.dismiss(value)
