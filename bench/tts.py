"""Speech synthesis: POST /v1/tts of 2,000 characters (the most one request takes) against 200
characters in the same run, in process (httpx over ASGI, so the figures are the sandbox's work:
checking, eSpeak NG, resampling to 24 kHz, the WAV), the cache emptied before every request.

The goals are ours (the issue set none): the real-time factor (seconds of work per second of
audio) at 2,000 characters at most 0.1, so a long line never keeps a caller waiting for long; and
no worse than linear: a character of the long text costs at most 1.5 times one of the short; and
the streaming socket's first audio of the long text within half a second (it is made a sentence
at a time).
Rounds alternate short and long, and each figure is the median.
"""

from __future__ import annotations

import asyncio
import io
import statistics
import time
import wave

import httpx

from bench._table import print_table
from vap_console.sandbox.app import create_app
from vap_console.sandbox.clock import VirtualClock
from vap_console.sandbox.keys import by_name
from vap_console.sandbox.voice import speech

KEY = {"Authorization": f"Bearer {by_name('agent').key}"}
PROSE = ("Namaste, and thank you for calling the clinic. Your appointment with Doctor Mehta is confirmed "
         "for Tuesday at four thirty in the afternoon. Please arrive ten minutes early and bring your "
         "previous prescriptions. If you need to reschedule, reply to this message or call us back. ")
ROUNDS = 3


def _text(characters: int) -> str:
    text = (PROSE * (characters // len(PROSE) + 1))[:characters]
    assert len(text) == characters
    return text


async def _speak(client: httpx.AsyncClient, text: str) -> tuple[float, float]:
    """(seconds the request took, seconds of audio it answered)."""
    speech.reset()  # made, not taken from the cache
    started = time.perf_counter()
    response = await client.post("/v1/tts", json={"text": text, "model": "mulberry", "speaker": "speaker_1"})
    took = time.perf_counter() - started
    if response.status_code != 200:
        raise RuntimeError(f"POST /v1/tts answered {response.status_code}: {response.text[:200]}")
    with wave.open(io.BytesIO(response.content)) as wav:
        return took, wav.getnframes() / wav.getframerate()


async def first_audio(text: str) -> float:
    """Seconds until the streaming socket's speech has its first sentence of ``text`` (engine only)."""
    speech.reset()
    started = time.perf_counter()
    async for _ in speech.synthesize_stream(text, voice="speaker_1"):
        return time.perf_counter() - started
    raise RuntimeError("no audio")


async def measure() -> dict[int, tuple[float, float]]:
    """Median (request seconds, audio seconds) for 200 and 2,000 characters."""
    transport = httpx.ASGITransport(app=create_app(clock=VirtualClock(), rate_limit=10**9))
    seen: dict[int, list[tuple[float, float]]] = {200: [], 2000: []}
    async with httpx.AsyncClient(transport=transport, base_url="http://sandbox", headers=KEY, timeout=120) as client:
        await _speak(client, _text(200))  # loads the engine
        for _ in range(ROUNDS):
            for characters in seen:
                seen[characters].append(await _speak(client, _text(characters)))
    return {n: (statistics.median(t for t, _ in runs), statistics.median(a for _, a in runs))
            for n, runs in seen.items()}


def main() -> bool:
    figures = asyncio.run(measure())
    first = statistics.median(asyncio.run(first_audio(_text(2000))) for _ in range(ROUNDS))
    (short, short_audio), (long, long_audio) = figures[200], figures[2000]
    rtf = long / long_audio
    per_char = (long / 2000) / (short / 200)
    return print_table(
        f"POST /v1/tts, mulberry speaker_1, in process (engine: {speech.engine()}; medians of {ROUNDS} rounds)",
        [
            ("200 characters (baseline)", f"{short:.2f} s for {short_audio:.1f} s of audio", "", None),
            ("2,000 characters", f"{long:.2f} s for {long_audio:.1f} s of audio", "", None),
            ("real-time factor at 2,000", f"{rtf:.3f}", "<= 0.1", rtf <= 0.1),
            ("baseline's real-time factor", f"{short / short_audio:.3f}", "", None),
            ("cost per character, 2,000 / 200", f"{per_char:.2f}x", "<= 1.5x", per_char <= 1.5),
            ("first audio of 2,000 characters, streamed", f"{first * 1000:.0f} ms", "<= 0.5 s", first <= 0.5),
        ],
    )
