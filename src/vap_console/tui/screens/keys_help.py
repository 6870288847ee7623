"""`?`: the keys of the screen underneath, grouped, one line per action, with the id to remap it by.

The console's own keys come first: this screen's, then the ones that work everywhere. The text
field and scrolling keys Textual's widgets bring follow, under their own heading. A key the app
holds with priority (ctrl+c quits, even in a text box) is listed as what it really does.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.screen import Screen
from textual.widgets import Static

from vap_console.tui import untrusted
from vap_console.tui.screens.answers_once import AnswersOnce

THIS_SCREEN, EVERYWHERE, EDITING = "This screen", "Everywhere", "Text fields and scrolling"
GROUPS = (THIS_SCREEN, EVERYWHERE, EDITING)


@dataclass
class KeyEntry:
    keys: list[str]
    does: str
    binding_id: str
    group: str
    enabled: bool = True
    seen: set[str] = field(default_factory=set)


def screen_name(screen: Screen[object]) -> str:
    """What a person calls the screen: its LABEL, else its class name in words."""
    label = getattr(screen, "LABEL", "")
    if label:
        return str(label)
    words = re.sub(r"(?<!^)(?=[A-Z])", " ", type(screen).__name__.removesuffix("Screen"))
    return words.capitalize() or "Screen"


def key_entries(screen: Screen[object]) -> list[KeyEntry]:
    """The keys active on ``screen``, one entry per action, the console's own first."""
    app = screen.app
    entries: dict[tuple[str, str], KeyEntry] = {}
    for key, active in screen.active_bindings.items():
        binding, node, enabled = active.binding, active.node, active.enabled
        # Textual lists the focused widget's binding for a key, though a priority binding of the
        # app's runs instead: say what the key really does.
        held = [b for b in app._bindings.key_to_bindings.get(key, []) if b.priority]
        if held and node is not app:
            binding, node, enabled = held[0], app, True
        if not binding.description:
            continue
        if node is app:
            group = EVERYWHERE
        elif binding.id:
            group = THIS_SCREEN
        else:
            group = EDITING
        entry = entries.setdefault((group, binding.action), KeyEntry(
            [], binding.tooltip or binding.description, binding.id or "", group, enabled))
        shown = app.get_key_display(binding)
        if shown not in entry.seen:
            entry.seen.add(shown)
            entry.keys.append(shown)
    # Tab and Shift+Tab are known to everyone: after the console's own keys, not before them.
    return sorted(entries.values(), key=lambda e: (GROUPS.index(e.group), e.binding_id in MOVING_FOCUS))


MOVING_FOCUS = frozenset({"app.focus_next", "app.focus_previous"})


def keys_table(screen: Screen[object]) -> Table:
    table = Table(expand=True, box=None, padding=(0, 2))
    table.add_column("Key", style="bold", no_wrap=True)
    table.add_column("Does", ratio=1)
    # A short heading: at 80 columns a long one left "Does" a word a line. The line under the
    # table says where the ids go.
    table.add_column(Text("Remap id"), style="dim", no_wrap=True)
    group = ""
    for entry in key_entries(screen):
        if entry.group != group:
            group = entry.group
            table.add_row(Text(("\n" if table.row_count else "") + group, style="bold underline"), "", "")
        style = "" if entry.enabled else "dim"
        # Key names come from config.toml's keymap: shown literally.
        table.add_row(untrusted.text(" / ".join(entry.keys), style), untrusted.text(entry.does, style),
                      untrusted.text(entry.binding_id))
    return table


class KeysHelpScreen(AnswersOnce[None]):
    LABEL = "Keys"
    BINDINGS = [Binding("escape,question_mark,q,f1", "close", "Close", id="keys.close",
                        tooltip="Close the key list")]

    def __init__(self, under: Screen[Any]) -> None:
        super().__init__()
        self._under = under

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog wide", id="keys-help"):
            yield Static(untrusted.content(f"Keys · {screen_name(self._under)}"), classes="dialog-title")
            with VerticalScroll():
                yield Static(keys_table(self._under))
            yield Static(Text("Press escape to close. Remap any key in config.toml under [keymap]."),
                         classes="dialog-help")

    def action_close(self) -> None:
        self.dismiss(None)
