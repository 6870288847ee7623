"""A small dialog asking for one id (add a rental, tool or agent the server cannot list)."""

from __future__ import annotations

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.validation import Function
from textual.widgets import Button, Input, Label, Static

from vap_console.credentials import CredentialsInputError
from vap_console.credentials.index import check_id
from vap_console.tui.widgets.field_error import FieldError


def _is_id(value: str) -> bool:
    try:
        check_id(value)
    except CredentialsInputError:
        return not value.strip()  # the empty case has its own message
    return True


class PromptIdScreen(ModalScreen[str | None]):
    BINDINGS = [Binding("escape", "cancel", "Cancel", id="dialog.cancel", tooltip="Close without adding")]

    def __init__(self, title: str, label: str, help_text: str = "") -> None:
        super().__init__()
        self._title = title
        self._label = label
        self._help = help_text

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Static(self._title, classes="dialog-title")
            yield Label(self._label)
            yield Input(id="id-input", validators=[
                Function(lambda v: bool(v.strip()), "must not be empty"),
                Function(_is_id, "use 1 to 128 letters, digits, '_', '.', ':' or '-'"),
            ])
            yield FieldError(id="id-error")
            yield Static(self._help, classes="dialog-help")
            with Horizontal(classes="dialog-buttons"):
                yield Button("Add", id="ok", variant="primary")
                yield Button("Cancel", id="cancel")

    @on(Button.Pressed, "#ok")
    @on(Input.Submitted, "#id-input")
    def _ok(self) -> None:
        box = self.query_one("#id-input", Input)
        result = box.validate(box.value)
        if result is not None and not result.is_valid:
            self.query_one("#id-error", FieldError).show("id: " + "; ".join(result.failure_descriptions))
            return
        self.dismiss(box.value.strip())

    @on(Button.Pressed, "#cancel")
    def action_cancel(self) -> None:
        self.dismiss(None)
