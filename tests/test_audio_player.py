"""audio.open_player: the best player, or a silent one with the sentence saying why sound is off."""

from __future__ import annotations

import sys
import types

import pytest

from vap_console import audio
from vap_console.sandbox.voice import speech


def _fake_miniaudio(*, opens: bool, played: list[bytes]) -> types.ModuleType:
    module = types.ModuleType("miniaudio")

    class SampleFormat:
        SIGNED16 = 2

    class PlaybackDevice:
        def __init__(self, **_kwargs: object) -> None:
            if not opens:
                raise RuntimeError("failed to init device")
            self.closed = False

        def start(self, stream) -> None:
            # Ask for frames as the device's callback would, until the sound is all out.
            while True:
                piece = stream.send(4800)
                if not any(piece):
                    break
                played.append(piece)

        def close(self) -> None:
            self.closed = True

    module.SampleFormat = SampleFormat  # type: ignore[attr-defined]
    module.PlaybackDevice = PlaybackDevice  # type: ignore[attr-defined]
    return module


def test_under_vap_web_sound_is_off_and_says_why() -> None:
    from vap_console.launch import IN_BROWSER

    assert audio.IN_BROWSER == IN_BROWSER  # the variable `vap web` really sets
    player, why = audio.open_player({"VAP_IN_BROWSER": "1"})
    assert not player.audible and why == audio.IN_WEB
    player.play_wav(b"anything")  # does nothing, raises nothing


def test_without_the_extra_sound_is_off_and_says_how_to_get_it(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "miniaudio", None)
    player, why = audio.open_player({})
    assert not player.audible and why is not None and "vap-console[audio]" in why


def test_without_a_device_sound_is_off(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "miniaudio", _fake_miniaudio(opens=False, played=[]))
    player, why = audio.open_player({})
    assert not player.audible and why == audio.NO_DEVICE


def test_with_a_device_the_whole_wav_is_played(monkeypatch: pytest.MonkeyPatch) -> None:
    played: list[bytes] = []
    monkeypatch.setitem(sys.modules, "miniaudio", _fake_miniaudio(opens=True, played=played))
    player, why = audio.open_player({})
    assert player.audible and why is None
    pcm = speech.synthesize("Hello there.", voice="speaker_1")
    player.play_wav(speech.wav_bytes(pcm))
    assert b"".join(played).rstrip(b"\0") == pcm.rstrip(b"\0")
    player.stop()
