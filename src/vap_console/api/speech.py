"""Speech synthesis (``POST /v1/tts``): the engines' rules, checked before anything is sent, and
the check that the answer is the WAV the service promises (reference/voice.md §5).

The rules are the public docs': muga takes at most one tone tag, leading (optional: the vendor's
own SDK and Pipecat plugin send plain text to muga), and no speaker or description; mulberry a
preset ``speaker_1``…``speaker_4`` or a description, not both;
mulberry-1.6 a preset ``ira``, ``aisha``, ``siya`` or ``zoya``. The console's sample dialog checks
them as the person types, ``vap voices say`` before it sends, and ``VapClient.synthesize`` again,
so a request the server would refuse (and perhaps charge a slot for) is never made.

No Textual: the console, the CLI and the client share this module.
"""

from __future__ import annotations

import io
import re
import unicodedata
import wave
from dataclasses import dataclass

from vap_console.api.limits import TTS_DESCRIPTION, TTS_TEXT
from vap_console.api.voices import DOCUMENTED_TONES

SAMPLE_RATE = 24_000
CHANNELS = 1
SAMPLE_WIDTH = 2  # bytes: 16-bit PCM
MODELS = ("muga", "mulberry", "mulberry-1.6")
SPEAKERS = {
    "muga": (),
    "mulberry": ("speaker_1", "speaker_2", "speaker_3", "speaker_4"),
    "mulberry-1.6": ("ira", "aisha", "siya", "zoya"),
}
DESCRIBED = ("mulberry",)  # the engines a description steers
MUGA_TONES = tuple(DOCUMENTED_TONES["muga"])
# Sandbox prices (docs/sandbox-voice.md "Speech synthesis"), rupees per 1,000 characters; the real
# service publishes none (a third party puts mulberry near ₹0.50 and muga dearer).
PRICE_PER_1K_RUPEES = {"muga": 1.00, "mulberry": 0.50, "mulberry-1.6": 0.50}
# A default line per language a sample says when the person types none, by the catalogue's language
# ids (the sandbox's names, or ISO codes); other languages get English. muga reads romanised text
# only, so its line is always in Latin script, with a [neutral] tag.
ROMANISED = "Namaste! Main aapki kaise madad kar sakti hoon?"
DEFAULT_LINES = {
    "hinglish": ROMANISED,
    "hindi": "नमस्ते! मैं आपकी कैसे मदद कर सकती हूँ?",
    "hi": "नमस्ते! मैं आपकी कैसे मदद कर सकती हूँ?",
    "english": "Hello! Thank you for calling. How can I help you today?",
    "en": "Hello! Thank you for calling. How can I help you today?",
}
DEFAULT_LINE = DEFAULT_LINES["english"]

_TAG = re.compile(r"\[([^\[\]]*)\]")


@dataclass(frozen=True)
class SpeechProblem:
    field: str  # the request's field: text, model, speaker, description
    message: str

    def __str__(self) -> str:
        return f"{self.field}: {self.message}"


class SpeechRequestError(ValueError):
    """A request that breaks the engine's rules: nothing was sent. ``problems`` name each field."""

    def __init__(self, problems: list[SpeechProblem]) -> None:
        self.problems = problems
        super().__init__("nothing was sent: " + "; ".join(str(p) for p in problems))


def default_line(model: str, language: str = "english") -> str:
    """The line a sample says when none is typed: the language's; for muga romanised, tagged."""
    key = language.strip().lower()
    line = DEFAULT_LINES.get(key) or DEFAULT_LINES.get(key.split("-")[0], DEFAULT_LINE)
    if model == "muga":
        return "[neutral] " + (line if line.isascii() else ROMANISED)
    return line


