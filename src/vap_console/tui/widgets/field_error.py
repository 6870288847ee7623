"""The line under a form field saying what is wrong with it; takes no space when all is well."""

from __future__ import annotations

from textual.widgets import Static

from vap_console.tui import untrusted


class FieldError(Static):
    DEFAULT_CSS = """
    FieldError { color: $error; height: auto; display: none; }
    FieldError.-shown { display: block; }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__("", id=id, classes="field-error")

    def show(self, message: str) -> None:
        self.update(untrusted.content(message))  # messages quote the server and the keyboard
        self.set_class(bool(message), "-shown")

    @property
    def message(self) -> str:
        return str(self.content) if self.has_class("-shown") else ""
