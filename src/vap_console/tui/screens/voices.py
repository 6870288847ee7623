"""Voices: each engine with how it is steered (tone tags, descriptions, presets) and whether it
takes phone calls, its languages (default marked), preset voices and style descriptions.

The detail is redrawn on every cursor move: it shows the first ``MAX_DESCRIPTIONS`` style
descriptions, each up to ``DESCRIPTION_CHARS`` characters, and counts the rest (an engine with
thirty 10,000-character descriptions took seconds a cursor move to wrap them all).

``p`` plays a sample of the highlighted engine's voice (issue 26): the sample dialog picks the
preset or description and the line; the first sample of a run that needs a request is confirmed in
words saying what it costs; every sample is kept on disk (api/sample_cache.py), so the same one
again sends nothing and plays at once. Without sound (no audio extra, no device, `vap web`) the
sample's path is shown instead, and under `vap web` it is offered to the browser as a download.
"""

from __future__ import annotations

import asyncio
import weakref
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rich.console import Group, RenderableType
from rich.text import Text
from textual import events, on, work
from textual.binding import Binding
from textual.message import Message

from vap_console import audio
from vap_console.api import speech
from vap_console.api.models import VoiceEngine
from vap_console.api.sample_cache import SampleCache
from vap_console.api.voices import steering, tones_of
from vap_console.local_files import name_part
from vap_console.tui import format as fmt
from vap_console.tui.pairs import cap_string, cap_text, more
from vap_console.tui.screens.base import ListScreen
from vap_console.tui.screens.dialog import Confirm, confirm_then
from vap_console.tui.screens.numbers import fields_table
from vap_console.tui.screens.sample_dialog import SampleDialog, SampleRequest
from vap_console.tui.services import Services
from vap_console.tui.widgets.rows import Column, Row, make_row

if TYPE_CHECKING:
    from vap_console.api import VapClient

