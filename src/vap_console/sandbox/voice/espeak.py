"""eSpeak NG driven through ctypes: text in, 22 050 Hz mono 16-bit samples out.

The library and its data come inside the ``espeakng-loader`` wheel, so a machine with only
python3 and pip gets real speech with nothing from apt. Only this module touches ctypes; the
rest of the sandbox asks ``speech.synthesize``.

Two facts about the library shape this code:

- It keeps state in C statics that no call resets (the pitch-flutter index, the wave generator's
  phase), so the second utterance of a process differs from the first in a few samples and in
  length. The sandbox promises the same bytes for the same text and voice, so each utterance
  runs on a freshly loaded copy: dlopen, synthesise, dlclose. That costs about 15 ms.
- It is not thread-safe: callers serialise (``speech`` holds one lock around ``render``).
"""

from __future__ import annotations

import ctypes
import ctypes.util
import os
from dataclasses import dataclass

NATIVE_RATE = 22_050

# espeak_AUDIO_OUTPUT: samples handed to the callback, synthesis returns when done.
_AUDIO_OUTPUT_SYNCHRONOUS = 2
# Report errors instead of calling exit() inside the library.
_INITIALIZE_DONT_EXIT = 0x8000
_POS_CHARACTER = 1
_CHARS_UTF8 = 1
# A sentence's closing pause after the text's last sentence too: speech is made a sentence at a
# time, and without it the sentences would run into each other.
_END_PAUSE = 0x1000
# espeak_PARAMETER
_RATE, _VOLUME, _PITCH, _RANGE = 1, 2, 3, 4

_Callback = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.POINTER(ctypes.c_short), ctypes.c_int, ctypes.c_void_p)


class EngineUnavailable(Exception):
    """The speech library is missing or would not start; the message says which, for a person."""


@dataclass(frozen=True)
class Utterance:
    """How to say one text: an eSpeak voice name (language, optionally ``+variant``) and its knobs."""

    voice: str
    pitch: int = 50  # 0..99, eSpeak's default 50
    rate: int = 165  # words a minute
    range: int = 50  # intonation range 0..99
    volume: int = 100  # 0..200


def _paths() -> tuple[str, str]:
    try:
        # Imported here: a machine without the package still gets the placeholder engine.
        import espeakng_loader  # type: ignore[import-untyped]  # ships no type information
    except ImportError as exc:
        raise EngineUnavailable("the espeakng-loader package is not installed") from exc
    library = espeakng_loader.get_library_path()
    try:
        data = espeakng_loader.get_data_path()
    except RuntimeError as exc:
        raise EngineUnavailable(f"espeakng-loader has no voice data: {exc}") from exc
    if not os.path.exists(library):
        raise EngineUnavailable(f"espeakng-loader has no library at {library}")
    return library, data


class Espeak:
    """One speech library on disk; ``render`` loads a private copy per utterance (module docstring)."""

    def __init__(self) -> None:
        self.library, self.data = _paths()
        # None: the symbols already in the process, libc's among them
        self._libc = ctypes.CDLL(ctypes.util.find_library("c"))
        self._libc.dlclose.argtypes = [ctypes.c_void_p]
        self._libc.srand.argtypes = [ctypes.c_uint]
        # Fail now, with a sentence, rather than on the first request.
        self.render(Utterance("en"), "ready")

    def render(self, utterance: Utterance, text: str, max_samples: int | None = None) -> bytes:
        """PCM s16le at ``NATIVE_RATE`` of ``text``, cut at ``max_samples`` (eSpeak stops there
        too, so a long text costs no more than its cap); the caller holds the lock."""
        try:
            lib = ctypes.CDLL(self.library, mode=os.RTLD_LOCAL)
        except OSError as exc:
            raise EngineUnavailable(f"libespeak-ng would not load: {exc}") from exc
        chunks: list[bytes] = []
        room = [max_samples]

        def collect(wav: ctypes._Pointer[ctypes.c_short], count: int, events: int) -> int:
            # the last call has count 0 (and no samples)
            left = room[0]
            if count > 0:
                taken = count if left is None else min(count, left)
                chunks.append(ctypes.string_at(wav, taken * 2))
                if left is not None:
                    room[0] = left - taken
            return 1 if room[0] == 0 else 0  # 1: stop synthesising

        callback = _Callback(collect)
        try:
            lib.espeak_Initialize.argtypes = [ctypes.c_int, ctypes.c_int, ctypes.c_char_p, ctypes.c_int]
            lib.espeak_Initialize.restype = ctypes.c_int
            rate = lib.espeak_Initialize(_AUDIO_OUTPUT_SYNCHRONOUS, 0, self.data.encode(), _INITIALIZE_DONT_EXIT)
            if rate != NATIVE_RATE:
                raise EngineUnavailable(f"libespeak-ng did not initialise (answered {rate})")
            lib.espeak_SetSynthCallback(callback)
            lib.espeak_SetVoiceByName.argtypes = [ctypes.c_char_p]
            if lib.espeak_SetVoiceByName(utterance.voice.encode()) != 0:
                language = utterance.voice.partition("+")[0]
                if lib.espeak_SetVoiceByName(language.encode()) != 0:
                    lib.espeak_SetVoiceByName(b"en")
            for parameter, value in ((_RATE, utterance.rate), (_PITCH, utterance.pitch),
                                     (_RANGE, utterance.range), (_VOLUME, utterance.volume)):
                lib.espeak_SetParameter(parameter, value, 0)
            # Noisy voices (whisper) draw on libc's rand(); seeding it keeps their bytes fixed too.
            lib.espeak_ng_SetRandSeed.argtypes = [ctypes.c_long]
            lib.espeak_ng_SetRandSeed(1)
            self._libc.srand(1)
            encoded = text.encode("utf-8") + b"\0"
            lib.espeak_Synth.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_uint, ctypes.c_int,
                                         ctypes.c_uint, ctypes.c_uint, ctypes.c_void_p, ctypes.c_void_p]
            status = lib.espeak_Synth(encoded, len(encoded), 0, _POS_CHARACTER, 0, _CHARS_UTF8 | _END_PAUSE, None, None)
            if status != 0:
                raise EngineUnavailable(f"libespeak-ng refused to synthesise (status {status})")
            lib.espeak_Terminate()
        except AttributeError as exc:  # a library without a function this code calls
            raise EngineUnavailable(f"libespeak-ng is not the expected version: {exc}") from exc
        finally:
            handle = lib._handle
            del lib
            self._libc.dlclose(handle)
        return b"".join(chunks)
