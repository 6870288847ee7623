"""The top line: which area, which profile, which server, and whether it answers."""

from __future__ import annotations

from urllib.parse import urlsplit

from rich.text import Text
from textual.reactive import reactive
from textual.widget import Widget

from vap_console.tui import untrusted

CONNECTION_STYLES = {
    "connecting": ("◌ connecting", "yellow"),
    "online": ("● online", "green"),
    "offline": ("● offline", "red"),
    "rejected": ("● key rejected", "red"),
    "limited": ("● rate limited (429)", "yellow"),
}


def host_of(base_url: str) -> str:
    parts = urlsplit(base_url)
    return parts.netloc or base_url


class StatusBar(Widget):
    DEFAULT_CSS = """
    StatusBar {
        dock: top;
        height: 1;
        background: $panel;
        color: $text;
        padding: 0 1;
    }
    """

    area = reactive("")
    connection = reactive("connecting")

    def __init__(self, area: str) -> None:
        super().__init__()
        self.set_reactive(StatusBar.area, area)

    def on_mount(self) -> None:
        self.watch(self.app, "connection", self._sync, init=True)

    def _sync(self, value: str) -> None:
        self.connection = value

    def render(self) -> Text:
        app = self.app
        label, style = CONNECTION_STYLES.get(self.connection, (self.connection, ""))
        line = Text.assemble(
            ("vap ", "bold"),
            (self.area, "bold"),
            "  │  profile ",
            # Profile names and the base URL come from the config file or the environment.
            (untrusted.clean(getattr(app, "profile_label", "") or getattr(app, "profile_name", ""),
                             multiline=False), "bold"),
            "  │  ",
            untrusted.clean(host_of(getattr(app, "base_url", "")), multiline=False),
            "  │  ",
            (label, style),
            ("   1–6 areas · 7 profiles · ? keys", "dim"),
        )
        return line
