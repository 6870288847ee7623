"""`?`: the keys of the screen underneath, with what each does and the id to remap it by."""

from __future__ import annotations

from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen, Screen
from textual.widgets import Static

from vap_console.tui import untrusted


def keys_table(screen: Screen[object]) -> Table:
    table = Table(expand=True, box=None, padding=(0, 2))
    table.add_column("Key", style="bold", no_wrap=True)
    table.add_column("Does")
    table.add_column(Text("Remap id (config.toml [keymap])"), style="dim", no_wrap=True)
    seen: set[str] = set()
    for key, active in screen.active_bindings.items():
        binding = active.binding
        if not binding.description or binding.id in seen:
            continue
        seen.add(binding.id or key)
        display = screen.app.get_key_display(binding)
        table.add_row(untrusted.text(display), untrusted.text(binding.tooltip or binding.description),
                      untrusted.text(binding.id or ""))
    return table


class KeysHelpScreen(ModalScreen[None]):
    BINDINGS = [Binding("escape,question_mark,q", "close", "Close", id="keys.close", tooltip="Close the key list")]

    def __init__(self, under: Screen[object]) -> None:
        super().__init__()
        self._under = under

    def compose(self) -> ComposeResult:
        title = getattr(self._under, "LABEL", "") or type(self._under).__name__
        with Vertical(classes="dialog wide", id="keys-help"):
            yield Static(untrusted.content(f"Keys · {title}"), classes="dialog-title")
            with VerticalScroll():
                yield Static(keys_table(self._under))
            yield Static(Text("Press escape to close. Remap any key in config.toml under [keymap]."),
                         classes="dialog-help")

    def action_close(self) -> None:
        self.dismiss(None)
