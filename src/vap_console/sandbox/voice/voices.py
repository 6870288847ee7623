"""The catalog's voices (sandbox/catalog.py) as eSpeak voices: one fixed mapping, so a voice
sounds the same on every run and different voices are told apart by ear.

- mulberry's presets ``speaker_1``…``speaker_4``: two female and two male variants at four pitches;
- mulberry-1.6's ``ira``, ``aisha``, ``siya``, ``zoya``: four female variants at four pitches;
- muga (``"muga"`` or ``"default"``): one female voice whose delivery follows the text's leading
  tone tag (``[happy] ``…); the inline events ``<laugh>``, ``<chuckle>``, ``<sigh>`` are spoken as
  short interjections;
- any other voice string is a mulberry *description*: a woman or a man by its words, slower or
  brisker by its words, and a pitch picked from a hash of the whole description.

Characters of other scripts, emoji and symbols are skipped (``speakable``). The language comes
from the text's script: Devanagari is read as Hindi, the other Indic scripts
of mulberry-1.6 in their languages, Latin script (English, romanised Hinglish) as English.
``f0_up_key`` moves the pitch by about three of eSpeak's pitch steps per semitone (approximate).
"""

from __future__ import annotations

import functools
import hashlib
import re
import string
import unicodedata
from dataclasses import replace

from vap_console.sandbox.catalog import MUGA_TONES
from vap_console.sandbox.voice.espeak import Utterance

# variant of eSpeak (espeak-ng-data/voices/!v), pitch 0..99
_PRESETS: dict[str, tuple[str, int]] = {
    "default": ("f3", 50),
    "muga": ("f3", 50),
    "speaker_1": ("f3", 52),
    "speaker_2": ("m3", 46),
    "speaker_3": ("f4", 62),
    "speaker_4": ("m1", 36),
    "ira": ("f1", 55),
    "aisha": ("f2", 64),
    "siya": ("f5", 58),
    "zoya": ("f4", 70),
}

# eSpeak's loudness (its default is 100): its loudest voices then peak near full scale, and a
# louder tone would clip; 80 leaves them headroom.
VOLUME = 80
# tone: (pitch change, words a minute, intonation range, volume, variant or None to keep the voice's)
_TONES: dict[str, tuple[int, int, int, int, str | None]] = {
    "neutral": (0, 165, 50, VOLUME, None),
    "happy": (8, 180, 75, VOLUME + 6, None),
    "sad": (-8, 135, 20, VOLUME - 8, None),
    "excited": (14, 200, 95, VOLUME + 12, None),
    "angry": (-2, 185, 85, VOLUME + 16, None),
    "whisper": (0, 150, 40, VOLUME + 16, "whisperf"),
}
assert set(_TONES) == set(MUGA_TONES), "every tone of the catalog has a delivery"

_EVENT_WORDS = {"laugh": " ha ha! ", "chuckle": " heh. ", "sigh": " hmm. "}
_LEADING_TAG = re.compile(r"^\s*\[\s*([A-Za-z_]+)\s*\]\s*")
_EVENT = re.compile(r"<([A-Za-z_]+)>")

# The first letter of one of these scripts decides the language.
_SCRIPTS = {
    "DEVANAGARI": "hi", "BENGALI": "bn", "GURMUKHI": "pa", "GUJARATI": "gu", "ORIYA": "or",
    "TAMIL": "ta", "TELUGU": "te", "KANNADA": "kn", "MALAYALAM": "ml",
}

_SPOKEN_SCRIPTS = {"LATIN", *_SCRIPTS}
_PUNCTUATION = set(string.punctuation) | set("।॥‘’“”–—…")

_FEMALE_WORDS = re.compile(r"\b(woman|women|female|girl|lady|she|her)\b", re.IGNORECASE)
_MALE_WORDS = re.compile(r"\b(man|men|male|boy|gentleman|he|his)\b", re.IGNORECASE)
_SLOW_WORDS = re.compile(r"\b(slow|slowly|calm|relaxed|soothing)\b", re.IGNORECASE)
_FAST_WORDS = re.compile(r"\b(fast|quick|brisk|upbeat|lively|energetic)\b", re.IGNORECASE)


def speakable(text: str) -> str:
    """``text`` with every character the engine would only name (emoji, symbols, scripts the
    catalog does not speak) turned into a space: eSpeak reads "😀" as a phrase, and 2,000 such
    characters as several minutes of names."""
    return "".join(char if _kept(char) else " " for char in text)


@functools.lru_cache(maxsize=4096)
def _kept(char: str) -> bool:
    if char.isspace() or char.isdigit() or char in _PUNCTUATION:
        return True
    return unicodedata.name(char, "").split(" ")[0] in _SPOKEN_SCRIPTS


def language_of(text: str) -> str:
    for char in text:
        if char.isalpha():
            script = unicodedata.name(char, "").split(" ")[0]
            if script in _SCRIPTS:
                return _SCRIPTS[script]
    return "en"


def split_tone(text: str) -> tuple[str | None, str]:
    """The leading tone tag's tone (if it is one of the catalog's) and the text after it."""
    match = _LEADING_TAG.match(text)
    if match and match.group(1).lower() in _TONES:
        return match.group(1).lower(), text[match.end():]
    return None, text


def _description(voice: str) -> tuple[str, int, int]:
    """(variant, pitch, rate) for a description."""
    digest = hashlib.sha256(voice.encode()).digest()
    male = bool(_MALE_WORDS.search(voice)) and not _FEMALE_WORDS.search(voice)
    variant = f"m{1 + digest[0] % 4}" if male else f"f{1 + digest[0] % 5}"
    pitch = (30 if male else 50) + digest[1] % 20
    rate = 140 if _SLOW_WORDS.search(voice) else 190 if _FAST_WORDS.search(voice) else 165
    return variant, pitch, rate


def plan(text: str, voice: str, f0_up_key: float = 0.0) -> tuple[Utterance, str]:
    """The eSpeak settings for ``text`` in ``voice`` and the text eSpeak should read."""
    tone, spoken = split_tone(text)
    spoken = speakable(_EVENT.sub(lambda m: _EVENT_WORDS.get(m.group(1).lower(), " "), spoken))
    if voice in _PRESETS:
        variant, pitch = _PRESETS[voice]
        rate = 165
    else:
        variant, pitch, rate = _description(voice)
    utterance = Utterance(f"{language_of(spoken)}+{variant}", pitch=pitch, rate=rate, volume=VOLUME)
    if tone is not None:
        change, rate, spread, volume, tone_variant = _TONES[tone]
        utterance = replace(
            utterance, pitch=utterance.pitch + change, rate=rate, range=spread, volume=volume,
            voice=f"{language_of(spoken)}+{tone_variant}" if tone_variant else utterance.voice,
        )
    pitch = round(utterance.pitch + 3 * f0_up_key)
    return replace(utterance, pitch=max(0, min(99, pitch))), spoken
