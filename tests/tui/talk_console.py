"""The console on a live sandbox (real loopback sockets: the agent socket needs one) whose clock
is a VirtualClock shared with the console: the agent's speech plays only as a test advances it,
so a Talk scene renders the same on every run."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path
from typing import Any

import httpx
import websockets
from textual.pilot import Pilot

from tests.sandbox.socket_calls import PRIYA_GREETING, frame_count, instant, loud, speaking_seconds
from tests.tui.console_scenes import quiet, until
from vap_console.api import VapClient
from vap_console.api.audio import SilentPlayer
from vap_console.api.realtime import AgentSocket, RegisteredCall, socket_url
from vap_console.audio_stream import TALK_NO_MODULE, TalkAudio
from vap_console.sandbox.clock import VirtualClock
from vap_console.sandbox.keys import DEFAULT_KEY
from vap_console.sandbox.server import RunningSandbox, start_in_thread
from vap_console.sandbox.voice.tool_calls import ToolCalling
from vap_console.tui.app import VapApp, make_app
from vap_console.tui.screens.talk import TalkConfirm, TalkScreen
from vap_console.tui.settings import Settings

__all__ = ["PRIYA_GREETING", "TalkConsole", "loud", "speaking_seconds", "talk_console"]



# What the console shows as its server: the live sandbox's port changes from run to run.
SHOWN_BASE_URL = "http://127.0.0.1:8787"


class ToPort(httpx.AsyncHTTPTransport):
    """Sends every request to the live sandbox's port, whatever the client's base URL says."""

    def __init__(self, port: int) -> None:
        super().__init__()
        self.port = port

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        request.url = request.url.copy_with(port=self.port)
        return await super().handle_async_request(request)


class LiveClient(VapClient):
    """A client whose base URL reads the same on every run, reaching the live sandbox."""

    def __init__(self, live_base_url: str, key: str) -> None:
        self.live_base_url = live_base_url
        super().__init__(SHOWN_BASE_URL, key, transport=ToPort(httpx.URL(live_base_url).port or 80))

    # What the call's frames are stamped with: the sandbox's virtual clock in a Talk scene, so an
    # answer time on screen is the same on every run (what the sandbox was told, not the machine's pace).
    monotonic: Callable[[], float] = staticmethod(time.monotonic)

    def agent_socket(self, registered: RegisteredCall | str, *, connect: Any = None) -> AgentSocket:
        token = registered if isinstance(registered, str) else registered.access_token
        return AgentSocket(socket_url(self.live_base_url, token), clock=self.monotonic)


class SpentTokens(LiveClient):
    """A client whose tokens someone else has used already: the socket closes 4401."""

    async def register_call(self, agent_ref: str) -> RegisteredCall:
        registered = await super().register_call(agent_ref)
        async with websockets.connect(socket_url(self.live_base_url, registered.access_token)) as ws:
            await ws.recv()  # session.created: the token is spent
            await ws.send('{"type": "session.close"}')
        return registered


@dataclass
class TalkConsole:
    app: VapApp
    clock: VirtualClock
    sandbox: RunningSandbox
    # The agent's turn being played: when it started on the sandbox clock, the audio frames the
    # console had before it, and how many frames it has in all.
    turn_start: Any = None
    base_frames: int = 0
    turn_frames: int = 0

    def turn(self, text: str) -> None:
        """The agent starts saying ``text`` now (the sandbox clock does not move by itself)."""
        self.turn_start = self.clock.now()
        self.base_frames = self.screen.talk.audio_frames
        self.turn_frames = frame_count(text)

    async def play(self, pilot: Pilot, seconds: float) -> None:
        """Move the clock on ``seconds`` and wait until the console has every frame due by then
        (a word's delta goes out before its frame's audio), and nothing is left to handle."""
        self.clock.advance(seconds)
        elapsed = (self.clock.now() - self.turn_start).total_seconds()
        due = self.base_frames + min(self.turn_frames, int(elapsed / 0.02 + 1e-9) + 1)
        await until(pilot, lambda: self.screen.talk.audio_frames >= due or self.screen.ended)
        await quiet(pilot, workers=False)

    @property
    def screen(self) -> TalkScreen:
        screen = self.app.screen
        assert isinstance(screen, TalkScreen), screen
        return screen

    def live_words(self) -> int:
        live = self.screen.talk.live
        return len(live.text.split()) if live else 0

    async def delay_runs_out(self, pilot: Pilot, ms: float) -> None:
        """The agent's next turn is due ``ms`` on (``--faults agent_delay_ms``): the clock moves on to
        it once the sandbox has set it (earlier, the turn would be due later than asked)."""
        from vap_console.sandbox.voice.register import sockets_of

        pacer = sockets_of(self.sandbox.app).pacer
        due = self.clock.now() + timedelta(milliseconds=ms)
        await until(pilot, lambda: any(label.startswith("speaker:") and at == due for label, at in pacer.waiting()))
        self.clock.advance(ms / 1000)

    async def talking(self, pilot: Pilot, delay_ms: float = 0) -> TalkScreen:
        """From Agents (Priya highlighted): t, yes to the confirm, the call started and greeted
        (``delay_ms``: the agent's answer delay the sandbox was given, waited out)."""
        from vap_console.tui.widgets.rows import RowTable

        await until(pilot, lambda: self.app.screen.query(RowTable) and self.app.screen.query_one(RowTable).row_count)
        await pilot.press("t")
        await until(pilot, lambda: isinstance(self.app.screen, TalkConfirm))
        await pilot.press("y")
        await until(pilot, lambda: isinstance(self.app.screen, TalkScreen))
        if delay_ms:
            await until(pilot, lambda: self.screen.talk.started)
            await self.delay_runs_out(pilot, delay_ms)
        self.turn(PRIYA_GREETING)
        self.base_frames = 0  # the greeting's first frame may be in already
        await until(pilot, lambda: self.screen.talk.live is not None or self.screen.ended)
        # Drawn too: the screen draws what it folded at most ten times a second, not per frame.
        await until(pilot, lambda: not self.screen.drawing_due)
        return self.screen

    async def advance(self, pilot: Pilot, seconds: float, done: Any) -> None:
        """Move the sandbox's clock on and wait until ``done()`` holds and the console is quiet."""
        self.clock.advance(seconds)
        await until(pilot, done)
        await quiet(pilot, workers=False)

    async def greeted(self, pilot: Pilot) -> None:
        await self.advance(pilot, speaking_seconds(PRIYA_GREETING),
                           lambda: self.screen.talk.agent_turns >= 1 and not self.screen.talk.speaking)

    async def say(self, pilot: Pilot, text: str, reply: str = "") -> None:
        """Type a line and Enter; until the agent has started its answer (``reply``, to play it)."""
        answers = self.screen.talk.agent_turns
        if reply:
            self.turn(reply)
        await pilot.press(*text)
        await pilot.press("enter")
        await until(pilot, lambda: self.screen.talk.live is not None or self.screen.talk.agent_turns > answers
                    or self.screen.ended)

    async def say_delayed(self, pilot: Pilot, text: str, reply: str, delay_ms: float) -> None:
        """Type a line and Enter; the agent's delay waited out, until its answer (``reply``) starts."""
        frames = self.screen.talk.audio_frames
        await pilot.press(*text)
        await pilot.press("enter")
        await self.delay_runs_out(pilot, delay_ms)
        self.turn(reply)
        # Its first audio frame read before the clock moves on: the frame is stamped as it is read.
        await until(pilot, lambda: self.screen.talk.audio_frames > frames or self.screen.ended)

    async def save_audio_to(self, pilot: Pilot, folder: Path, seconds: float) -> None:
        """``seconds`` of the agent's turn played, then ctrl+s with ``folder`` as where audio goes."""
        self.screen.save_dir = folder
        await self.play(pilot, seconds)
        await pilot.press("ctrl+s")

    async def still(self, pilot: Pilot) -> None:
        """Ready for a picture: no cursor blinking, nothing queued."""
        from textual.widgets import Input

        for widget in self.app.screen.query(Input):
            widget.cursor_blink = False
        # The mouse rests on the top line, whose tooltip would show in the picture whenever taking
        # it outlasts Textual's half-second delay (a busy machine): no tooltip comes up.
        self.app.TOOLTIP_DELAY = 3600
        await pilot.hover(offset=(0, 0))
        await quiet(pilot, workers=False)


def no_sound_support(*, want_sound: bool = True) -> TalkAudio:
    """As on a machine without the audio extra, whatever this one has installed."""
    return TalkAudio(SilentPlayer(), note=TALK_NO_MODULE)


@contextmanager
def talk_console(faults: str = "", *, key: str = DEFAULT_KEY, spent_tokens: bool = False,
                 sound: Callable[..., TalkAudio] | None = None, client_kind: type[LiveClient] | None = None,
                 call_tools: ToolCalling | None = None, **screen_options: Any) -> Iterator[TalkConsole]:
    """``client_kind``: the console's client (a ``LiveClient``; tests/talk/hostile_socket.py's
    ``client_kind`` sends its agent sockets to a hostile server). ``call_tools``: the sandbox calls
    the account's tools for real (``vap sandbox serve --call-tools``)."""
    clock = VirtualClock()
    with start_in_thread(clock=clock, faults=instant(faults), call_tools=call_tools) as live:  # clock moved by hand
        kind = client_kind or (SpentTokens if spent_tokens else LiveClient)

        def client() -> VapClient:
            made = kind(live.base_url, key)
            made.monotonic = lambda: (clock.now() - clock.start).total_seconds()
            return made

        app = make_app(client_factory=client, profile_name="sandbox", base_url=SHOWN_BASE_URL,
                       clock=clock.now, settings=Settings(), start_screen="agents", on_sandbox=True)
        own = TalkScreen.__dict__["audio_factory"]
        TalkScreen.audio_factory = staticmethod(sound or no_sound_support)
        try:
            yield TalkConsole(app, clock, live)
        finally:
            TalkScreen.audio_factory = own