def speech_problems(text: str, model: str, speaker: str | None = None,
                    description: str | None = None) -> list[SpeechProblem]:
    """Every rule ``(text, model, speaker, description)`` breaks, each naming its field."""
    problems: list[SpeechProblem] = []
    if model not in MODELS:
        return [SpeechProblem("model", f"must be one of {', '.join(MODELS)}")]
    if not text.strip():
        problems.append(SpeechProblem("text", "must not be empty"))
    elif (problem := TTS_TEXT.problem(len(text))) is not None:
        problems.append(SpeechProblem("text", f"{problem} (it has {len(text):,})"))
    if model == "muga" and text.strip():
        problems += _muga_text(text)
    if speaker:
        if not SPEAKERS[model]:
            problems.append(SpeechProblem("speaker", f"{model} has no preset speakers: steer it with the "
                                                     "text's leading tone tag"))
        elif speaker not in SPEAKERS[model]:
            problems.append(SpeechProblem("speaker", f"must be one of {', '.join(SPEAKERS[model])} for {model}"))
    if description:
        if model not in DESCRIBED:
            problems.append(SpeechProblem("description", f"{model} is not steered by a description "
                                                         "(only mulberry is)"))
        elif speaker:
            problems.append(SpeechProblem("description", "give mulberry a speaker or a description, not both"))
        elif (problem := TTS_DESCRIPTION.problem(len(description))) is not None:
            problems.append(SpeechProblem("description", problem))
    return problems


def _muga_text(text: str) -> list[SpeechProblem]:
    tags = ", ".join(f"[{t}]" for t in MUGA_TONES)
    stripped = text.lstrip()
    # The tag is optional (reference voice.md §5): at most one, and it leads.
    first = _TAG.match(stripped)
    if first is not None and first.group(1).strip().lower() not in MUGA_TONES:
        return [SpeechProblem("text", f"[{first.group(1)[:40]}] is not a muga tone tag: use one of {tags}")]
    more = _TAG.search(stripped, first.end() if first else 0)
    if more is not None:
        where = "found also" if first else "found"
        return [SpeechProblem("text", f"may carry at most one tone tag, at the start ({where} {more.group(0)[:40]})")]
    # The docs: muga reads romanised Hinglish; the sandbox refuses other scripts the same way.
    foreign = next((c for c in text if c.isalpha() and not unicodedata.name(c, "").startswith("LATIN")), None)
    if foreign is not None:
        return [SpeechProblem("text", f"muga reads romanised (Latin-script) text only; found {foreign!r}: "
                                      "use mulberry for Devanagari")]
    return []


def check_speech(text: str, model: str, speaker: str | None = None, description: str | None = None) -> None:
    """SpeechRequestError when the request breaks a rule; nothing is sent then."""
    problems = speech_problems(text, model, speaker, description)
    if problems:
        raise SpeechRequestError(problems)


def request_body(text: str, model: str, speaker: str | None = None,
                 description: str | None = None) -> dict[str, str]:
    body = {"text": text, "model": model}
    if speaker:
        body["speaker"] = speaker
    if description:
        body["description"] = description
    return body


def price_rupees(model: str, characters: int) -> float | None:
    rate = PRICE_PER_1K_RUPEES.get(model)
    return None if rate is None else rate * characters / 1000


@dataclass(frozen=True)
class WavInfo:
    seconds: float
    frames: int


def wav_problem(data: bytes) -> str | None:
    """Why ``data`` is not a 24 kHz mono 16-bit PCM WAV, or None when it is."""
    try:
        with wave.open(io.BytesIO(data), "rb") as wav:
            rate, channels, width = wav.getframerate(), wav.getnchannels(), wav.getsampwidth()
            compression = wav.getcomptype()
    except Exception as exc:  # noqa: BLE001 - wave raises wave.Error, EOFError, struct.error…: not a WAV
        return f"it is not a WAV file ({type(exc).__name__})"
    if (rate, channels, width, compression) != (SAMPLE_RATE, CHANNELS, SAMPLE_WIDTH, "NONE"):
        return (f"it is {rate} Hz, {channels} channel(s), {8 * width}-bit {compression}, not "
                f"{SAMPLE_RATE} Hz mono 16-bit PCM")
    return None


def wav_info(data: bytes) -> WavInfo:
    """The length of a WAV that passed ``wav_problem``."""
    with wave.open(io.BytesIO(data), "rb") as wav:
        frames = wav.getnframes()
        return WavInfo(frames / wav.getframerate(), frames)
