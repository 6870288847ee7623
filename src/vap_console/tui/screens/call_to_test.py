"""`t` on Calls: the highlighted call written as a conversation test, the file `vap calls to-test`
writes (scripting/call_to_test.py, docs/testing.md "A call becomes a test").

It asks where (a file name, the call's own in the current folder to start with), never writes
over a file that is there (the CLI's ``--force`` has no key here: give another name), and says
the path it wrote with what the person should know of the file (no latency budget, say).
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import TYPE_CHECKING

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.message import Message
from textual.widgets import Button, Input, Label, Static

from vap_console.api import errors
from vap_console.local_files import name_part
from vap_console.scripting import call_to_test as ct
from vap_console.tui.screens.dialog import Dialog, DialogBox
from vap_console.tui.widgets.field_error import FieldError

if TYPE_CHECKING:
    from vap_console.ledger import CallEntry
    from vap_console.tui.services import Services


def test_file_name(call_id: str) -> str:
    """The file a call's test is offered as: the id checked before it names a file (server text)."""
    return f"vap-call-{name_part(call_id)}.test.json"


class CallTestPath(Dialog[Path | None]):
    """Where to write a call's test: dismissed with the path (relative to the current folder when
    not absolute), or None (Esc, Cancel: nothing is written)."""

    LABEL = "Call to test"
    BINDINGS = [Binding("escape", "cancel", "Cancel", id="dialog.cancel", tooltip="Close without writing")]

    def __init__(self, call_id: str, start: Path) -> None:
        super().__init__()
        self._call_id = call_id
        self._start = start

    def compose(self) -> ComposeResult:
        from vap_console.tui import untrusted

        with DialogBox(classes="dialog"):
            yield Static("Turn this call into a test", classes="dialog-title")
            yield Static(untrusted.content(
                f"Call {self._call_id}: the caller's turns to say again, each answer to resemble what the "
                "agent said, the tools it called, and the answer times kept as a latency budget. "
                "`vap agents test FILE` holds it again."), classes="dialog-help")
            yield Label("File")
            yield Input(str(self._start), id="test-path", select_on_focus=False)
            yield FieldError(id="test-path-error")
            with Horizontal(classes="dialog-buttons"):
                yield Button("Write", id="ok", variant="primary")
                yield Button("Cancel", id="cancel")

    @on(Button.Pressed, "#ok")
    @on(Input.Submitted, "#test-path")
    def _ok(self) -> None:
        value = self.query_one("#test-path", Input).value.strip()
        if not value:
            self.query_one("#test-path-error", FieldError).show("file: must not be empty")
            return
        path = Path(value).expanduser()
        self.dismiss(path if path.is_absolute() else Path.cwd() / path)

    @on(Input.Changed, "#test-path")
    def _typed(self, event: Input.Changed) -> None:
        # The error said what was wrong with what is no longer there: it goes once a key is typed.
        if event.value.strip():
            self.query_one("#test-path-error", FieldError).show("")

    @on(Button.Pressed, "#cancel")
    def action_cancel(self) -> None:
        self.dismiss(None)


class TurnsCallsIntoTests:
    """`t`: the dialog, then reading the call (its record, else the ledger) and writing the file
    in a worker (group ``calltest``). Mixed into the Calls screen (it has ``services``, ``current``)."""

    services: Services

    class TestWritten(Message):
        def __init__(self, path: Path, notes: list[str]) -> None:
            super().__init__()
            self.path, self.notes = path, notes

    def action_call_to_test(self) -> None:
        entry: CallEntry | None = self.current  # type: ignore[attr-defined]  # a ListScreen mixin
        if entry is None or entry.call_id is None:
            self.app.notify("No call with an id is highlighted.", severity="warning", markup=False)  # type: ignore[attr-defined]
            return
        call_id = entry.call_id

        def chosen(path: Path | None) -> None:
            if path is not None:
                self.write_call_test(call_id, path)

        start = Path.cwd() / test_file_name(call_id)
        self.app.push_screen(CallTestPath(call_id, start), chosen)  # type: ignore[attr-defined]

    @work(exclusive=True, group="calltest", exit_on_error=False)
    async def write_call_test(self, call_id: str, path: Path) -> None:
        book = self.services.calls
        entry = await book.run(book.ledger.get, call_id) if book is not None else None
        record = tools = None
        try:
            record = await self.services.call_api(lambda c: c.get_call(call_id))
            tools = await self.services.call_api(lambda c: c.tools_called(call_id))
        except errors.ApiError:
            if entry is None:
                raise
        notes = [] if record is not None else ["its record could not be read now: from the calls ledger"]
        try:
            written = ct.file_of(ct.recorded_of(call_id, record, entry, tools))
            await asyncio.to_thread(ct.write_new, path, written.text, force=False)
        except ct.CallToTestError as exc:
            raise errors.ApiError(f"{exc}; nothing was written") from None
        except FileExistsError:
            raise errors.ApiError(f"{path} is there already: nothing was written. Press t again and give "
                                  "another name") from None
        except OSError as exc:
            raise errors.ApiError(f"Could not write {path}: {exc.strerror or exc}") from None
        self.post_message(self.TestWritten(path, notes + written.notes))  # type: ignore[attr-defined]

    # Named, not @on: Textual collects @on handlers only from its own classes' bodies.
    def on_turns_calls_into_tests_test_written(self, message: TestWritten) -> None:
        # The path and the notes hold server text (the call id): the console's notify (LiteralApp,
        # tui/untrusted.py) makes every control character visible before Textual sees it.
        more = "".join(f"\n{note[:1].upper()}{note[1:]}." for note in message.notes)
        self.app.notify(f"Test written to {message.path}{more}", title="Call to test", markup=False)  # type: ignore[attr-defined]
