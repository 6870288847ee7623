"""The top line: which area, which profile, which server, and whether it answers. A click on it
opens the area menu, so the areas are one click away for someone with the mouse in hand."""

from __future__ import annotations

from urllib.parse import urlsplit

from rich.cells import cell_len, set_cell_size
from rich.text import Text
from textual import events
from textual.reactive import reactive
from textual.widget import Widget

from vap_console.tui import untrusted
from vap_console.tui.services import ConnectionState, Services, services_of

CONNECTION_STYLES: dict[ConnectionState, tuple[str, str]] = {
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
    connection: reactive[ConnectionState] = reactive("connecting")

    def __init__(self, area: str, services: Services | None = None) -> None:
        super().__init__()
        self._services = services
        self.set_reactive(StatusBar.area, area)
        self.tooltip = "Click to go to another area (or press 1–7)"

    async def on_click(self, event: events.Click) -> None:
        event.stop()
        await self.app.run_action("area_menu")

    @property
    def services(self) -> Services:
        return self._services if self._services is not None else services_of(self.app)

    def on_mount(self) -> None:
        self.services.follow_connection(self, self._sync, init=True)

    def _sync(self, value: ConnectionState) -> None:
        self.connection = value

    def render(self) -> Text:
        """The longest of these that fits: a narrow terminal drops the hint, then the words
        around the names, then cuts the host and profile (with …), never the connection."""
        services = self.services
        label, style = CONNECTION_STYLES.get(self.connection, (self.connection, ""))
        # Profile names and the base URL come from the config file or the environment.
        profile = untrusted.clean(services.profile_label or services.profile_name, multiline=False)
        host = untrusted.clean(host_of(services.base_url), multiline=False)
        width = self.content_size.width or self.app.size.width

        def line(area_prefix: str, profile_prefix: str, sep: str, hint: str,
                 profile_text: str = profile, host_text: str = host) -> Text:
            return Text.assemble(
                (area_prefix, "bold"), (self.area, "bold"),
                f"{sep}{profile_prefix}", (profile_text, "bold"),
                sep, host_text, sep, (label, style), (hint, "dim"),
                no_wrap=True, overflow="crop", end="",
            )

        for candidate in (
            line("vap ", "profile ", "  │  ", "   1–8 areas · 7 Profiles · ? keys"),
            line("vap ", "profile ", "  │  ", "   ? keys"),
            line("vap ", "profile ", "  │  ", ""),
            line("", "", " │ ", ""),
        ):
            if candidate.cell_len <= width:
                return candidate
        # Still too wide: the host, then the profile, give up what they must.
        compact = line("", "", " │ ", "")
        over = compact.cell_len - width
        host_room = max(cell_len(host) - over, 4)
        over -= cell_len(host) - host_room
        profile_room = max(cell_len(profile) - max(over, 0), 4)
        return line("", "", " │ ", "", shorten(profile, profile_room), shorten(host, host_room))


def shorten(text: str, width: int) -> str:
    """``text`` cut to ``width`` cells with …, or whole when it fits."""
    if cell_len(text) <= width:
        return text
    return set_cell_size(text, width - 1) + "…"
