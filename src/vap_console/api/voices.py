"""How each voice engine is steered, and whether a ttsConfig fits the catalogue, before sending.

The spec's catalogue entry (section 2.7) lists an engine's named voices and style descriptions;
the public docs add what it does not say (reference/real-service.md): muga is steered by one
leading tone tag and inline events and takes no description; mulberry by a description or a
preset speaker; mulberry-1.6 by a preset. The rules here read the catalogue the server sends, so a
server that adds an engine is judged by its own entry; the docs fill in only muga's tone tags,
when the server does not list them itself.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from vap_console.api.models import TtsConfig, VoiceCatalog, VoiceEngine

# Public docs: muga's tone tags and inline events, for a server that does not list them.
DOCUMENTED_TONES = {"muga": ["neutral", "happy", "sad", "excited", "angry", "whisper"]}
DOCUMENTED_EVENTS = {"muga": ["<laugh>", "<chuckle>", "<sigh>"]}
F0_RANGE = (-12.0, 12.0)


def _strings(value: Any) -> list[str]:
    return [v for v in value if isinstance(v, str)] if isinstance(value, list) else []


def tones_of(engine: VoiceEngine) -> list[str]:
    extra = engine.model_extra or {}
    return _strings(extra.get("tones")) or DOCUMENTED_TONES.get(engine.id, [])


def events_of(engine: VoiceEngine) -> list[str]:
    extra = engine.model_extra or {}
    return _strings(extra.get("events")) or DOCUMENTED_EVENTS.get(engine.id, [])


def _listed(values: list[str], limit: int = 4) -> str:
    shown = ", ".join(values[:limit])
    return shown + (f" and {len(values) - limit} more" if len(values) > limit else "")


def steering(engine: VoiceEngine) -> str:
    """One line: how the engine is steered, and whether its agents take phone calls."""
    ways: list[str] = []
    tones = tones_of(engine)
    if tones:
        tags = " ".join(f"[{t}]" for t in tones[:6])
        events = events_of(engine)
        ways.append(f"one leading tone tag ({tags})" + (f" and inline {' '.join(events)}" if events else ""))
    if engine.descriptions:
        ways.append(f"a description ({len(engine.descriptions)} offered)")
    if engine.voices:
        ways.append(f"a preset voice ({_listed(engine.voices)})")
    how = "Steered by " + " or ".join(ways) if ways else "No steering listed"
    if tones and not engine.descriptions:
        how += "; no descriptions"
    calls = "takes phone calls" if engine.phone_calls else "no phone calls (web calls only)"
    return f"{how} · {calls}"


@dataclass(frozen=True)
class TtsProblem:
    field: str  # ttsConfig.<name>
    message: str

    def __str__(self) -> str:
        return f"{self.field}: {self.message}"


def _number(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return float(value)


def tts_problems(tts: TtsConfig | None, catalog: VoiceCatalog) -> list[TtsProblem]:
    """What is wrong with ``tts`` against the catalogue, each naming the field and the rule.

    Empty when it fits (or says nothing the catalogue can judge). No model means the server's
    default model.
    """
    if tts is None:
        return []
    problems: list[TtsProblem] = []
    engines = {e.id: e for e in catalog.models}
    model = tts.model or catalog.default_model
    engine = engines.get(model)
    if engine is None:
        known = ", ".join(engines) or "none"
        return [TtsProblem("ttsConfig.model", f"{model!r} is not an engine of this account (it has: {known})")]
    if engine.disabled:
        problems.append(TtsProblem("ttsConfig.model", f"{model} is disabled on this account"))
    voice = tts.voice or ""
    if voice and not engine.voices:
        problems.append(TtsProblem("ttsConfig.voice", f"must be empty: {model} has no preset voices"))
    elif voice and voice not in engine.voices:
        problems.append(TtsProblem("ttsConfig.voice", f"{voice!r} is not a {model} voice; use one of "
                                                      f"{', '.join(engine.voices)}"))
    elif not voice and engine.voices and not engine.descriptions and not tones_of(engine):
        problems.append(TtsProblem("ttsConfig.voice", f"{model} needs a preset voice: one of "
                                                      f"{', '.join(engine.voices)}"))
    if tts.description and not engine.descriptions:
        tones = tones_of(engine)
        how = f"steer it with a leading tone tag such as [{tones[0]}] instead" if tones else "choose a preset voice"
        problems.append(TtsProblem("ttsConfig.description",
                                   f"must be empty: {model} takes no description; {how}"))
    f0 = tts.f0_up_key
    if f0 is not None:
        number = _number(f0)
        low, high = F0_RANGE
        if number is None or not low <= number <= high:
            problems.append(TtsProblem("ttsConfig.f0_up_key", f"must be a number from {low:g} to {high:g}"))
    return problems
