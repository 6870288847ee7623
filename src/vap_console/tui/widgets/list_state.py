"""What a list shows when it has no rows to show: loading, empty, or the error with a retry."""

from __future__ import annotations

from textual import on
from textual.app import ComposeResult
from textual.containers import Center, Vertical
from textual.message import Message
from textual.widgets import Button, LoadingIndicator, Static


class ListState(Vertical):
    DEFAULT_CSS = """
    ListState { height: 1fr; align: center middle; }
    ListState > Static { width: 1fr; text-align: center; padding: 1 2; }
    ListState.-error > #state-text { color: $error; text-style: bold; }
    ListState LoadingIndicator { height: 3; }
    ListState Center { height: auto; }
    """

    class RetryRequested(Message):
        pass

    def compose(self) -> ComposeResult:
        yield LoadingIndicator(id="state-spinner")
        yield Static(id="state-text")
        with Center():
            yield Button("Retry (r)", id="state-retry", variant="warning")

    def loading(self, what: str) -> None:
        self._set("loading", f"Loading {what}…")

    def empty(self, message: str) -> None:
        self._set("empty", message)

    def error(self, message: str) -> None:
        self._set("error", message)

    def _set(self, kind: str, message: str) -> None:
        self.set_class(kind == "error", "-error")
        self.query_one("#state-spinner").display = kind == "loading"
        self.query_one("#state-retry").display = kind == "error"
        self.query_one("#state-text", Static).update(message)
        self.kind = kind

    @on(Button.Pressed, "#state-retry")
    def _retry(self, event: Button.Pressed) -> None:
        event.stop()
        self.post_message(self.RetryRequested())
