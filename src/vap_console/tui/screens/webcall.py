"""The web call session: host, room, call id and the token (masked), each copyable."""

from __future__ import annotations

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.widgets import Button, Label, Static

from vap_console.api.models import WebCallSession
from vap_console.tui import format as fmt
from vap_console.tui import untrusted
from vap_console.tui.screens.dialog import Dialog, DialogBox


class WebCallScreen(Dialog[None]):
    LABEL = "Web call"
    BINDINGS = [
        Binding("escape", "close", "Close", id="webcall.close", tooltip="Close the dialog"),
        Binding("h", "copy('host')", "Copy host", id="webcall.copy_host", tooltip="Copy the media server address"),
        Binding("o", "copy('room')", "Copy room", id="webcall.copy_room", tooltip="Copy the room name"),
        Binding("i", "copy('call')", "Copy call id", id="webcall.copy_call", tooltip="Copy the call id"),
        Binding("t", "copy('token')", "Copy token", id="webcall.copy_token",
                tooltip="Copy the access token (it is never shown)"),
    ]

    def __init__(self, session: WebCallSession, agent_label: str) -> None:
        super().__init__()
        self._session = session
        self._agent = agent_label

    def values(self) -> dict[str, tuple[str, str, str]]:
        s = self._session
        return {
            "host": ("Host", s.host, s.host),
            "room": ("Room", s.room_name, s.room_name),
            "call": ("Call id", s.call_id, s.call_id),
            "token": ("Token", fmt.mask(s.token), s.token),
        }

    def compose(self) -> ComposeResult:
        with DialogBox(classes="dialog", id="webcall"):
            yield Static(untrusted.content(f"Web call with {self._agent}"), classes="dialog-title")
            yield Static("Join from a browser with these credentials; media flows directly to the agent.",
                         classes="dialog-help")
            for key, (label, shown, _) in self.values().items():
                with Horizontal(classes="copy-row"):
                    yield Label(label, classes="copy-label")
                    yield Static(untrusted.content(shown), classes="copy-value", id=f"value-{key}")
                    yield Button("Copy", id=f"copy-{key}", classes="copy-button")
            with Horizontal(classes="dialog-buttons"):
                yield Button("Close", id="close", variant="primary")

    def action_copy(self, key: str) -> None:
        label, _, value = self.values()[key]
        self.app.copy_to_clipboard(value)
        self.notify(f"{label} copied to the clipboard.", timeout=3)

    @on(Button.Pressed, ".copy-button")
    def _copy_pressed(self, event: Button.Pressed) -> None:
        self.action_copy((event.button.id or "").removeprefix("copy-"))

    @on(Button.Pressed, "#close")
    def action_close(self) -> None:
        self.dismiss(None)
