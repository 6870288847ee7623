"""What a voice sample says when the person types nothing, and what it is quoted to cost: the line
suits the engine and the language and is never refused by the engine's own rules; the estimate
shown before a sample is what the sandbox then charges."""

from __future__ import annotations

import json

import pytest

from vap_console.api.speech import MODELS, default_line, price_rupees, speech_problems
from vap_console.sandbox.voice.tts import NANOS, price_nanos

ENGLISH = "Hello! Thank you for calling. How can I help you today?"
HINDI = "नमस्ते! मैं आपकी कैसे मदद कर सकती हूँ?"
ROMANISED = "Namaste! Main aapki kaise madad kar sakti hoon?"


@pytest.mark.parametrize("model", MODELS)
@pytest.mark.parametrize("language", ["english", "en-GB", "hindi", "hi-IN", "hinglish", "tamil", " Hindi "])
def test_the_default_line_passes_the_engines_rules(model: str, language: str) -> None:
    assert speech_problems(default_line(model, language), model) == []


@pytest.mark.parametrize(("model", "language", "line"), [
    ("mulberry", "hindi", HINDI),
    ("mulberry-1.6", "hi-IN", HINDI),  # a regional code reads as its language
    ("mulberry", "tamil", ENGLISH),  # a language with no line of its own: English
    ("mulberry", "en-GB", ENGLISH),
    ("muga", "english", "[neutral] " + ENGLISH),  # muga: tagged, and English stays English
    ("muga", "hindi", "[neutral] " + ROMANISED),  # muga reads Latin script only: romanised
    ("muga", "hinglish", "[neutral] " + ROMANISED),
    ("aura", "english", ENGLISH),  # an engine this console does not know: the plain line
])
def test_the_default_line_follows_the_engine_and_the_language(model: str, language: str, line: str) -> None:
    assert default_line(model, language) == line
    # The engine's name as the catalogue's JSON hands it over, not the module's own literal.
    assert default_line(json.loads(json.dumps(model)), language) == line


@pytest.mark.parametrize("model", MODELS)
@pytest.mark.parametrize("characters", [1, 15, 55, 999, 1000, 2000])
def test_the_price_quoted_is_what_the_sandbox_charges(model: str, characters: int) -> None:
    assert price_rupees(model, characters) == pytest.approx(price_nanos(model, characters) / NANOS, rel=1e-12)


def test_an_engine_with_no_known_price_is_quoted_none() -> None:
    assert price_rupees("opus", 1000) is None
