"""The caller's audio on the agent socket: what counts as speech, where a spoken turn ends, and
the call's recording with both sides on one timeline (docs/sandbox-voice.md, "Caller audio")."""

from __future__ import annotations

import operator
import sys
from array import array

from vap_console.sandbox.voice import speech

# Caller audio is speech when a 20 ms window's RMS is above this (of 32767: about -36 dBFS).
VOICE_RMS = 500
# A spoken turn ends after this much caller silence (counted in the audio sent, not in clock time).
TURN_SILENCE_SAMPLES = speech.SAMPLE_RATE * 600 // 1000


def loud(window: bytes) -> bool:
    """Whether a window of caller audio is speech: its RMS is above VOICE_RMS."""
    samples = _samples(window)
    # The RMS is never above the peak: most caller audio (silence, room noise) is settled by two
    # C-speed passes, not a sum of squares in Python.
    if not samples or (max(samples) <= VOICE_RMS and -min(samples) <= VOICE_RMS):
        return False
    energy: int = sum(map(operator.mul, samples, samples))
    return energy > VOICE_RMS * VOICE_RMS * len(samples)


# Mixing two PCM s16le buffers without a Python step per sample (it ran for every caller frame
# heard over the agent: a quarter of a 20-call run's CPU). Each sample goes to a 32-bit lane of
# one big integer in offset binary (its sign bit flipped: x + 32768); one addition adds every lane
# (at most 17 bits each: no carry into the next), and where the sum fits in 16 bits its lane's low
# two bytes are the sum in two's complement. It fits exactly when the lane's bits 15 and 16 differ.
_FLIP = bytes(b ^ 0x80 for b in range(256))
_BIT7 = bytes(b >> 7 for b in range(256))
_NOT = bytes(1 - b if b < 2 else b for b in range(256))


def _lanes(pcm: bytes) -> int:
    lanes = bytearray(2 * len(pcm))
    lanes[0::4] = pcm[0::2]
    lanes[1::4] = pcm[1::2].translate(_FLIP)
    return int.from_bytes(lanes, "little")


def mix(a: bytes, b: bytes) -> bytes:
    """``a`` and ``b`` (PCM s16le of one length) summed, clipped to 16 bits."""
    size = 2 * len(a)
    total = (_lanes(a) + _lanes(b)).to_bytes(size, "little")
    low, high, carry = total[0:size:4], total[1:size:4], total[2:size:4]
    if high.translate(_BIT7) == carry.translate(_NOT):
        out = bytearray(len(a))
        out[0::2], out[1::2] = low, high
        return bytes(out)
    x, y = _samples(a), _samples(b)
    clipped = array("h", (max(-32768, min(32767, i + j)) for i, j in zip(x, y)))
    if sys.byteorder == "big":
        clipped.byteswap()
    return clipped.tobytes()


def _samples(pcm: bytes) -> array[int]:
    samples = array("h")
    samples.frombytes(pcm)
    if sys.byteorder == "big":  # the wire's samples are little-endian whatever the machine
        samples.byteswap()
    return samples


class Recording:
    """Both sides of the call on one timeline, summed where they overlap (the call's recording)."""

    def __init__(self, audio: bytearray) -> None:
        self.audio = audio

    def add(self, offset: int, pcm: bytes) -> None:
        audio = self.audio
        if len(audio) < offset:
            audio.extend(bytes(offset - len(audio)))
        overlap = min(len(pcm), len(audio) - offset)
        if overlap > 0:
            here, new = bytes(audio[offset:offset + overlap]), pcm[:overlap]
            if here.count(0) == overlap:
                audio[offset:offset + overlap] = new
            elif new.count(0) != overlap:
                audio[offset:offset + overlap] = mix(here, new)
        audio.extend(pcm[max(overlap, 0):])


class Turns:
    """The sandbox's voice activity detection: a spoken turn is caller audio with energy, ended by
    600 ms of silence; its length runs from the first loud window to the last."""

    def __init__(self) -> None:
        self.speaking = False
        self.span = 0
        self.quiet = 0

    def feed(self, loud: bool, samples: int) -> float | None:
        """Seconds of the turn that this window ends, else None."""
        if loud:
            if self.speaking:
                self.span += self.quiet
            self.speaking, self.quiet = True, 0
            self.span += samples
            return None
        if not self.speaking:
            return None
        self.quiet += samples
        if self.quiet < TURN_SILENCE_SAMPLES:
            return None
        seconds = self.span / speech.SAMPLE_RATE
        self.speaking, self.span, self.quiet = False, 0, 0
        return seconds
