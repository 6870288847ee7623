"""Speech for the sandbox's voice double: text in, 24 kHz mono signed 16-bit PCM out.

The one interface every voice endpoint uses (the agent socket, /v1/tts and its streaming socket).
Deterministic: the same text and voice give the same bytes.
"""

from __future__ import annotations

import io
import math
import struct
import wave

SAMPLE_RATE = 24_000
SAMPLE_WIDTH = 2
CHANNELS = 1
FRAME_MS = 20
FRAME_BYTES = SAMPLE_RATE * SAMPLE_WIDTH * FRAME_MS // 1000  # 960


def synthesize(text: str, *, voice: str = "default") -> bytes:
    """PCM s16le, 24 kHz, mono, of ``text`` spoken by ``voice``.

    Placeholder engine (a short tone per word, pitch from the word): to be replaced by a real
    speech engine, keeping this signature.
    """
    out = bytearray()
    for word in text.split():
        pitch = 180 + (sum(word.encode()) % 200)
        samples = int(SAMPLE_RATE * 0.18)
        for i in range(samples):
            value = int(6000 * math.sin(2 * math.pi * pitch * i / SAMPLE_RATE))
            out += struct.pack("<h", value)
        out += bytes(int(SAMPLE_RATE * 0.06) * SAMPLE_WIDTH)
    return bytes(out)


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
