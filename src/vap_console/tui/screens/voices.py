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
        Column("Label", 20),
        Column("Badge", 10),
        Column("Default", 7),
        Column("Disabled", 8),
        Column("Phone calls", 11),
        Column("Languages", 30),
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
                Text(e.id, style="bold" if e.id == self.default_model else ""),
                e.label,
                e.badge or "",
                "★" if e.id == self.default_model else "",
                fmt.yes_no(e.disabled),
                fmt.yes_no(e.phone_calls),
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
