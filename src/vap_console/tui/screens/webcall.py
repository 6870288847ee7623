"""Web calls: the confirm before one starts (what it costs), and the session's credentials
(host, room, call id and the token, masked), each copyable.

A web call is billed from the moment the server answers, even if nobody joins, and holds one of
the account's concurrent-call slots until the participant leaves (reference/real-service.md), so
it is confirmed in those words first, with Cancel focused, every time one is started. When the
answer to a start was lost, the call may be running: the question before asking again says so,
with the slots in use, since a server that ignores Idempotency-Key would start a second call.
"""

from __future__ import annotations

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.widgets import Button, Label, Static

from vap_console.api.models import AgentLimits, WebCallSession
from vap_console.api.models.agents import call_rate
from vap_console.tui import format as fmt
from vap_console.tui import untrusted
from vap_console.tui.screens.dialog import Confirm, Dialog, DialogBox

COST_NOTE = (
    "The call is billed from the moment it starts, even if nobody joins, and holds one of the "
    "account's concurrent-call slots until the participant leaves the room."
)
TOKEN_NOTE = "The token is short-lived and good for this one room only."
IN_DOUBT_NOTE = "If so, the call is running and billing now, in one of the slots counted below."
AGAIN_NOTE = (
    "This asks again under the first try's Idempotency-Key: a server that honours it answers with "
    "the first call's credentials and starts nothing new; a server that does not starts a second "
    "call, billed from the moment it starts."
)


def rate_line(limits: AgentLimits | None) -> str:
    """What a minute of the call costs, as a sentence for a billed call's confirm (web, Talk,
    outbound): the rate the server publishes with its slots, or that it publishes none."""
    words = call_rate(limits)
    return f"{words[:1].upper()}{words[1:]}."


def slots_line(limits: AgentLimits | None, *, in_doubt: bool = False) -> str:
    """What the account's call slots look like now, for the confirm and the Agents screen.
    ``in_doubt``: the first try's answer was lost, so it may hold one of them."""
    if limits is None:
        if in_doubt:
            return "This server does not report its call slots: it cannot show whether the first try is running."
        return "This server does not report its call slots."
    if limits.active_requests >= limits.concurrency_limit:
        return (f"Call slots: {limits.in_use} — all taken: the server will refuse a new call "
                "(concurrency_limit_exceeded) until one ends.")
    if in_doubt:
        return f"Call slots: {limits.in_use}; the first try, if it is running, is one of them."
    return f"Call slots: {limits.in_use}; this call takes one more."


class WebCallConfirm(Confirm):
    """Asked before every web call (Retry after a failure asks again): what it costs. ``in_doubt``:
    the answer to an earlier try was lost, and the question says that call may be running."""

    LABEL = "Start a web call"
    BINDINGS = [
        Binding("escape,n", "answer(False)", "Cancel", id="webcall.cancel", tooltip="Start no call"),
        Binding("y", "answer(True)", "Start billed call", id="webcall.start",
                tooltip="Start the call: billed from now, holds a call slot"),
    ]

    def __init__(self, agent_label: str, limits: AgentLimits | None, *, in_doubt: bool = False) -> None:
        if in_doubt:
            super().__init__(
                "No answer came back to the first try: that call may already be running and "
                f"billing. {rate_line(limits)}\n\n{slots_line(limits, in_doubt=True)}\n\n{AGAIN_NOTE}",
                title=f"Ask again for the web call with {agent_label}?",
                yes="Ask again", no="Cancel",
            )
            return
        super().__init__(
            f"{COST_NOTE} {rate_line(limits)}\n\n{slots_line(limits)}",
            title=f"Start a billed web call with {agent_label}?",
            yes="Start billed call", no="Cancel",
        )


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
            yield Static("Join from a browser with these credentials; media flows directly to the agent. "
                         f"{TOKEN_NOTE} The call is billed until the participant leaves.",
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
