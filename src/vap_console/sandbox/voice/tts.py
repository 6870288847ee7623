"""Speech synthesis over HTTP, ``POST /v1/tts`` (a WAV), as reference/voice.md §5 publishes it, and
the rules, prices and slots its streaming twin (voice/tts_socket.py) shares.

The request rules are the three engines' of the public docs (reference/real-service.md):
muga takes romanised text steered by at most one tone tag, leading (``[happy] …``; optional:
the vendor's own SDK and Pipecat plugin send plain text to muga by default), and no speaker,
description or f0_up_key; mulberry takes a preset ``speaker_1``…``speaker_4`` or a ``description``
(not both); mulberry-1.6 takes a preset ``ira``, ``aisha``, ``siya`` or ``zoya``. The sampling
fields are checked against the ranges of an agent's ttsConfig; of them only ``max_new_tokens``
acts on the sandbox's engine, as a cap on the audio's length (``SECONDS_PER_TOKEN``). Every rule
that fails is one entry of a 422's ``details``, ``loc`` ``body.<field>``.

Sandbox choices (docs/sandbox-voice.md "Speech synthesis"): the price per 1,000 characters
(``PRICE_PER_1K``), charged as a ledger entry once the audio is made; a request holds one of the
account's concurrent slots while it is synthesised (``Account.live_speech``); 400
``invalid_request`` (``loc`` ``body.text``) for a text with nothing speakable once its tags,
symbols and emoji are taken out.
"""

from __future__ import annotations

import contextlib
import itertools
import re
import unicodedata
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from starlette.requests import Request
from starlette.responses import Response

from vap_console.sandbox.calls import active_calls
from vap_console.sandbox.catalog import MUGA_TONES, MULBERRY_16_PRESETS, MULBERRY_PRESETS, TTS_DEFAULTS
from vap_console.sandbox.endpoints import TTS_NUMBER_RANGES
from vap_console.sandbox.problems import FieldProblems, Problem, json_object, whole
from vap_console.sandbox.state import Account, LedgerEntry
from vap_console.sandbox.voice import speech
from vap_console.sandbox.voice.voices import plan
from vap_console.sandbox.wire import account_of, read_json, sandbox_of