MAX_DESCRIPTIONS = 8
DESCRIPTION_CHARS = 400
MAX_LANGUAGES = 40
# The consoles in this process that have had a sample confirmed: asked once a run, not per screen.
_CONFIRMED: weakref.WeakSet[Any] = weakref.WeakSet()


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

    BINDINGS = [
        Binding("p", "sample", "Hear sample", id="voices.sample",
                tooltip="Hear a sample of the highlighted engine's voices (costs money on the real service; "
                        "the same sample again is free)"),
    ]

    class SampleNeedsConfirm(Message):
        def __init__(self, request: SampleRequest) -> None:
            super().__init__()
            self.request = request

    class SampleReady(Message):
        """A sample on disk: played (``played``), or saved with ``note`` saying why it was not."""

        def __init__(self, request: SampleRequest, path: Path, *, played: bool, cached: bool,
                     note: str | None) -> None:
            super().__init__()
            self.request = request
            self.path = path
            self.played = played
            self.cached = cached
            self.note = note

    def __init__(self, services: Services | None = None) -> None:
        super().__init__(services)
        self.default_model = ""
        self.samples = SampleCache()
        self.player: audio.Player | None = None
        self.sound_off: str | None = None
        self._last_sample: SampleRequest | None = None

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

    # --- samples ---

    def show_detail(self, item: VoiceEngine | None) -> None:
        super().show_detail(item)
        self.refresh_bindings()  # `p` is offered only on an engine that can speak

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "sample":
            engine = self.current
            return engine is not None and not engine.disabled and engine.id in speech.MODELS
        return True

    def action_sample(self) -> None:
        engine = self.current
        if engine is None or engine.disabled or engine.id not in speech.MODELS:
            return

        def chosen(request: SampleRequest | None) -> None:
            if request is not None:
                self.sample(request)

        self.app.push_screen(SampleDialog(engine, on_sandbox=self.services.on_sandbox), chosen)

    def _path_of(self, request: SampleRequest) -> Path:
        who = f"{self.services.profile_name}@{self.services.base_url}"
        voice = request.speaker
        return self.samples.path_for(who, request.model, voice, request.description, request.text)

    @work(exclusive=True, group="sample", exit_on_error=False)
    async def sample(self, request: SampleRequest, confirmed: bool = False) -> None:
        """The sample from disk when it was heard before (nothing sent); else, once the run's first
        paid sample is confirmed, from the server, kept on disk; then played, or its path shown."""
        self._last_sample = request
        path = self._path_of(request)
        data = await asyncio.to_thread(self.samples.get, path)
        cached = data is not None
        if data is None:
            if not confirmed and self.app not in _CONFIRMED:
                self.post_message(self.SampleNeedsConfirm(request))
                return
            data = await self.services.call_api(lambda c: c.synthesize(
                request.text, request.model, speaker=request.speaker, description=request.description))
            await asyncio.to_thread(self.samples.put, path, data)
        played = await asyncio.to_thread(self._play, data)
        self.post_message(self.SampleReady(request, path, played=played, cached=cached, note=self.sound_off))

    def _play(self, data: bytes) -> bool:
        """Play ``data`` when this machine can (in a worker thread: opening a device takes time)."""
        if self.player is None:
            if self.services.in_browser:
                self.player, self.sound_off = audio.SilentPlayer(), audio.IN_WEB
            else:
                self.player, self.sound_off = audio.open_player()
        if not self.player.audible:
            return False
        try:
            self.player.play_wav(data)
        except Exception as exc:  # noqa: BLE001 - a device that opened once may fail later: save instead
            self.player, self.sound_off = audio.SilentPlayer(), f"sound is off: the device failed ({exc})"
            return False
        return True

    @on(events.ScreenSuspend)
    def _quiet_when_left(self) -> None:
        # A 2,000-character sample lasts two minutes: leaving the screen (another area, or the
        # dialog for the next sample) ends the one playing.
        if self.player is not None and self.player.audible:
            self.player.stop()

    @on(SampleNeedsConfirm)
    def _confirm_sample(self, message: SampleNeedsConfirm) -> None:
        request = message.request

        def go() -> None:
            _CONFIRMED.add(self.app)
            self.sample(request, confirmed=True)

        confirm_then(self.app, SampleConfirm(request, on_sandbox=self.services.on_sandbox), go)

    @on(SampleReady)
    def _sample_ready(self, message: SampleReady) -> None:
        how = "from disk, nothing sent" if message.cached else "new"
        if message.played:
            self.notify(f"Playing {message.request.voice_label} ({how}).", title="Sample")
            return
        self.notify(f"Saved {message.path} ({how}); {message.note or 'sound is off'}.",
                    title="Sample saved", timeout=12)
        if self.services.in_browser:
            self.app.deliver_binary(message.path, save_filename=f"sample-{name_part(message.request.model)}.wav",
                                    mime_type="audio/wav")

    def retry_for(self, group: str) -> Callable[[], object] | None:
        if group == "sample" and self._last_sample is not None:
            request = self._last_sample
            # The person's own Retry: the run's confirm was already given for it.
            return lambda: self.sample(request, confirmed=True)
        return super().retry_for(group)


class SampleConfirm(Confirm):
    """The run's first sample that needs a request: what it costs, in words."""

    LABEL = "Hear a sample"

    def __init__(self, request: SampleRequest, *, on_sandbox: bool) -> None:
        n = len(request.text)
        price = speech.price_rupees(request.model, n)
        real = (f"On the real service each voice sample costs money: this one about ₹{price:,.2f} for "
                f"{n:,} characters of {request.model} (prices are not published; an estimate)."
                if price is not None else "On the real service each voice sample costs money.")
        where = ("This is a sandbox: here it is free (only its play wallet is charged).\n\n"
                 if on_sandbox else "")
        super().__init__(
            f"{where}{real}\n\nAsked once a run. Every sample is kept on disk: the same sample again "
            "is played from there and sends nothing.",
            title=f"Ask for a sample of {request.voice_label}?", yes="Play sample", no="Cancel",
        )
