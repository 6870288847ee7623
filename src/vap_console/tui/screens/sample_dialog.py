"""Hear a voice before choosing it (issue 26): which voice of the engine, and the line it says.

The line starts as a default for the engine's language (tagged ``[neutral]`` for muga) and may be
anything up to 2,000 characters; the engine's rules (api/speech.py, the ones ``VapClient.synthesize``
checks) are checked as it is typed, naming the field, and a sample that breaks one cannot be asked
for. The dialog answers a SampleRequest, or None; it sends nothing itself.
"""

from __future__ import annotations

from dataclasses import dataclass

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.widgets import Button, Input, Label, Select, Static

from vap_console.api import speech
from vap_console.api.limits import TTS_TEXT
from vap_console.api.models import VoiceEngine
from vap_console.tui import untrusted
from vap_console.tui.screens.dialog import Dialog, DialogBox
from vap_console.tui.widgets.field_error import FieldError

SPEAKER = "speaker:"
DESCRIPTION = "description:"


@dataclass(frozen=True)
class SampleRequest:
    """One sample to hear: the engine, a preset speaker or a description (or neither), the text."""

    model: str
    text: str
    speaker: str | None = None
    description: str | None = None
    voice_label: str = ""

    @property
    def problems(self) -> list[speech.SpeechProblem]:
        return speech.speech_problems(self.text, self.model, self.speaker, self.description)


def voice_options(engine: VoiceEngine) -> list[tuple[str, str]]:
    """(label, value) for each voice a sample can use: presets first, then style descriptions."""
    options = [(f"{v} (preset)", SPEAKER + v) for v in engine.voices]
    if engine.id in speech.DESCRIBED:
        options += [(f"{d.label} (description)", DESCRIPTION + d.id) for d in engine.descriptions]
    return options


def cost_note(model: str, characters: int, *, on_sandbox: bool) -> str:
    if on_sandbox:
        return "On this sandbox a sample is free (its play wallet is charged, nothing real)."
    price = speech.price_rupees(model, characters)
    about = f" (about ₹{price:,.2f} for {characters:,} characters; the price is not published)" if price else ""
    return f"Costs money on the real service{about}. A sample heard before is replayed from disk, free."


class SampleDialog(Dialog["SampleRequest | None"]):
    LABEL = "Hear a sample"
    BINDINGS = [
        Binding("escape", "cancel", "Cancel", id="sample.cancel", tooltip="Close without asking for a sample"),
        Binding("ctrl+s", "play", "Play", id="sample.play", tooltip="Ask for this sample and play it"),
    ]
    AUTO_FOCUS = "#sample-text"

    def __init__(self, engine: VoiceEngine, *, on_sandbox: bool, voice: str | None = None) -> None:
        super().__init__()
        self.engine = engine
        self.on_sandbox = on_sandbox
        self.options = voice_options(engine)
        ids = [lang.id for lang in engine.languages if not lang.disabled]
        self.language = engine.default_language if engine.default_language in ids else (ids[0] if ids else "")
        self.first_voice = voice if voice in [v for _l, v in self.options] else (
            self.options[0][1] if self.options else None)

    def compose(self) -> ComposeResult:
        e = self.engine
        with DialogBox(classes="dialog", id="sample-dialog"):
            yield Static(untrusted.content(f"Hear a sample of {e.label} ({e.id})"), classes="dialog-title")
            if self.options:
                yield Label("Voice")
                yield Select([(untrusted.content(label), value) for label, value in self.options],
                             value=self.first_voice, allow_blank=False, id="sample-voice")
            else:
                yield Static(untrusted.content(f"{e.id} has one voice, steered by the line's leading tone tag."),
                             classes="dialog-help")
            languages = [lang for lang in e.languages if not lang.disabled]
            if len(languages) > 1:
                yield Label("Language of the default line")
                yield Select([(untrusted.content(lang.label), lang.id) for lang in languages],
                             value=self.language, allow_blank=False, id="sample-language")
            yield Label(f"Line to say ({TTS_TEXT.rule()})")
            yield untrusted.LiteralInput(speech.default_line(e.id, self.language),
                                         id="sample-text", max_length=TTS_TEXT.high, select_on_focus=False)
            yield FieldError(id="sample-error")
            yield Static(untrusted.content(cost_note(e.id, 0, on_sandbox=self.on_sandbox)), id="sample-cost",
                         classes="dialog-help")
            with Horizontal(classes="dialog-buttons"):
                yield Button("Play (enter)", id="sample-play", variant="primary")
                yield Button("Cancel (esc)", id="sample-cancel")

    def on_mount(self) -> None:
        self._check()

    def request(self) -> SampleRequest:
        text = self.query_one("#sample-text", Input).value
        speaker = description = None
        label = self.engine.id
        if self.options:
            value = str(self.query_one("#sample-voice", Select).value)
            label = next((lbl for lbl, v in self.options if v == value), value)
            if value.startswith(SPEAKER):
                speaker = value.removeprefix(SPEAKER)
            else:
                wanted = value.removeprefix(DESCRIPTION)
                description = next((d.description for d in self.engine.descriptions if d.id == wanted), None)
        return SampleRequest(self.engine.id, text, speaker, description, label)

    @on(Select.Changed, "#sample-language")
    def _language_changed(self, event: Select.Changed) -> None:
        line = self.query_one("#sample-text", Input)
        # A line the person typed is theirs; only the default follows the language.
        if line.value == speech.default_line(self.engine.id, self.language):
            self.language = str(event.value)
            line.value = speech.default_line(self.engine.id, self.language)
        else:
            self.language = str(event.value)

    @on(Input.Changed, "#sample-text")
    @on(Select.Changed, "#sample-voice")
    def _check(self) -> bool:
        request = self.request()
        problems = request.problems
        self.query_one("#sample-error", FieldError).show("; ".join(str(p) for p in problems))
        self.query_one("#sample-cost", Static).update(untrusted.content(
            cost_note(request.model, len(request.text), on_sandbox=self.on_sandbox)))
        self.query_one("#sample-play", Button).disabled = bool(problems)
        return not problems

    @on(Input.Submitted, "#sample-text")
    @on(Button.Pressed, "#sample-play")
    def action_play(self) -> None:
        if self._check():
            self.dismiss(self.request())

    @on(Button.Pressed, "#sample-cancel")
    def action_cancel(self) -> None:
        self.dismiss(None)
