"""The Talk screen's sound, against the sandbox's agent socket with a fake speaker and microphone
(the machine has no sound card): the agent's speech goes to the speaker and is flushed when the
person speaks over it, ctrl+o mutes it and says so, ctrl+t streams the microphone in 20 ms frames
the sandbox hears as a spoken turn; without sound the screen says once that the call is text-only."""

from __future__ import annotations

import base64
import json
import sys
import threading

import pytest

from tests.tui.console_scenes import until
from tests.tui.talk_console import loud, talk_console
from vap_console.audio_stream import (
    FRAME_BYTES,
    SOUND_ON,
    TAIL_FRAMES,
    TALK_IN_WEB,
    TALK_NO_MODULE,
    TalkAudio,
    open_talk_audio,
)
from vap_console.tui.screens.talk import TalkConfirm, TalkScreen
from vap_console.tui.widgets.talk import SoundLine


class FakePlayer:
    audible = True

    def __init__(self) -> None:
        self.muted = False
        self.pcm: list[bytes] = []
        self.flushes = 0
        self.closed = False

    def play(self, pcm: bytes) -> None:
        self.pcm.append(pcm)

    def flush(self) -> None:
        self.flushes += 1

    def close(self) -> None:
        self.closed = True


class FakeMic:
    """Hands frames to the screen from its own thread, as a capture device does."""

    def __init__(self) -> None:
        self.on_frame = None
        self.closed = False

    def start(self, on_frame) -> None:
        self.on_frame = on_frame

    def close(self) -> None:
        self.closed = True

    def speak(self, pcm: bytes) -> None:
        def run() -> None:
            for start in range(0, len(pcm), FRAME_BYTES):
                self.on_frame(pcm[start:start + FRAME_BYTES])

        thread = threading.Thread(target=run)
        thread.start()
        thread.join()


def sound_line(screen: TalkScreen) -> str:
    return str(screen.query_one(SoundLine).render())


def notes(screen: TalkScreen) -> list[str]:
    return screen.transcript.notes


def spy_on_sent(screen: TalkScreen) -> list[dict]:
    """Every message the screen sends on the call's socket, as JSON."""
    sent: list[dict] = []
    socket = screen._socket
    send = socket._send

    async def recording(message: dict) -> None:
        sent.append(json.loads(json.dumps(message)))
        await send(message)

    socket._send = recording  # type: ignore[method-assign]
    return sent


async def test_push_to_talk_streams_20_ms_frames_the_agent_hears_and_speaking_over_it_flushes() -> None:
    player, mic = FakePlayer(), FakeMic()
    with talk_console(sound=lambda **_: TalkAudio(player, mic, SOUND_ON)) as console:
        async with console.app.run_test(size=(120, 36)) as pilot:
            screen = await console.talking(pilot)
            assert notes(screen)[0] == SOUND_ON and sound_line(screen) == "sound · mic off"
            await console.play(pilot, 0.5)
            assert len(player.pcm) >= 25 and {len(p) for p in player.pcm} == {FRAME_BYTES}
            sent = spy_on_sent(screen)
            mic.speak(loud(0.2))  # the mic is off: nothing goes
            await pilot.press("ctrl+t")
            assert screen.mic_live and sound_line(screen) == "sound · mic on"
            mic.speak(loud(0.4))
            await until(pilot, lambda: screen.talk.live is None or screen.talk.live.interrupted)
            await until(pilot, lambda: player.flushes >= 1)
            assert any(t.interrupted for t in [*screen.talk.turns, screen.talk.live] if t is not None)
            assert not screen.ended
            await pilot.press("ctrl+t")  # off: the silence that ends the spoken turn, then commit
            await until(pilot, lambda: any(t.role == "user" for t in screen.talk.turns))
            appended = [base64.b64decode(m["audio"]) for m in sent if m["type"] == "input_audio_buffer.append"]
            assert {len(a) for a in appended} == {FRAME_BYTES}
            assert len(appended) == 20 + TAIL_FRAMES
            assert all(any(a) for a in appended[:20]) and not any(b"".join(appended[20:]))
            assert [m["type"] for m in sent][-1] == "input_audio_buffer.commit"
            (said,) = [t.text for t in screen.talk.turns if t.role == "user"]
            assert said.startswith("(speech, 0.4 s)")  # the sandbox heard 0.4 s of speech
            assert not screen.mic_live and sound_line(screen) == "sound · mic off"
        assert player.closed and mic.closed  # leaving the screen lets the devices go


