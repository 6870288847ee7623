"""A small dialog asking for one id (add a rental, tool or agent the server cannot list).

The id is checked as typed against the id's form (``rule``), then, when ``check`` is given,
against the server; the dialog closes only once both agree. A failure lands under the field and
the typed id stays.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.message import Message
from textual.validation import Function, Validator
from textual.widgets import Button, Input, Label, Static

from vap_console.api import errors
from vap_console.credentials import CredentialsInputError
from vap_console.credentials.index import check_id
from vap_console.tui.screens.dialog import Dialog, DialogBox
from vap_console.tui.widgets.field_error import FieldError


def _is_id(value: str) -> bool:
    try:
        check_id(value)
    except CredentialsInputError:
        return not value.strip()  # the empty case has its own message
    return True


class PromptIdScreen(Dialog[str | None]):
    """Dismissed with the id (what ``check`` returned, when it returns a str), or None."""
    LABEL = "Add by id"

    BINDINGS = [Binding("escape", "cancel", "Cancel", id="dialog.cancel", tooltip="Close without adding")]

    class Checked(Message):
        def __init__(self, result: str) -> None:
            super().__init__()
            self.result = result

    class CheckFailed(Message):
        def __init__(self, problem: str) -> None:
            super().__init__()
            self.problem = problem

    def __init__(
        self,
        title: str,
        label: str,
        help_text: str = "",
        *,
        rule: Validator | None = None,
        check: Callable[[str], Awaitable[str | None]] | None = None,
    ) -> None:
        super().__init__()
        self._title = title
        self._label = label
        self._help = help_text
        self._rule = rule
        self._check = check

    def compose(self) -> ComposeResult:
        with DialogBox(classes="dialog"):
            yield Static(self._title, classes="dialog-title")
            yield Label(self._label)
            yield Input(id="id-input", select_on_focus=False, validators=[
                Function(lambda v: bool(v.strip()), "must not be empty"),
                Function(_is_id, "use 1 to 128 letters, digits, '_', '.', ':' or '-'"),
                *([self._rule] if self._rule is not None else []),
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
        if self._check is None:
            self.dismiss(box.value.strip())
            return
        self.query_one("#id-error", FieldError).show("")
        self.query_one("#ok", Button).disabled = True
        self.query_one(".dialog-help", Static).update("Checking with the server…")
        self.run_check(box.value.strip())

    @work(exclusive=True, group="check", exit_on_error=False)
    async def run_check(self, value: str) -> None:
        assert self._check is not None
        try:
            result = await self._check(value)
        except (errors.ApiError, LookupError) as error:
            # LookupError: the check's own "not there" (an id missing from the server's list).
            self.post_message(self.CheckFailed(str(error)))
            return
        except Exception as error:  # noqa: BLE001 - said under the field, the dialog stays usable
            self.post_message(self.CheckFailed(f"Unexpected {type(error).__name__}: {error}"))
            return
        self.post_message(self.Checked(result if isinstance(result, str) else value))

    @on(Checked)
    def _checked(self, message: Checked) -> None:
        self.dismiss(message.result)

    @on(CheckFailed)
    def _check_failed(self, message: CheckFailed) -> None:
        self.query_one("#ok", Button).disabled = False
        self.query_one(".dialog-help", Static).update(self._help)
        self.query_one("#id-error", FieldError).show("id: " + message.problem)
        self.query_one("#id-input", Input).focus()

    @on(Button.Pressed, "#cancel")
    def action_cancel(self) -> None:
        self.dismiss(None)
