"""audio_stream.open_talk_audio: a call's sound where the machine has it, else one sentence saying
why the call is text-only (no audio extra, no output device, `vap web`); and the real device code
run on miniaudio's null backend (this machine has no sound card: its null devices discard what is
played and capture zeros, at the pace of a real one)."""

from __future__ import annotations

import sys
import threading
import time
import types

import pytest

from vap_console import audio_stream
from vap_console.audio_stream import FRAME_BYTES, open_talk_audio

DEADLINE = 20.0


def _fake_miniaudio(*, output: bool, capture: bool) -> types.ModuleType:
    module = types.ModuleType("miniaudio")

    class SampleFormat:
        SIGNED16 = 2

    class Device:
        opens = True

        def __init__(self, **_kwargs: object) -> None:
            if not self.opens:
                raise RuntimeError("failed to init device")

        def start(self, _generator: object) -> None:
            pass

        def close(self) -> None:
            pass

    class PlaybackDevice(Device):
        opens = output

    class CaptureDevice(Device):
        opens = capture

    module.SampleFormat = SampleFormat  # type: ignore[attr-defined]
    module.PlaybackDevice = PlaybackDevice  # type: ignore[attr-defined]
    module.CaptureDevice = CaptureDevice  # type: ignore[attr-defined]
    return module


def test_under_vap_web_the_call_is_text_only_and_says_why() -> None:
    for sound in (open_talk_audio(env={"VAP_IN_BROWSER": "1"}), open_talk_audio(want_sound=False, env={})):
        assert not sound.player.audible and sound.mic is None
        assert sound.note == audio_stream.TALK_IN_WEB
        assert "vap web" in sound.note and "ctrl+s" in sound.note


def test_without_the_extra_the_call_is_text_only_and_says_how_to_get_it(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "miniaudio", None)  # import miniaudio raises ImportError
    sound = open_talk_audio(env={})
    assert not sound.player.audible and sound.mic is None
    assert sound.note == audio_stream.TALK_NO_MODULE and "pip install 'vap-console[audio]'" in sound.note


def test_without_an_output_device_the_call_is_text_only(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "miniaudio", _fake_miniaudio(output=False, capture=True))
    sound = open_talk_audio(env={})
    assert not sound.player.audible and sound.mic is None and sound.note == audio_stream.TALK_NO_DEVICE


def test_without_a_microphone_the_agent_plays_and_the_person_types(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "miniaudio", _fake_miniaudio(output=True, capture=False))
    sound = open_talk_audio(env={})
    assert sound.player.audible and sound.mic is None and sound.note == audio_stream.NO_MIC


def test_open_mic_is_chosen_by_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "miniaudio", _fake_miniaudio(output=True, capture=True))
    push = open_talk_audio(env={})
    assert push.mic is not None and not push.open_mic and "ctrl+t" in push.note
    opened = open_talk_audio(env={"VAP_TALK_MIC": "open"})
    assert opened.open_mic and opened.note == audio_stream.OPEN_MIC


def _null_backend() -> list[object]:
    miniaudio = pytest.importorskip("miniaudio", reason="the audio extra is not installed")
    return [miniaudio.Backend.NULL]


def test_the_null_output_device_drains_the_agents_speech_at_its_own_pace() -> None:
    sound = open_talk_audio(env={}, backends=_null_backend())
    try:
        assert sound.player.audible and sound.note == audio_stream.SOUND_ON
        player = sound.player
        assert isinstance(player, audio_stream.DevicePlayer)
        for i in range(10):  # 200 ms of speech
            player.play((i + 1).to_bytes(2, "little") * (FRAME_BYTES // 2))
        deadline = time.monotonic() + DEADLINE
        while len(player.buffer) and time.monotonic() < deadline:
            time.sleep(0.01)
        assert len(player.buffer) == 0  # the device's thread took it all
    finally:
        sound.player.close()
        if sound.mic is not None:
            sound.mic.close()


def test_the_null_microphone_yields_20_ms_frames() -> None:
    sound = open_talk_audio(env={}, backends=_null_backend())
    frames: list[bytes] = []
    enough = threading.Event()

    def heard(frame: bytes) -> None:
        frames.append(frame)
        if len(frames) >= 5:
            enough.set()

    try:
        assert sound.mic is not None
        sound.mic.start(heard)
        assert enough.wait(DEADLINE)
    finally:
        sound.player.close()
        if sound.mic is not None:
            sound.mic.close()
    assert {len(f) for f in frames} == {FRAME_BYTES}
    assert not any(b"".join(frames))  # the null device captures silence
