"""Speech for the sandbox's voice double: text in, 24 kHz mono signed 16-bit PCM out.

The one interface every voice endpoint uses (the agent socket, /v1/tts and its streaming socket).
Deterministic: the same text, voice and ``f0_up_key`` give the same bytes, whatever was said before.

The engine is eSpeak NG (voice/espeak.py), which ships inside the ``espeakng-loader`` wheel; its
22 050 Hz output is resampled to 24 kHz here. Which voice string sounds how: voice/voices.py.
If the library cannot be loaded or will not start, the sandbox says so in one warning on the
``vap_console.sandbox.speech`` logger and speaks with the placeholder tone engine instead (a short
tone per word): the endpoints keep working, only the audio is not words.

Speech is made a sentence at a time, each sentence on its own (``sentences``), so a stream can
start after one sentence's work (``synthesize_stream``); eSpeak closes each with a sentence's
pause, so the joined sentences last as long as the text said at once. eSpeak is not thread-safe,
so one lock serialises synthesis, and it blocks for about a second per minute of speech: async
callers use ``synthesize_async`` or ``synthesize_stream`` (worker threads), never ``synthesize``
on the event loop. Recent sentences are kept (``CACHE_BYTES`` in all), since the sandbox's agents
repeat their lines.
"""

from __future__ import annotations

import functools
import io
import logging
import math
import re
import struct
import sys
import threading
import wave
from array import array
from collections import OrderedDict
from collections.abc import AsyncIterator, Callable

import anyio.to_thread

from vap_console.sandbox.voice.espeak import NATIVE_RATE, EngineUnavailable, Espeak
from vap_console.sandbox.voice.voices import plan, split_tone

SAMPLE_RATE = 24_000
SAMPLE_WIDTH = 2
CHANNELS = 1
FRAME_MS = 20
FRAME_BYTES = SAMPLE_RATE * SAMPLE_WIDTH * FRAME_MS // 1000  # 960
CACHE_BYTES = 32 * 1024 * 1024
# The longest utterance: what /v1/tts's default max_new_tokens (2048) allows at 80 ms a token
# (voice/tts.py), about a third more than 2,000 characters of ordinary prose take.
MAX_SECONDS = 2048 * 0.08

ESPEAK = "espeak-ng"
TONES = "tones"

log = logging.getLogger("vap_console.sandbox.speech")

# Speech is made a sentence at a time (so a stream's first audio comes after one sentence's work):
# a sentence ends at . ! ? or a danda, followed by white space.
_SENTENCE_END = re.compile(r"(?<=[.!?।॥])\s+")

# 24 000 / 22 050 = 160 / 147: every 147 input samples make 160 output samples.
_UP, _DOWN = 160, 147


def synthesize(text: str, *, voice: str = "default", f0_up_key: float = 0.0,
               max_seconds: float = MAX_SECONDS) -> bytes:
    """PCM s16le, 24 kHz, mono, of ``text`` spoken by ``voice`` (a catalog preset such as
    ``speaker_2`` or ``siya``, ``muga``/``default``, or a mulberry description), its pitch moved
    by ``f0_up_key`` semitones, at most ``max_seconds`` long. Blocks: from async code use
    ``synthesize_async`` (or ``synthesize_stream``, a sentence at a time)."""
    left = _samples(max_seconds)
    out = bytearray()
    for piece in sentences(text):
        if left <= 0:
            break
        pcm = synthesize_sentence(piece, voice=voice, f0_up_key=f0_up_key, max_samples=left)
        left -= len(pcm) // SAMPLE_WIDTH
        out += pcm
    return bytes(out)


async def synthesize_async(text: str, *, voice: str = "default", f0_up_key: float = 0.0,
                           max_seconds: float = MAX_SECONDS) -> bytes:
    """``synthesize`` on a worker thread, so the event loop keeps serving while eSpeak works. A
    cancelled caller returns at once; the thread finishes into the cache."""
    work = functools.partial(synthesize, text, voice=voice, f0_up_key=f0_up_key, max_seconds=max_seconds)
    return await anyio.to_thread.run_sync(work, abandon_on_cancel=True)


async def synthesize_stream(text: str, *, voice: str = "default", f0_up_key: float = 0.0,
                            max_seconds: float = MAX_SECONDS) -> AsyncIterator[bytes]:
    """``synthesize``'s audio a sentence at a time, each made on a worker thread: the first comes
    after one sentence's work, not the whole text's. Joined, the same bytes as ``synthesize``."""
    left = _samples(max_seconds)
    for piece in sentences(text):
        if left <= 0:
            return
        work = functools.partial(synthesize_sentence, piece, voice=voice, f0_up_key=f0_up_key, max_samples=left)
        pcm = await anyio.to_thread.run_sync(work, abandon_on_cancel=True)
        left -= len(pcm) // SAMPLE_WIDTH
        yield pcm


def sentences(text: str) -> list[str]:
    """``text`` as the sentences it is spoken in, each with the text's leading tone tag."""
    tone, rest = split_tone(text)
    parts = [part for part in _SENTENCE_END.split(rest.strip()) if part]
    if not parts:
        return [text]
    return [f"[{tone}] {part}" if tone else part for part in parts]


def synthesize_sentence(text: str, *, voice: str, f0_up_key: float, max_samples: int) -> bytes:
    """One sentence, at most ``max_samples`` long, from the cache when it was said lately."""
    key = (text, voice, float(f0_up_key), max_samples)
    pcm = _recent.get(key)
    if pcm is None:
        with _lock:
            pcm = _recent.get(key)
            if pcm is None:
                pcm = _render(text, voice, float(f0_up_key), max_samples)
                _recent.put(key, pcm)
    return pcm


