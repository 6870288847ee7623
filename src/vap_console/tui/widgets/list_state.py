"""What a list shows when it has no rows to show: loading, empty, or the error with a retry."""

from __future__ import annotations

from textual import on
from textual.app import ComposeResult
from textual.containers import Center, Vertical
from textual.message import Message
from textual.widgets import Button, LoadingIndicator, Static

from vap_console.tui import untrusted

# A load quicker than this shows its text only: a spinner that flashes up and away is noise.
SPINNER_DELAY = 0.3


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

    kind = ""

    def compose(self) -> ComposeResult:
        # The spinner and the Retry button are built when first needed: at start-up the rows
        # usually come before either would show.
        yield Static(id="state-text")

    # Not ``loading``: that is Textual's Widget.loading, and shadowing it broke the Retry button.
    def show_loading(self, what: str) -> None:
        self._set("loading", f"Loading {what}…")

    def show_empty(self, message: str) -> None:
        self._set("empty", message)

    def show_error(self, message: str) -> None:
        self._set("error", message)

    def show_rows(self) -> None:
        """The list has rows to show instead: nothing of the loading stays behind them."""
        self.kind = ""
        self.query("#state-spinner").remove()

    def _set(self, kind: str, message: str) -> None:
        self.set_class(kind == "error", "-error")
        spinners = self.query("#state-spinner")
        if spinners and kind != "loading":
            # Not hidden but removed: a hidden LoadingIndicator still ticks 16 times a second, for
            # as long as the screen lives (0.4 % of a core under every screen pushed over a list).
            spinners.remove()
        elif not spinners and kind == "loading":
            self.set_timer(SPINNER_DELAY, self._spin)
        retry = self.query("#state-retry")
        if retry:
            retry.first().display = kind == "error"
        elif kind == "error":
            self.mount(Center(Button("Retry (r)", id="state-retry", variant="warning")), after="#state-text")
        # Error messages quote the server: shown literally.
        self.query_one("#state-text", Static).update(untrusted.content(message))
        self.kind = kind

    def _spin(self) -> None:
        if self.kind == "loading" and not self.query("#state-spinner"):
            self.mount(LoadingIndicator(id="state-spinner"), before="#state-text")

    @on(Button.Pressed, "#state-retry")
    def _retry(self, event: Button.Pressed) -> None:
        event.stop()
        self.post_message(self.RetryRequested())
