"""The error banner: the failure in a sentence naming its code, and a Retry button when possible."""

from __future__ import annotations

from collections.abc import Callable

from textual import on
from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.content import Content
from textual.css.query import NoMatches
from textual.widgets import Button, Static

from vap_console.tui import untrusted


class Banner(Horizontal):
    DEFAULT_CSS = """
    Banner {
        display: none;
        height: auto;
        background: $error 25%;
        border-left: thick $error;
        padding: 0 1;
        margin: 0 0 1 0;
    }
    Banner.-shown { display: block; layout: horizontal; }
    Banner.-info { background: $warning 20%; border-left: thick $warning; }
    Banner #banner-text { width: 1fr; height: auto; padding: 1 0 0 0; }
    Banner Button { min-width: 10; margin-left: 1; }
    """

    def __init__(self, *, id: str | None = "banner") -> None:
        super().__init__(id=id)
        self._retry: Callable[[], object] | None = None

    def compose(self) -> ComposeResult:
        # The buttons come with the first message: most screens never show one, and building
        # them (and parsing Button's CSS) was a tenth of the console's start after its imports.
        yield Static(id="banner-text")

    def _retry_button(self) -> Button:
        try:
            return self.query_one("#banner-retry", Button)
        except NoMatches:
            retry = Button("Retry", id="banner-retry", variant="warning")
            self.mount(retry, Button("Dismiss", id="banner-dismiss"))
            return retry

    @property
    def message(self) -> str:
        return str(self.query_one("#banner-text", Static).content) if self.has_class("-shown") else ""

    def show(self, message: str | Content, retry: Callable[[], object] | None = None, *, info: bool = False) -> None:
        """A message (a plain string is shown literally: banners quote the server)."""
        self._retry = retry
        self.query_one("#banner-text", Static).update(
            untrusted.content(message) if isinstance(message, str) else message
        )
        self._retry_button().display = retry is not None
        self.set_class(info, "-info")
        self.add_class("-shown")

    def clear(self) -> None:
        self._retry = None
        self.remove_class("-shown")

    @on(Button.Pressed, "#banner-retry")
    def _retry_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        retry = self._retry
        self.clear()
        if retry is not None:
            retry()

    @on(Button.Pressed, "#banner-dismiss")
    def _dismiss(self, event: Button.Pressed) -> None:
        event.stop()
        self.clear()