async def test_ctrl_o_mutes_the_agent_and_says_so() -> None:
    player = FakePlayer()
    with talk_console(sound=lambda **_: TalkAudio(player)) as console:
        async with console.app.run_test(size=(120, 36)) as pilot:
            screen = await console.talking(pilot)
            assert "talk.mic" not in {b.binding.id for b in screen.active_bindings.values()}  # no mic here
            await pilot.press("ctrl+o")
            assert player.muted and sound_line(screen) == "muted"
            assert any(n.message.startswith("Muted: the agent's voice is not played")
                       for n in console.app._notifications)
            before = len(player.pcm)
            await console.play(pilot, 0.2)
            assert len(player.pcm) > before  # muted, the speech still arrives (and is saved)
            await pilot.press("ctrl+o")
            assert not player.muted and sound_line(screen) == "sound"
            assert any(n.message.startswith("Sound on") for n in console.app._notifications)


async def call_again(console, pilot, screen: TalkScreen) -> None:
    await pilot.press("escape")
    await until(pilot, lambda: screen.ended)
    await pilot.press("ctrl+r")
    await until(pilot, lambda: isinstance(console.app.screen, TalkConfirm))
    await pilot.press("y")
    await until(pilot, lambda: console.app.screen is screen and screen.talk.started)


async def test_without_the_audio_extra_the_call_says_once_it_is_text_only(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "miniaudio", None)  # import miniaudio raises ImportError
    monkeypatch.delenv("VAP_IN_BROWSER", raising=False)
    with talk_console(sound=open_talk_audio) as console:
        async with console.app.run_test(size=(120, 36)) as pilot:
            screen = await console.talking(pilot)
            assert notes(screen).count(TALK_NO_MODULE) == 1
            keys = {b.binding.id for b in screen.active_bindings.values()}
            assert not keys & {"talk.mic", "talk.mute"}
            assert not screen.query_one(SoundLine).display
            await call_again(console, pilot, screen)
            assert notes(screen).count(TALK_NO_MODULE) == 1


async def test_under_vap_web_the_call_says_once_it_is_text_only(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("VAP_IN_BROWSER", "1")
    with talk_console(sound=open_talk_audio) as console:
        async with console.app.run_test(size=(120, 36)) as pilot:
            screen = await console.talking(pilot)
            assert [n for n in notes(screen) if n.startswith("Text only")] == [TALK_IN_WEB]
            await call_again(console, pilot, screen)
            assert notes(screen).count(TALK_IN_WEB) == 1


async def test_on_real_null_devices_the_agent_plays_and_the_microphone_streams() -> None:
    # miniaudio's null backend: real devices that discard what is played and capture silence, at
    # the pace of a sound card (this machine has none).
    miniaudio = pytest.importorskip("miniaudio", reason="the audio extra is not installed")
    from vap_console.audio_stream import DevicePlayer

    def null_devices(**_: object) -> TalkAudio:
        return open_talk_audio(env={}, backends=[miniaudio.Backend.NULL])

    with talk_console(sound=null_devices) as console:
        async with console.app.run_test(size=(120, 36)) as pilot:
            screen = await console.talking(pilot)
            player = screen.player
            assert isinstance(player, DevicePlayer) and screen.mic is not None
            assert notes(screen)[0] == SOUND_ON
            await console.play(pilot, 0.5)
            assert screen.talk.audio_frames >= 25
            await until(pilot, lambda: len(player.buffer) == 0)  # the device took it all
            sent = spy_on_sent(screen)
            await pilot.press("ctrl+t")
            await until(pilot, lambda: sum(m["type"] == "input_audio_buffer.append" for m in sent) >= 10)
            appended = [base64.b64decode(m["audio"]) for m in sent if m["type"] == "input_audio_buffer.append"]
            assert {len(a) for a in appended} == {FRAME_BYTES} and not any(b"".join(appended))
            assert not screen.ended
