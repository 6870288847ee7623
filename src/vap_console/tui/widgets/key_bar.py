"""The keys of the screen, on the bottom line: what Textual's Footer shows, drawn as one widget.

Footer builds a widget per key and builds them all again whenever focus moves; on the console's
first screen that was ~160 ms of a ~1.2 s start (bench/tui.py). One line of text, redrawn when
the bindings change, costs about a millisecond. Keys follow the keymap, disabled ones are dim,
a click presses the key, and hovering one shows its tooltip.
"""

from __future__ import annotations

from typing import NamedTuple

from rich.cells import cell_len
from rich.text import Text
from textual import events
from textual.screen import Screen
from textual.widget import Widget


class _Key(NamedTuple):
    key: str
    display: str
    description: str
    enabled: bool
    tooltip: str
    short: str  # what a narrow terminal shows instead of the description
    action: str


# Short forms where the description's first word would not do: it would say nothing ("Web") or
# the same thing for several keys (the web call's four "Copy").
SHORT = {
    "agents.webcall": "Call",
    "webcall.copy_host": "Host",
    "webcall.copy_room": "Room",
    "webcall.copy_call": "Call id",
    "webcall.copy_token": "Token",
}

# The key that lists all the others: never left out of a narrow bar.
HELP_ACTIONS = {"keys_help", "show_keys"}


def short_form(binding_id: str | None, description: str) -> str:
    return SHORT.get(binding_id or "", description.split(" ", 1)[0])


class KeyBar(Widget, can_focus=False):
    ALLOW_SELECT = False
    COMPONENT_CLASSES = {"key-bar--key", "key-bar--description", "key-bar--separator"}
    DEFAULT_CSS = """
    KeyBar {
        dock: bottom;
        height: 1;
        color: $footer-foreground;
        background: $footer-background;
        text-wrap: nowrap;
        & > .key-bar--key {
            color: $footer-key-foreground;
            background: $footer-key-background;
            text-style: bold;
        }
        & > .key-bar--description {
            color: $footer-description-foreground;
            background: $footer-description-background;
        }
        & > .key-bar--separator {
            color: $foreground 20%;
        }
    }
    """

    def __init__(self, *, id: str | None = None) -> None:  # `id`: Textual's name
        super().__init__(id=id)
        # (first column, last column + 1, key) of each key drawn, for clicks and tooltips.
        self._spans: list[tuple[int, int, _Key]] = []
        # The keys drawn last (with the palette's), to tell whether new bindings change the line.
        self._shown: tuple[list[_Key], _Key | None] | None = None

    def on_mount(self) -> None:
        self.screen.bindings_updated_signal.subscribe(self, self._bindings_changed)

    def on_unmount(self) -> None:
        self.screen.bindings_updated_signal.unsubscribe(self)

    def _bindings_changed(self, screen: Screen[object]) -> None:
        # Textual says so after every focus change (`/` to the filter box and escape back, say),
        # mostly with the same keys: a repaint then cost the key one more frame to wait for.
        if self._keys() != self._shown:
            self.refresh()

    def _keys(self) -> tuple[list[_Key], _Key | None]:
        """The keys to show, one per action (its first key), and the command palette's."""
        app = self.app
        active = self.screen.active_bindings
        shown: list[_Key] = []
        actions: set[str] = set()
        for _node, binding, enabled, tooltip in active.values():
            if binding.show and binding.action not in actions:
                actions.add(binding.action)
                shown.append(_Key(binding.key, app.get_key_display(binding), binding.description, enabled,
                                  tooltip or binding.tooltip or binding.description,
                                  short_form(binding.id, binding.description), binding.action))
        palette = None
        if app.ENABLE_COMMAND_PALETTE and app.COMMAND_PALETTE_BINDING in active:
            _node, binding, enabled, tooltip = active[app.COMMAND_PALETTE_BINDING]
            palette = _Key(binding.key, app.get_key_display(binding), binding.description, enabled,
                           tooltip or binding.tooltip or binding.description,
                           short_form(binding.id, binding.description), binding.action)
        return shown, palette

    def _fitting(self, shown: list[_Key], palette: _Key | None) -> tuple[list[_Key], bool, bool]:
        """What fits the width, as (keys, short descriptions?, palette?): a line cut mid-word
        (`q Qui`) reads as a fault. Full words first, then without the palette's corner, then
        short words, then keys dropped from the end, the one that lists them all (`?`) kept."""
        width = self.size.width

        def size(keys: list[_Key], short: bool, with_palette: bool) -> int:
            total = sum(cell_len(k.display) + 2 + (cell_len(k.short if short else k.description) + 1
                                                    if k.description else 0) for k in keys)
            if with_palette and palette is not None:
                total += 1 + cell_len(palette.display) + 2 + cell_len(palette.description) + 1 + 1
            return total

        for short, with_palette in ((False, True), (False, False), (True, True), (True, False)):
            if size(shown, short, with_palette) <= width:
                return shown, short, with_palette and palette is not None
        keys = list(shown)
        while size(keys, True, False) > width:
            droppable = [k for k in keys if k.action not in HELP_ACTIONS]
            if not droppable:
                break
            keys.remove(droppable[-1])
        return keys, True, False

    def render(self) -> Text:
        key_style = self.get_component_rich_style("key-bar--key")
        description_style = self.get_component_rich_style("key-bar--description")
        shown, palette = self._shown = self._keys()
        line = Text(no_wrap=True, overflow="crop", end="")
        spans: list[tuple[int, int, _Key]] = []

        def add(key: _Key, short: bool) -> None:
            start = line.cell_len
            line.append(f" {key.display} ", key_style)
            if key.description:
                line.append(f"{key.short if short else key.description} ", description_style)
            if not key.enabled:
                line.stylize("dim", start)
            spans.append((start, line.cell_len, key))

        shown, short, with_palette = self._fitting(shown, palette)
        for key in shown:
            add(key, short)
        if with_palette and palette is not None:
            width = self.size.width
            tail = Text(no_wrap=True, end="")
            tail.append("▏", self.get_component_rich_style("key-bar--separator"))
            tail.append(f" {palette.display} ", key_style)
            tail.append(f"{palette.description} ", description_style)
            if width > line.cell_len + tail.cell_len:
                line.append(" " * (width - line.cell_len - tail.cell_len))
                start = line.cell_len
                line.append_text(tail)
                spans.append((start, line.cell_len, palette))
        self._spans = spans
        return line

    def _key_at(self, x: int) -> _Key | None:
        return next((key for start, end, key in self._spans if start <= x < end), None)

    def on_mouse_down(self, event: events.MouseDown) -> None:
        key = self._key_at(event.x)
        if key is None:
            return
        if key.enabled:
            self.app.simulate_key(key.key)
        else:
            self.app.bell()

    def on_mouse_move(self, event: events.MouseMove) -> None:
        key = self._key_at(event.x)
        self.tooltip = key.tooltip if key is not None else None