TEXT_MAX = 2000
DESCRIPTION_MAX = 2000
DEFAULT_MODEL = "muga"
MODELS = ("muga", "mulberry", "mulberry-1.6")
PRESETS = {"muga": [], "mulberry": MULBERRY_PRESETS, "mulberry-1.6": MULBERRY_16_PRESETS}
DEFAULT_SPEAKER = {"mulberry": MULBERRY_PRESETS[0], "mulberry-1.6": MULBERRY_16_PRESETS[0]}
# Sandbox prices in nanos of a rupee per 1,000 characters: a third party puts mulberry near ₹0.50
# (voice.md §5, [T]) and muga dearer; the real prices are not published.
NANOS = 10**9
PRICE_PER_1K = {"muga": NANOS, "mulberry": NANOS // 2, "mulberry-1.6": NANOS // 2}
# max_new_tokens caps the audio at this many seconds a token (sandbox choice: 12.5 tokens a second,
# a neural codec's rate; the default 2048 then allows about 164 s, more than 2,000 characters take).
SECONDS_PER_TOKEN = 0.08

_TAG = re.compile(r"\[([^\[\]]*)\]")
_SAMPLING = [name for name in TTS_NUMBER_RANGES if name != "f0_up_key"]
_live_ids = itertools.count(1)


@dataclass(frozen=True)
class Synthesis:
    """One checked request: what to say, in which engine and voice (a ``speech`` voice string)."""

    text: str
    model: str
    voice: str
    f0_up_key: float
    max_seconds: float = speech.MAX_SECONDS

    @property
    def price_nanos(self) -> int:
        return price_nanos(self.model, len(self.text))


def price_nanos(model: str, characters: int) -> int:
    return PRICE_PER_1K[model] * characters // 1000


def rupees(nanos: int) -> str:
    return f"₹{nanos / NANOS:,.2f}"


# --- the rules ---


def check_model(value: Any, problems: FieldProblems) -> str:
    if value is None:
        return DEFAULT_MODEL
    if value not in MODELS:
        problems.add("model", f"must be one of {', '.join(MODELS)}")
        return DEFAULT_MODEL
    return str(value)


def check_text(value: Any, problems: FieldProblems) -> str | None:
    if value is None:
        problems.add("text", "is required")
    elif not isinstance(value, str):
        problems.add("text", "must be a string")
    elif not value.strip():
        problems.add("text", "must not be empty")
    elif len(value) > TEXT_MAX:
        problems.add("text", f"must be at most {TEXT_MAX} characters (it has {len(value)})")
    else:
        return value
    return None


def _check_muga_text(text: str, problems: FieldProblems) -> None:
    tags = ", ".join(f"[{tone}]" for tone in MUGA_TONES)
    stripped = text.lstrip()
    # The tag is optional (reference voice.md §5: the vendor's clients send plain text to muga);
    # when there is one it leads, and it is the only one.
    first = _TAG.match(stripped)
    if first is not None and first.group(1).strip().lower() not in MUGA_TONES:
        problems.add("text", f"[{first.group(1)[:40]}] is not a muga tone tag: use one of {tags}")
        return
    more = [m.group(0) for m in _TAG.finditer(stripped, first.end() if first else 0)]
    if more:
        where = "found also" if first else "found"
        problems.add("text", f"may carry at most one tone tag, at the start ({where} {more[0][:40]})")
    foreign = next((c for c in text if c.isalpha() and not unicodedata.name(c, "").startswith("LATIN")), None)
    if foreign is not None:
        problems.add("text", f"muga reads romanised (Latin-script) Hinglish only; found {foreign!r}: "
                             "use mulberry for Devanagari")


def _check_number(name: str, value: Any, problems: FieldProblems) -> float | None:
    low, high = TTS_NUMBER_RANGES[name]
    is_whole = name in ("top_k", "max_new_tokens")
    if is_whole:
        value = whole(value)
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not low <= value <= high:
        kind = "a whole number" if is_whole else "a number"
        problems.add(name, f"must be {kind} from {low:g} to {high:g}")
        return None
    return float(value)


def check_synthesis(body: Any, *, model: str | None = None) -> Synthesis:
    """A synthesis request (the body of POST /v1/tts, or a socket's synthesis frame, whose model
    was chosen when its token was minted); raises one 422 listing every rule that fails."""
    body = json_object(body)
    problems = FieldProblems()
    if model is None:
        model = check_model(body.get("model"), problems)
    elif body.get("model", model) != model:
        problems.add("model", f"is chosen when the socket is minted: this one speaks {model}")
    text = check_text(body.get("text"), problems)
    speaker, description = body.get("speaker"), body.get("description")
    if description == "":
        description = None
    if speaker is not None:
        if model == "muga":
            problems.add("speaker", "muga has no preset speakers: steer it with the text's tone tag")
        elif speaker not in PRESETS[model]:
            problems.add("speaker", f"must be one of {', '.join(PRESETS[model])} for {model}")
    if description is not None:
        if model != "mulberry":
            problems.add("description", f"{model} is not steered by a description (only mulberry is)")
        elif not isinstance(description, str) or len(description) > DESCRIPTION_MAX:
            problems.add("description", f"must be a string of at most {DESCRIPTION_MAX} characters")
        elif speaker is not None:
            problems.add("description", "give mulberry a speaker or a description, not both")
    f0 = 0.0
    if body.get("f0_up_key") is not None:
        f0 = _check_number("f0_up_key", body["f0_up_key"], problems) or 0.0
        if model == "muga" and f0:
            problems.add("f0_up_key", "muga takes no f0_up_key (mulberry's preset speakers do)")
    limits = {name: _check_number(name, body[name], problems) for name in _SAMPLING if body.get(name) is not None}
    if text is not None and model == "muga":
        _check_muga_text(text, problems)
    problems.raise_if_any()
    assert text is not None
    if model == "muga":
        voice = "muga"
    elif isinstance(description, str):
        voice = description
    else:
        voice = str(speaker or DEFAULT_SPEAKER[model])
    # What the engine would read (tone tag off, events as interjections, symbols and emoji out).
    if not any(c.isalnum() for c in plan(text, voice, f0)[1]):
        raise Problem(400, "invalid_request", "The text has nothing the sandbox can speak.", details=[{
            "loc": "body.text", "message": "has nothing to speak once its tags, symbols and emoji are taken out"}])
    tokens = limits.get("max_new_tokens") or TTS_DEFAULTS["max_new_tokens"]
    return Synthesis(text=text, model=model, voice=voice, f0_up_key=f0, max_seconds=tokens * SECONDS_PER_TOKEN)


# --- money and slots ---


def admit(account: Account) -> None:
    """What stops any synthesis before its body is read: 503 and the two 402s."""
    key = account.key
    if not key.voice_agents:
        raise Problem(503, "not_configured", "Speech is not available on this deployment.")
    if key.blocked:
        raise Problem(402, "access_blocked",
                      "The account is paused after a failed payment; settle it in the dashboard.")
    if not key.call_balance:
        raise Problem(402, "insufficient_balance", "The account's balance cannot cover speech; top it up first.")


def check_funds(account: Account, synthesis: Synthesis, now: datetime) -> None:
    balance = account.balance(now)
    if balance < synthesis.price_nanos:
        raise Problem(402, "insufficient_balance",
                      f"The wallet ({rupees(balance)}) cannot cover {len(synthesis.text)} characters of "
                      f"{synthesis.model} ({rupees(synthesis.price_nanos)}).")


def check_slot(account: Account, now: datetime) -> None:
    active = active_calls(account, now)
    if active >= account.key.call_slots:
        raise Problem(429, "concurrency_limit_exceeded",
                      f"All {account.key.call_slots} concurrent slots are in use (calls and speech count alike).",
                      active_requests=active, limit=account.key.call_slots)


@contextlib.contextmanager
def holding_slot(account: Account, now: datetime, what: str) -> Iterator[None]:
    """One of the account's concurrent slots for as long as the block runs (429 when none is free)."""
    check_slot(account, now)
    live = f"{what}-{next(_live_ids)}"
    account.live_speech.add(live)
    try:
        yield
    finally:
        account.live_speech.discard(live)


def charge(account: Account, synthesis: Synthesis, at: datetime) -> None:
    account.ledger.append(LedgerEntry(
        at, -synthesis.price_nanos, f"speech: {len(synthesis.text)} characters of {synthesis.model}"))


# --- the endpoints ---


async def synthesize_speech(request: Request) -> Response:
    """``POST /v1/tts``: 200 ``audio/wav``, 24 kHz mono 16-bit."""
    account = account_of(request)
    admit(account)
    synthesis = check_synthesis(await read_json(request))
    sandbox = sandbox_of(request)
    check_funds(account, synthesis, sandbox.now())
    with holding_slot(account, sandbox.now(), "tts"):
        pcm = await speech.synthesize_async(synthesis.text, voice=synthesis.voice, f0_up_key=synthesis.f0_up_key,
                                            max_seconds=synthesis.max_seconds)
    charge(account, synthesis, sandbox.now())
    return Response(speech.wav_bytes(pcm), media_type="audio/wav")
