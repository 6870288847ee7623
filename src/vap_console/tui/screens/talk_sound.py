"""The Talk screen's sound, as the half of it it is: the devices opened, the microphone (on and
off, its turns timed from their commit), the agent's voice muted and unmuted, and what the agent
said saved as a WAV file. TalkScreen (``talk.py``) is built on it and holds the call.

Sound (``audio_stream.py``), where the machine has it: the agent's voice plays through a jitter
buffer, flushed on ``interruption``; ctrl+o mutes it. ctrl+t turns the microphone on and off
(push-to-talk as a toggle: a terminal reports no key release) and its 20 ms frames go out as
``input_audio_buffer.append``. Without sound the screen says once that the call is text-only.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, cast

from textual import on, work
from textual.message import Message
from textual.screen import Screen
from textual.timer import Timer, TimerCallback

from vap_console.api.audio import AudioTape, Player, SilentPlayer
from vap_console.api.conversation import Conversation
from vap_console.api.realtime import AgentSocket
from vap_console.audio_stream import TALK_NO_DEVICE, MicStream, TalkAudio
from vap_console.literal import clean
from vap_console.local_files import call_audio_name
from vap_console.tui.frame_timer import paced_set_interval
from vap_console.tui.widgets.talk import SoundLine

if TYPE_CHECKING:
    from vap_console.tui.services import Services


class _TimesCommits:
    """The socket as the microphone's stream sees it: its commit (the last frame of a spoken turn)
    is the moment the agent's answer is timed from, as Enter is for a typed line."""

    def __init__(self, socket: AgentSocket, talk: Callable[[], Conversation]) -> None:
        self._socket, self._talk = socket, talk

    async def send_audio(self, pcm: bytes) -> None:
        await self._socket.send_audio(pcm)

    async def commit(self) -> None:
        self._talk().sent(self._socket.clock())
        await self._socket.commit()


class TalkSound(Screen[None]):
    """What of the Talk screen is sound. Set by TalkScreen: the call's conversation, the tape of
    what the agent said, the player, the microphone (None where none opens)."""

    talk: Conversation
    tape: AudioTape
    player: Player
    mic: MicStream | None
    services: Services
    save_dir: Path | None
    ended: bool
    audio_factory: Callable[..., TalkAudio]
    _want_sound: bool
    _leaving: bool
    _open_mic: bool

    def set_interval(self, interval: float, callback: TimerCallback | None = None, *, name: str | None = None,
                     repeat: int = 0, pause: bool = False) -> Timer:
        # The screen's update timer without a wake a frame after each frame drawn (frame_timer.py):
        # during a call the screen changes a dozen times a second.
        paced = None if repeat else paced_set_interval(self, interval, callback, name=name, pause=pause)
        return paced or super().set_interval(interval, callback, name=name, repeat=repeat, pause=pause)

    class AudioReady(Message):
        def __init__(self, sound: TalkAudio) -> None:
            super().__init__()
            self.sound = sound

    @work(thread=True, exclusive=True, group="talk-audio", exit_on_error=False)
    def open_sound(self) -> None:
        """Opening a device can take a moment (ALSA probes, PulseAudio connects): off the UI's loop.
        The call is dialled once the sound is settled, so its sentence comes first."""
        try:
            sound = type(self).audio_factory(want_sound=self._want_sound)
        except Exception:  # noqa: BLE001 - a backend failing its own way: the call goes on, typed
            sound = TalkAudio(SilentPlayer(), note=TALK_NO_DEVICE)
        if self._leaving:
            sound.close()
            return
        self.post_message(self.AudioReady(sound))

    @on(AudioReady)
    def _audio_ready(self, message: AudioReady) -> None:
        self._use_sound(message.sound)

    def _use_sound(self, sound: TalkAudio) -> None:
        self.player, self._open_mic = sound.player, sound.open_mic
        self.mic = MicStream(sound.mic, asyncio.get_running_loop()) if sound.mic is not None else None
        line = self.query_one(SoundLine)
        line.set_class(self.player.audible, "-shown")
        line.mic = "off" if self.mic is not None else ""
        self.refresh_bindings()
        self.sound_settled(sound.note)

    def sound_settled(self, note: str) -> None:
        """The sound is what it will be for the call (``note``: why the call is text-only, or "")."""
        raise NotImplementedError

    @property
    def mic_live(self) -> bool:
        return self.mic is not None and self.mic.live

    @work(exclusive=True, group="talk-mic", exit_on_error=False)
    async def stream_mic(self, mic: MicStream, socket: AgentSocket) -> None:
        await mic.send_to(cast(AgentSocket, _TimesCommits(socket, lambda: self.talk)))

    def _set_mic(self, live: bool) -> None:
        if self.mic is not None:
            self.mic.switch(live)
            self.query_one(SoundLine).mic = "on" if live else "off"

    def _stop_mic(self) -> None:
        if self.mic is not None:
            self.mic.stop()
            self.workers.cancel_group(self, "talk-mic")
            self.query_one(SoundLine).mic = "off"

    def action_toggle_mic(self) -> None:
        if self.mic is None or self.ended or not self.talk.started:
            return
        self._set_mic(not self.mic_live)
        if self.mic_live:
            self.notify("Microphone on: the agent hears you. ctrl+t turns it off.", timeout=3)
        else:
            self.notify("Microphone off: the agent no longer hears you.", timeout=3)

    def action_toggle_mute(self) -> None:
        if not self.player.audible:
            return
        self.player.muted = not self.player.muted
        self.query_one(SoundLine).muted = self.player.muted
        if self.player.muted:
            self.notify("Muted: the agent's voice is not played (ctrl+s still saves it). ctrl+o to hear it.",
                        timeout=3)
        else:
            self.notify("Sound on: the agent's voice plays again.", timeout=3)

    def action_save_audio(self) -> None:
        if not len(self.tape):
            self.notify("Nothing to save yet: the agent has not said anything in this call.", severity="warning")
            return
        folder = self.save_dir or Path.cwd()
        # The call id is the server's text: checked before it names a file (local_files.name_part).
        stamp = self.services.now().strftime("%Y%m%d-%H%M%S")
        path = folder / call_audio_name(self.talk.call_id, "agent", stamp=stamp)
        try:
            self.tape.save(path)
        except OSError as exc:
            # The path holds the folder's and the call id's text, the reason the system's: both shown
            # through the one untrusted-text path (controls made visible, no markup), whichever app shows the toast.
            self.notify(f"Could not save the audio to {clean(str(path))}: {clean(str(exc.strerror or exc))}",
                        severity="error", markup=False)
            return
        self.notify(f"Saved {self.tape.seconds:.1f} s of the agent's audio to {clean(str(path))}", timeout=6,
                    markup=False)
