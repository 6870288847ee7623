"""Voices: each engine with how it is steered (tone tags, descriptions, presets) and whether it
takes phone calls, its languages (default marked), preset voices and style descriptions.

The detail is redrawn on every cursor move: it shows the first ``MAX_DESCRIPTIONS`` style
descriptions, each up to ``DESCRIPTION_CHARS`` characters, and counts the rest (an engine with
thirty 10,000-character descriptions took seconds a cursor move to wrap them all).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.console import Group, RenderableType
from rich.text import Text

from vap_console.api.models import VoiceEngine
from vap_console.api.voices import steering, tones_of
from vap_console.tui import format as fmt
from vap_console.tui.pairs import cap_string, cap_text, more
from vap_console.tui.screens.base import ListScreen
from vap_console.tui.screens.numbers import fields_table
from vap_console.tui.services import Services
from vap_console.tui.widgets.rows import Column, Row, make_row

if TYPE_CHECKING:
    from vap_console.api import VapClient

MAX_DESCRIPTIONS = 8
DESCRIPTION_CHARS = 400
MAX_LANGUAGES = 40


def short(value: str, limit: int = 200) -> str:
    """A name, id or subtitle up to ``limit`` characters, then how many more there are."""
    return cap_string(value, limit, 1)


class VoicesScreen(ListScreen[VoiceEngine]):
    AREA = "voices"
    LABEL = "Voices"
    NOUN = "voice engines"
    EMPTY = "This account offers no voice engines."
    COLUMNS = (
        Column("Engine", 20, min_width=8),
        # The badge and a disabled mark ride in the label's cell, leaving the languages room.
        Column("Label", 28, min_width=8),
        # Narrow, the counts go before the languages, which say what an engine is for.
        Column("Phone", 5, min_width=5, drop=2),
        Column("Voices", 6, min_width=6, drop=3),
        Column("Languages", 40, min_width=12, drop=1),
    )

    def __init__(self, services: Services | None = None) -> None:
        super().__init__(services)
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
                str(len(e.voices)) if e.voices else ("tones" if tones_of(e) else "styles" if e.descriptions else "—"),
                ", ".join(lang.label for lang in e.languages),
            ),
        )

    def render_detail(self, e: VoiceEngine) -> RenderableType:
        langs = Text()
        for lang in e.languages[:MAX_LANGUAGES]:
            default = lang.id == e.default_language
            langs.append(("★ " if default else "  ") + f"{short(lang.label)} ({short(lang.id)})",
                         style="bold" if default else ("dim" if lang.disabled else ""))
            if lang.disabled:
                langs.append(" disabled", style="dim")
            langs.append("\n")
        if len(e.languages) > MAX_LANGUAGES:
            langs.append_text(more(len(e.languages) - MAX_LANGUAGES, "languages"))
            langs.append("\n")
        # One Text a description, each capped: the pane's own cap would keep only the first few.
        styles: list[Text] = []
        for d in e.descriptions[:MAX_DESCRIPTIONS]:
            head = Text.assemble((short(d.label), "bold"), (f" · {short(d.subtitle)}  [{short(d.id)}]", "dim"))
            styles += [head, cap_text("  " + d.description, DESCRIPTION_CHARS)]
        if len(e.descriptions) > MAX_DESCRIPTIONS:
            styles.append(more(len(e.descriptions) - MAX_DESCRIPTIONS, "style descriptions"))
        return Group(
            Text(short(e.label, 400) + ("  ★ default model" if e.id == self.default_model else ""), style="bold"),
            # What a person needs first to write a prompt or a ttsConfig for this engine.
            Text(steering(e), style="italic"),
            fields_table([
                ("engine id", e.id),
                ("badge", e.badge),
                ("disabled", fmt.yes_no(e.disabled)),
                ("phone calls", fmt.yes_no(e.phone_calls)),
                ("voices", ", ".join(e.voices) or Text("no presets", style="dim")),
                ("default language", e.default_language),
            ]),
            Text("\nLanguages", style="bold underline"),
            langs,
            Text("Style descriptions", style="bold underline"),
            *(styles if e.descriptions else [Text("none", style="dim")]),
        )
