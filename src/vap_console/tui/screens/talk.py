"""Talk: a live conversation with a deployed agent over its realtime socket (docs/talk.md).

Opened from Agents (``t``) after a confirm that says the call is billed from the moment the agent
answers. The call runs in one worker: ``register-call``, then the socket; each server frame is
folded into the ``Conversation`` (``api/conversation.py``) as it comes, and only the widgets of the
parts that changed redraw, once for however many frames came meanwhile. Typing a line and Enter
sends a turn; Esc or Hang up sends ``session.close``, and a server that does not answer it within
``hangup_grace`` seconds is cut off from here. However the call ends, the screen says so in words with what to do next;
it never dials again by itself (Call again asks first), and a line typed is never lost to a drop.
Its sound is ``talk_sound.py``'s half.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.message import Message
from textual.timer import Timer
from textual.widgets import Button, Input, Static

from vap_console.api import errors
from vap_console.api.audio import AudioTape, Player, SilentPlayer
from vap_console.api.conversation import BILLING, LIVE, SPEAKING, TOOLS, TURNS, Conversation
from vap_console.api.figures import Times
from vap_console.api.limits import TYPED_TURN
from vap_console.api.models import Agent, AgentLimits
from vap_console.api.realtime import (
    HANGUP_WAIT,
    AgentSocket,
    ErrorEvent,
    Interruption,
    OutputAudioDelta,
    ServerEvent,
    SessionCreated,
    ToolCall,
    UnknownEvent,
)
from vap_console.audio_stream import MicStream, TalkAudio, open_talk_audio
from vap_console.tui import untrusted
from vap_console.tui.screens.answers_once import answered_already
from vap_console.tui.screens.base import freeze_garbage_collection
from vap_console.tui.screens.talk_sound import TalkSound
from vap_console.tui.screens.talk_words import NEXT_CALL, TalkConfirm, ending_words
from vap_console.tui.widgets.key_bar import KeyBar
from vap_console.tui.widgets.status_bar import StatusBar
from vap_console.tui.widgets.talk import (
    AnswerTimes,
    BilledTimer,
    SayBox,
    ScreenPart,
    SlotsLine,
    SoundLine,
    SpeakingIndicator,
    TranscriptView,
)

if TYPE_CHECKING:
    from vap_console.tui.services import Services

# Told (call_id, agent_ref, kind) once a call is billed: where the call ledger (issue 25) hooks in.
CallStarted = Callable[[str, str, str], None]

# Error (or unreadable) frames each told in a line of their own; later ones are counted in one.
NOTED_EACH = 3
# The transcript's redraws a second at most over time, however many frames come (a display's rate),
# and how many may come at once: agent_start_talking and the answer's first word arrive a
# millisecond apart, and the word waited out the whole tenth of a second (bench/talk.py: p99 of a
# delta on screen 100-130 ms, p50 2 ms).
REDRAWS_A_SECOND = 10
REDRAW_BURST = 3


class TalkScreen(TalkSound):
    LABEL = "Talk"
    # Drawn as its background colour alone, without going line by line through the styles: the
    # screen is under every repaint of anything on it (a key typed, a word arriving).
    BLANK = True
    DEFAULT_CSS = """
    TalkScreen #talk-status { dock: top; height: 1; }
    TalkScreen #talk-keys { dock: bottom; height: 1; }
    TalkScreen #talk-body { height: 1fr; }
    TalkScreen #talk-say { height: 3; }
    TalkScreen #head-box { height: 1; }
    TalkScreen #talk-head { height: 1; padding: 0 1; }
    TalkScreen #talk-head > ScreenPart { width: auto; height: 1; }
    TalkScreen #talk-head > #title-box { width: 1fr; }
    TalkScreen #transcript-box { height: 1fr; }
    TalkScreen #sound { display: none; }
    TalkScreen #sound.-shown { display: block; }
    TalkScreen #talk-title { width: 1fr; text-style: bold; text-wrap: nowrap; text-overflow: ellipsis; }
    /* Under 100 columns the slots (said in the confirm) give way to the answer times. */
    TalkScreen.-narrow #slots { display: none; }
    TalkScreen #talk-end { height: auto; display: none; background: $warning 20%;
                           border-left: thick $warning; padding: 0 1; }
    TalkScreen #talk-end.-shown { display: block; }
    TalkScreen #talk-end.-problem { background: $error 25%; border-left: thick $error; }
    TalkScreen #talk-end-row { height: auto; }
    TalkScreen #talk-end-text { width: 1fr; height: auto; padding: 1 0 0 0; }
    TalkScreen #talk-end-row Button { margin-left: 1; }
    TalkScreen #talk-say-row { height: 3; }
    TalkScreen #say { width: 1fr; }
    TalkScreen #hang-up { min-width: 12; }
    TalkScreen #hang-up-box { width: auto; height: 3; }
    """
    BINDINGS = [
        Binding("escape", "hang_up", "Hang up", id="talk.hangup", tooltip="End the call (session.close)"),
        Binding("escape", "back", "Back", id="talk.back", tooltip="Back to Agents (the call has ended)"),
        # s where the typing box does not have the keys (it types an s); ctrl+s anywhere.
        Binding("ctrl+s,s", "save_audio", "Save audio", id="talk.save",
                tooltip="Save what the agent said as a WAV file (ctrl+s; s only outside the typing box)"),
        # Ctrl keys: the typing box has the letters. Shown only where the machine has the device.
        Binding("ctrl+t", "toggle_mic", "Mic", id="talk.mic",
                tooltip="Turn your microphone on (the agent hears you) or off: push-to-talk as a toggle"),
        Binding("ctrl+o", "toggle_mute", "Mute", id="talk.mute",
                tooltip="Mute or unmute the agent's voice (muted, it is still saved by ctrl+s)"),
        Binding("ctrl+r", "call_again", "Call again", id="talk.again",
                tooltip="Start a new billed call with this agent (asks first)"),
    ]

    # Seconds to wait for session.closed after Esc before closing the socket from here.
    hangup_grace: float = HANGUP_WAIT
    # The call's sound devices, and the sentence saying why the call is text-only (tests swap it:
    # the screen must read the same whichever optional packages and devices the machine has).
    audio_factory: Callable[..., TalkAudio] = staticmethod(open_talk_audio)

    class CallOver(Message):
        def __init__(self, failure: errors.ApiError | None) -> None:
            super().__init__()
            self.failure = failure

    class TurnSent(Message):
        def __init__(self, text: str, failure: errors.ApiError | None) -> None:
            super().__init__()
            self.text = text
            self.failure = failure

    def __init__(self, agent: Agent, services: Services, *, limits: AgentLimits | None = None,
                 on_call_started: CallStarted | None = None, sound: bool = True,
                 save_dir: Path | None = None, sound_devices: TalkAudio | None = None) -> None:
        super().__init__()
        self.agent = agent
        self.services = services
        self.limits = limits
        self.on_call_started = on_call_started
        self.save_dir = save_dir
        self.talk = Conversation()
        self.tape = AudioTape()
        self._want_sound = sound
        self._sound_devices = sound_devices
        self.player: Player = SilentPlayer()
        self.mic: MicStream | None = None
        self._open_mic = False
        self._leaving = False
        self._socket: AgentSocket | None = None
        self._started_at: datetime | None = None
        self._ticker: Timer | None = None
        self._hung_up_early = False
        self.ended = False
        # What changed since the last redraw, the notes told meanwhile, and whether a redraw is
        # on its way (one at a time, however many frames come).
        self._changed: set[str] = set()
        self._notes: list[tuple[str, str]] = []
        self._redraw_due = False
        # Redraws that may start now (a token bucket: REDRAW_BURST at most, REDRAWS_A_SECOND a second).
        self._redraw_credit = float(REDRAW_BURST)
        self._credited_at = time.monotonic()
        self._calls = 1
        # The hang-up sent and not answered: after ``hangup_grace`` s the socket is closed from here.
        self._hangup_timer: Timer | None = None
        self._forced = False
        self._tools_shown = 0  # the call's tool calls told in the transcript so far

    @property
    def label(self) -> str:
        return self.agent.name or self.agent.ref

    def compose(self) -> ComposeResult:
        if hasattr(self.services, "follow_connection"):
            with ScreenPart(id="talk-status"):
                yield StatusBar("Agents › talk", self.services)
        with ScreenPart(id="talk-keys"):
            yield KeyBar()
        with ScreenPart(id="talk-body"):
            # Each in a box of its own: the billed time changes every second, and a repaint of it
            # drew every other part of the line again (their container, the line, overlapped it).
            with ScreenPart(id="head-box"), Horizontal(id="talk-head"):
                with ScreenPart(id="title-box"):
                    yield Static(untrusted.content(f"Talking with {self.label}", multiline=False), id="talk-title")
                with ScreenPart():
                    yield SpeakingIndicator(id="speaking")
                with ScreenPart():
                    yield SoundLine(id="sound")
                with ScreenPart():
                    yield AnswerTimes(id="answer-times")
                with ScreenPart():
                    yield BilledTimer(id="billed")
                with ScreenPart():
                    yield SlotsLine(id="slots")
            with Vertical(id="talk-end"), Horizontal(id="talk-end-row"):
                yield Static(id="talk-end-text")
                yield Button("Call again", id="call-again", variant="warning")
            with ScreenPart(id="transcript-box"):  # the top line's tick does not draw its thirty lines
                yield TranscriptView(id="transcript")
        with ScreenPart(id="talk-say"), Horizontal(id="talk-say-row"):
            yield SayBox(placeholder="Type what to say, then Enter", id="say", max_length=TYPED_TURN.high)
            with ScreenPart(id="hang-up-box"):  # a key typed in the box does not draw the button again
                yield Button("Hang up", id="hang-up", variant="error")

    def on_mount(self) -> None:
        self._timer = self.query_one(BilledTimer)
        self.query_one(SlotsLine).limits = self.limits
        self.query_one("#say", Input).focus()
        self.refresh_bindings()
        if self._sound_devices is not None:
            self._use_sound(self._sound_devices)
        else:
            self.open_sound()

    def sound_settled(self, note: str) -> None:
        if note:
            self.transcript.note(note)  # once: Call again keeps the devices and says nothing
        self.dial()

    @property
    def drawing_due(self) -> bool:
        """Frames folded and not yet drawn (a redraw is on its way, at most a tenth of a second)."""
        return self._redraw_due

    @property
    def transcript(self) -> TranscriptView:
        return self.query_one(TranscriptView)

    # --- the call ---

    @work(exclusive=True, group="talk-call", exit_on_error=False)
    async def dial(self) -> None:
        """register-call, then the socket. Never retried: a new call is the person's decision
        (Call again, which asks first).

        Each frame is folded here, on the UI's loop, and the widgets of what changed are redrawn
        once for however many frames came meanwhile (``_redraw``): a server's flood costs a fold a
        frame, never a message or a redraw a frame, so Esc is handled however fast frames come."""
        try:
            registered = await self.services.call_api(lambda c: c.register_call(self.agent.ref), resend=False)
            socket = self.services.client.agent_socket(registered)
            self._socket = socket
            self.talk.call_id = self.talk.call_id or registered.call_id
            async with socket:
                async for event in socket.events(on_audio=self._audio_arrived):
                    if self.ended:
                        break  # ended from this side (an unanswered hang-up): nothing more is read
                    if isinstance(event, OutputAudioDelta):
                        # 50 a second and no widget shows them: played and kept here (most come
                        # straight from the socket's read callback, ``_audio_arrived``).
                        self._audio(event)
                        continue
                    if isinstance(event, Interruption):
                        self.player.flush()  # at once: what is queued is what the person spoke over
                    self._fold(event)
        except errors.ApiError as failure:
            self.post_message(self.CallOver(failure))
            return
        self.post_message(self.CallOver(None))

    def _fold(self, event: ServerEvent) -> None:
        first = not self.talk.started
        self._changed |= self.talk.apply(event)
        if isinstance(event, SessionCreated) and first:
            self._started()
        elif isinstance(event, SessionCreated) and self.talk.created_again == 1:
            self._tell("again", "The service said the call started a second time: ignored (billed from the first).")
        elif isinstance(event, ErrorEvent) and self.talk.started:
            # A frame the service could not use; the call goes on. (Before session.created an error
            # frame is the refusal that a 4000 close follows: the end says it, once.)
            self._tell_count("error", self.talk.errors_total, f"The service reported {event.code}: {event.message}",
                             "error frames")
        elif isinstance(event, UnknownEvent) and event.type == "?":
            problem = str(getattr(event, "problem", "") or "malformed")
            said = f"The service sent a frame the console cannot read ({problem}): ignored, the call goes on."
            self._tell_count("malformed", self.talk.malformed, said, "unreadable frames")
        self._draw_soon()

    def _draw_soon(self) -> None:
        if not self._redraw_due:
            # At once while there is credit; under a flood at most REDRAWS_A_SECOND times a second.
            self._redraw_due = True
            now = time.monotonic()
            self._redraw_credit = min(REDRAW_BURST, self._redraw_credit + (now - self._credited_at) * REDRAWS_A_SECOND)
            self._credited_at = now
            wait = (1 - self._redraw_credit) / REDRAWS_A_SECOND
            if wait > 0:
                self.set_timer(wait, self._redraw)
            else:
                self.call_later(self._redraw)

    def _tell(self, key: str, text: str) -> None:
        # Keyed per call: a line of this call is updated in place, never one of an earlier call.
        self._notes.append((f"{self._calls}:{key}", text))

    def _tell_count(self, key: str, seen: int, text: str, what: str) -> None:
        """The first few of a kind each get a line; after that one line counts them (a flood of
        error frames is one line, not thousands)."""
        if seen <= NOTED_EACH:
            self._tell(f"{key}-{seen}", text)
        else:
            self._tell(key, f"… {seen - NOTED_EACH} more {what} from the service; the last: {text}")

    def _redraw(self) -> None:
        """The widgets of what changed since the last redraw, and the notes told meanwhile."""
        self._redraw_due = False
        if self._leaving:
            return  # the screen is going: nothing to draw on
        self._redraw_credit -= 1
        changed, self._changed = self._changed, set()
        notes, self._notes = self._notes, []
        self._tick()  # the billed time as of now (the interval moves it between frames)
        if (SPEAKING in changed or BILLING in changed) and self._hangup_timer is None and not self.ended:
            self.query_one(SpeakingIndicator).state = "speaking" if self.talk.speaking else "listening"
        transcript = self.transcript
        with transcript.in_one_layout():
            if TURNS in changed:
                transcript.show_turns(self.talk, self.talk.settled_total)
            if LIVE in changed:
                transcript.show_live(self.talk.live, self.talk.held)
            said: dict[str, str] = dict(notes)  # of many notes of one kind meanwhile, the last
            for key, text in said.items():
                style = "italic $text-muted" if key.endswith(":started") else "italic $warning"
                transcript.note(text, style, key=key)
            if TOOLS in changed:
                self._show_tool_calls()  # after the notes: a before_call tool runs once the call started
        if TURNS in changed:
            self._show_answer_times()

    def _show_answer_times(self) -> None:
        answers = self.query_one(AnswerTimes)
        if answers.times.count != len(self.talk.answered):
            answers.times = Times.of(self.talk.answered)

    def _show_tool_calls(self) -> None:
        """Each tool call not told yet, as a line of its own (the server's text shown literally)."""
        talk = self.talk
        new = min(talk.tool_calls_total - self._tools_shown, len(talk.tool_calls))
        self._tools_shown = talk.tool_calls_total
        calls: list[ToolCall] = list(talk.tool_calls)[-new:] if new > 0 else []
        for call in calls:
            failed = call.error is not None or call.status is None or not 200 <= call.status < 300
            self.transcript.note(f"⚙ {call.in_words()}", "$warning" if failed else "$text-muted")

    def _audio_arrived(self, event: OutputAudioDelta, pcm: bytes) -> None:
        if not self.ended:
            self._audio(event, pcm)

    def _audio(self, event: OutputAudioDelta, pcm: bytes | None = None) -> None:
        if LIVE in self.talk.apply(event):
            # The first audio frame of an answer: its answer time is now measured (shown by the turn).
            self._changed.add(LIVE)
            self._draw_soon()
        pcm = event.pcm if pcm is None else pcm
        self.player.play(pcm)
        self.tape.add(pcm)

    def _started(self) -> None:
        # What the console made until now (this screen, the lists under it) lives through the call:
        # out of the collector's sight, so a full pass during the call walks only the call's own
        # objects (one walked everything: 16-22 ms on the UI loop, as words arrived).
        freeze_garbage_collection()
        self._started_at = self.services.now()
        self.query_one(BilledTimer).seconds = 0
        self._ticker = self.set_interval(1.0, self._tick)
        if self.talk.call_id:
            self._tell("started", f"The agent answered: billed from now (call {self.talk.call_id}).")
        else:
            self._tell("started", "The agent answered: billed from now. The service gave the call no id: "
                       "it is not kept in Calls.")
        if self.on_call_started is not None and self.talk.call_id:
            self.on_call_started(self.talk.call_id, self.agent.ref, "talk")
        self.read_limits()
        if self.mic is not None and self._socket is not None:
            self.mic.start()
            self.stream_mic(self.mic, self._socket)
            if self._open_mic:
                self._set_mic(True)
        self.refresh_bindings()

    def _tick(self) -> None:
        if self._started_at is not None and not self.ended:
            elapsed = (self.services.now() - self._started_at).total_seconds()
            self._timer.seconds = int(max(0.0, elapsed))

    @on(CallOver)
    def _call_over(self, message: CallOver) -> None:
        if self.ended:
            return  # ended from this side already (an unanswered hang-up); the worker's end is late
        if self._redraw_due:
            self._redraw()  # what came before the end is shown before it
        self._tick()
        self.ended = True
        self._socket = None
        if self._ticker is not None:
            self._ticker.stop()
        if self._hangup_timer is not None:
            self._hangup_timer.stop()
        self._stop_mic()
        changed = self.talk.end(time.monotonic(), message.failure)
        if self.talk.call_id and self.services.calls is not None:  # issue 34: its answer times kept
            from vap_console.api.figures import answer_times

            self.services.calls.record_answer_times(self.talk.call_id, answer_times(self.talk.turns))
        if TURNS in changed:
            self.transcript.show_turns(self.talk, self.talk.settled_total)
            self._show_answer_times()
        self.transcript.show_live(None)
        self.player.flush()
        self.query_one(SpeakingIndicator).state = "ended"
        self.query_one(BilledTimer).ended = True
        words, problem = ending_words(self.talk, self._hung_up_early)
        if self._forced:
            words = (f"You hung up. The service did not confirm it within {self.hangup_grace:g} s, so the "
                     f"console closed the connection itself: billing stops there. {NEXT_CALL}")
        self.query_one("#talk-end-text", Static).update(untrusted.content(words))
        end = self.query_one("#talk-end")
        end.set_class(problem, "-problem")
        end.add_class("-shown")
        self.query_one("#hang-up", Button).label = "Close"
        self.refresh_bindings()
        if self._started_at is not None:
            self.read_limits()

    @work(exclusive=True, group="talk-limits", exit_on_error=False)
    async def read_limits(self) -> None:
        try:
            limits = await self.services.call_api(lambda c: c.agent_limits())
        except errors.ApiError:
            return
        self.query_one(SlotsLine).limits = limits

    # --- what the person does ---

    @on(Input.Submitted, "#say")
    def _say(self, event: Input.Submitted) -> None:
        text = event.value.strip()
        if not text:
            return
        if self.ended:
            self.notify("The call has ended: your text is kept. Call again (ctrl+r) to say it in a new call.",
                        severity="warning")
            return
        if self._socket is None or not self.talk.started:
            self.notify("The agent has not answered yet: your text is kept; press Enter once it has.",
                        severity="warning")
            return
        # Timed as it leaves, on the clock the socket stamps the agent's frames with.
        self.talk.sent(self._socket.clock())
        self.send_turn(self._socket, text)

    @work(group="talk-send", exit_on_error=False)
    async def send_turn(self, socket: AgentSocket, text: str) -> None:
        try:
            await socket.send_text(text)
        except errors.ApiError as failure:
            self.post_message(self.TurnSent(text, failure))
            return
        self.post_message(self.TurnSent(text, None))

    @on(TurnSent)
    def _turn_sent(self, message: TurnSent) -> None:
        say = self.query_one("#say", Input)
        if message.failure is None:
            # Cleared only once sent, and only if it still holds what was sent.
            if say.value.strip() == message.text:
                say.value = ""
            return
        self.notify(f"Not sent: {message.failure} Your text is kept.", severity="error")

    def action_back(self) -> None:
        # Esc and a click on Close can both be on their way: Textual's dismiss pops whatever is on
        # top, so the second closed Agents beneath, or with nothing beneath stopped the console.
        if not answered_already(self):
            self.dismiss(None)

    def action_hang_up(self) -> None:
        socket = self._socket
        if socket is None or not self.talk.started:
            # Nothing billed yet: stop dialling (a token minted is spent by nobody and expires).
            self._hung_up_early = socket is None or not self.talk.started
            self.workers.cancel_group(self, "talk-call")
            self.post_message(self.CallOver(None))
            return
        self.query_one(SpeakingIndicator).state = "hanging up"  # answered at once, whatever comes meanwhile
        if self._hangup_timer is None:
            # Timed from the key, not from the send: a server that reads nothing never lets it leave.
            self._hangup_timer = self.set_timer(self.hangup_grace, self._close_unanswered)
        self._send_close(socket)

    def _close_unanswered(self) -> None:
        """The server ignored session.close: close the socket from here, and say so."""
        socket = self._socket
        if self.ended or socket is None:
            return
        self._forced = True
        socket.force_close()
        self.workers.cancel_group(self, "talk-call")
        self.post_message(self.CallOver(None))

    @work(group="talk-send", exit_on_error=False)
    async def _send_close(self, socket: AgentSocket) -> None:
        await socket.hang_up()

    @on(Button.Pressed, "#hang-up")
    def _hang_up_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        if self.ended:
            self.action_back()
        else:
            self.action_hang_up()

    def action_call_again(self) -> None:
        if not self.ended:
            self.notify("This call is still on: hang up first (Esc).", severity="warning")
            return
        from vap_console.tui.screens.dialog import confirm_then

        confirm_then(self.app, TalkConfirm(self.label, self.query_one(SlotsLine).limits), self._redial)

    @on(Button.Pressed, "#call-again")
    def _again_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.action_call_again()

    def _redial(self) -> None:
        if not self.ended:
            return  # a second yes from one gesture: one call at a time
        self.ended = False
        self._hung_up_early = False
        self._started_at = None
        self._hangup_timer = None
        self._forced = False
        self._calls += 1
        self._tools_shown = 0
        self.talk = Conversation()
        self.tape.close()
        self.tape = AudioTape()
        self.query_one("#talk-end").remove_class("-shown")
        self.query_one("#hang-up", Button).label = "Hang up"
        self.query_one(BilledTimer).seconds = None
        self.query_one(BilledTimer).ended = False
        self.query_one(SpeakingIndicator).state = "connecting"
        self.transcript.note("A new call.")
        self.query_one(AnswerTimes).times = Times.of([])
        self.transcript.reset_count()
        self.refresh_bindings()
        self.dial()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action in ("call_again", "back"):
            return self.ended
        if action == "hang_up":
            return not self.ended
        if action == "toggle_mute":
            return self.player.audible  # hidden where nothing plays
        if action == "toggle_mic":
            if self.mic is None:
                return False  # hidden where no microphone opens
            return (self.talk.started and not self.ended) or None  # dim until the agent answers
        return True

    def on_unmount(self) -> None:
        # Leaving the screen ends the call: the worker is cancelled and its socket closed, so
        # nothing goes on billing behind the person's back. The devices and the tape go with it.
        self._leaving = True
        if self.mic is not None:
            self.mic.stop()
        TalkAudio(self.player, self.mic.mic if self.mic is not None else None).close()
        self.tape.close()
