"""Voices: each engine with its languages (default marked), voices and style descriptions."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.console import Group, RenderableType
from rich.text import Text

from vap_console.api.models import VoiceEngine
from vap_console.tui import format as fmt
from vap_console.tui.screens.base import ListScreen
from vap_console.tui.screens.numbers import fields_table
from vap_console.tui.widgets.rows import Column, Row, make_row

if TYPE_CHECKING:
    from vap_console.api import VapClient


class VoicesScreen(ListScreen[VoiceEngine]):
    AREA = "voices"
    LABEL = "Voices"
    NOUN = "voice engines"
    EMPTY = "This account offers no voice engines."
    COLUMNS = (
        Column("Engine", 20),
        # The badge and a disabled mark ride in the label's cell, leaving the languages room.
        Column("Label", 28),
        Column("Phone", 5),
        Column("Voices", 6),
        Column("Languages", 40),
    )

    def __init__(self) -> None:
        super().__init__()
        self.default_model = ""

    async def fetch(self, client: VapClient) -> list[VoiceEngine]:
        catalog = await client.list_voices()
        self.default_model = catalog.default_model
        return list(catalog.models)

    def row_of(self, e: VoiceEngine) -> Row:
        return make_row(
            e.id,
            (
                Text(e.id + (" ★" if e.id == self.default_model else ""),
                     style="bold" if e.id == self.default_model else ""),
                Text.assemble(
                    (e.label, "dim" if e.disabled else ""),
                    (f" [{e.badge}]" if e.badge else "", "italic"),
                    (" disabled" if e.disabled else "", "dim"),
                ),
                fmt.yes_no(e.phone_calls),
                str(len(e.voices)) if e.voices else "styles",
                ", ".join(lang.label for lang in e.languages),
            ),
        )

    def render_detail(self, e: VoiceEngine) -> RenderableType:
        langs = Text()
        for lang in e.languages:
            default = lang.id == e.default_language
            langs.append(("★ " if default else "  ") + f"{lang.label} ({lang.id})",
                         style="bold" if default else ("dim" if lang.disabled else ""))
            if lang.disabled:
                langs.append(" disabled", style="dim")
            langs.append("\n")
        styles = Text()
        for d in e.descriptions:
            styles.append(f"{d.label}", style="bold")
            styles.append(f" · {d.subtitle}  [{d.id}]\n", style="dim")
            styles.append(f"  {d.description}\n")
        return Group(
            Text(e.label + ("  ★ default model" if e.id == self.default_model else ""), style="bold"),
            fields_table([
                ("engine id", e.id),
                ("badge", e.badge),
                ("disabled", fmt.yes_no(e.disabled)),
                ("phone calls", fmt.yes_no(e.phone_calls)),
                ("voices", ", ".join(e.voices) or Text("none named: steer it with a style description", style="dim")),
                ("default language", e.default_language),
            ]),
            Text("\nLanguages", style="bold underline"),
            langs,
            Text("Style descriptions", style="bold underline"),
            styles if e.descriptions else Text("none", style="dim"),
        )