def _samples(seconds: float) -> int:
    return round(max(0.0, float(seconds)) * SAMPLE_RATE)


def engine() -> str:
    """Which engine speaks: ``"espeak-ng"``, or ``"tones"`` when eSpeak could not be loaded.
    Loads the engine if nothing has been said yet."""
    with _lock:
        return ESPEAK if _loaded() is not None else TONES


def duration(pcm: bytes) -> float:
    """Seconds of audio in ``pcm``."""
    return len(pcm) / (SAMPLE_RATE * SAMPLE_WIDTH)


def frames(pcm: bytes, size: int = FRAME_BYTES) -> list[bytes]:
    """``pcm`` cut into frames of ``size`` bytes, the last padded with silence."""
    chunks = [pcm[i:i + size] for i in range(0, len(pcm), size)]
    if chunks and len(chunks[-1]) < size:
        chunks[-1] = chunks[-1] + bytes(size - len(chunks[-1]))
    return chunks


def wav_bytes(pcm: bytes) -> bytes:
    """``pcm`` in a WAV container: 24 kHz, mono, 16-bit."""
    buffer = io.BytesIO()
    with wave.open(buffer, "wb") as wav:
        wav.setnchannels(CHANNELS)
        wav.setsampwidth(SAMPLE_WIDTH)
        wav.setframerate(SAMPLE_RATE)
        wav.writeframes(pcm)
    return buffer.getvalue()


def reset() -> None:
    """Forget the loaded engine and every cached result (tests, and after installing the wheel)."""
    global _engine, _tried
    with _lock:
        _engine, _tried = None, False
        _recent.clear()


# --- the engine ---

_lock = threading.Lock()
_engine: Espeak | None = None
_tried = False
# What makes the engine; tests replace it to see the fallback.
make_engine: Callable[[], Espeak] = Espeak


def _loaded() -> Espeak | None:
    global _engine, _tried
    if not _tried:
        _tried = True
        try:
            _engine = make_engine()
        except EngineUnavailable as exc:
            _fall_back(str(exc))
    return _engine


def _fall_back(reason: str) -> None:
    global _engine
    _engine = None
    log.warning("sandbox speech: %s; speaking with the placeholder tone engine instead "
                "(install espeakng-loader for real speech)", reason)


def _render(text: str, voice: str, f0_up_key: float, max_samples: int) -> bytes:
    most = max_samples * SAMPLE_WIDTH
    espeak = _loaded()
    if espeak is not None:
        utterance, spoken = plan(text, voice, f0_up_key)
        # one native sample more than the cap needs: the resampler's last output leans on it
        native = math.ceil(max_samples * NATIVE_RATE / SAMPLE_RATE) + 1
        try:
            return resample_to_24k(espeak.render(utterance, spoken, native))[:most]
        except EngineUnavailable as exc:
            _fall_back(str(exc))
    return tones(text)[:most]


def tones(text: str) -> bytes:
    """The placeholder engine: a short tone per word, its pitch from the word."""
    out = bytearray()
    for word in text.split():
        pitch = 180 + (sum(word.encode()) % 200)
        samples = int(SAMPLE_RATE * 0.18)
        for i in range(samples):
            value = int(6000 * math.sin(2 * math.pi * pitch * i / SAMPLE_RATE))
            out += struct.pack("<h", value)
        out += bytes(int(SAMPLE_RATE * 0.06) * SAMPLE_WIDTH)
    return bytes(out)


def resample_to_24k(pcm: bytes) -> bytes:
    """eSpeak's 22 050 Hz samples at 24 000 Hz, by linear interpolation in whole numbers (the
    same bytes on every machine). Output sample j sits at input position j·147/160; the work is
    done one of the 160 phases at a time, each an extended slice, to keep the Python loop short."""
    source = array("h")
    source.frombytes(pcm)
    if sys.byteorder == "big":
        source.byteswap()
    count = len(source)
    if not count:
        return b""
    size = count * _UP // _DOWN
    source.append(source[-1])  # the last sample's right-hand neighbour
    out = array("h", bytes(SAMPLE_WIDTH * size))
    for phase in range(_UP):
        taken = len(range(phase, size, _UP))
        if not taken:
            continue
        start, weight = divmod(phase * _DOWN, _UP)
        stop = start + _DOWN * (taken - 1) + 1
        left = source[start:stop:_DOWN]
        if weight == 0:
            out[phase::_UP] = left
        else:
            right = source[start + 1:stop + 1:_DOWN]
            keep = _UP - weight
            out[phase::_UP] = array("h", [(a * keep + b * weight + _UP // 2) // _UP for a, b in zip(left, right)])
    if sys.byteorder == "big":
        out.byteswap()
    return out.tobytes()


assert NATIVE_RATE * _UP == SAMPLE_RATE * _DOWN


class _Recent:
    """Recent results, least recently used dropped first, at most ``limit`` bytes in all."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.size = 0
        self.items: OrderedDict[tuple[str, str, float, int], bytes] = OrderedDict()
        self.lock = threading.Lock()

    def get(self, key: tuple[str, str, float, int]) -> bytes | None:
        with self.lock:
            pcm = self.items.get(key)
            if pcm is not None:
                self.items.move_to_end(key)
            return pcm

    def put(self, key: tuple[str, str, float, int], pcm: bytes) -> None:
        if len(pcm) > self.limit:
            return
        with self.lock:
            old = self.items.pop(key, None)
            self.size -= len(old) if old is not None else 0
            self.items[key] = pcm
            self.size += len(pcm)
            while self.size > self.limit:
                _, dropped = self.items.popitem(last=False)
                self.size -= len(dropped)

    def clear(self) -> None:
        with self.lock:
            self.items.clear()
            self.size = 0


_recent = _Recent(CACHE_BYTES)
