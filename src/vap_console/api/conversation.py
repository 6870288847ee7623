"""One conversation over the agent socket, folded one event at a time (Textual-free).

``Conversation.apply(event)`` updates the state and returns which parts changed, so the Talk
screen redraws only those widgets and ``vap agents talk|test`` read the same state:

* ``TURNS``: the settled turns (a bounded deque: a long call keeps its last ``max_turns``);
* ``LIVE``: the agent's turn in progress, from ``transcript.delta`` until its ``transcript``, and
  the person's turns heard meanwhile (``held``: they settle after it, in the order things were said);
* ``SPEAKING``: whether the agent is talking (``agent_start_talking``/``agent_stop_talking``);
* ``BILLING``: the call started (``session.created``: billed from here) or ended;
* ``STATUS``: an ``error`` frame, ``session.closed``, or the socket's end;
* ``AUDIO``: agent audio arrived (its bytes are counted; the screen's player and WAV get them).

Whatever the server sends, what a call keeps is bounded: the turns (``max_turns``), the person's
turns held meanwhile (``MAX_HELD``: beyond it the oldest settles at once), the error frames kept
(``MAX_ERRORS``, with a running count), each turn's text (``MAX_TEXT`` characters); malformed
frames are counted, and a second ``session.created`` changes nothing (billing starts once).

* ``TOOLS``: a tool's webhook was called (``sandbox.tool_call``, a sandbox extension; the last
  ``MAX_TOOL_CALLS`` kept, ``tool_calls_total`` counts them all).

An ``interruption`` marks the turn in progress with how much had been said; the ``transcript``
that settles it keeps the mark.

The answer time of a turn (docs/talk.md "How an answer time is measured") is from the moment the
person's turn left (``sent``: a typed line sent, the microphone's commit) to the agent's first
audio frame of the answer (``output_audio.delta``), both on the same monotonic clock (the frames'
``received_at``). Until audio comes, and for good in a call that carries none (text only), it is
the first sign of the answer: ``agent_start_talking``, a delta, or its ``transcript`` when nothing
came before it. Audio still arriving of a turn that began before the send is not its answer.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Final

from vap_console.api import errors
from vap_console.api.realtime import (
    AgentStartTalking,
    AgentStopTalking,
    ErrorEvent,
    Interruption,
    OutputAudioDelta,
    ServerEvent,
    SessionClosed,
    SessionCreated,
    ToolCall,
    Transcript,
    TranscriptDelta,
    UnknownEvent,
)

TURNS: Final = "turns"
LIVE: Final = "live"
SPEAKING: Final = "speaking"
BILLING: Final = "billing"
STATUS: Final = "status"
AUDIO: Final = "audio"
TOOLS: Final = "tools"
MAX_TURNS = 500
# The tool calls kept for reading (``tool_calls_total`` counts them all): far more than a call makes.
MAX_TOOL_CALLS = 100
# The person's turns heard while one agent turn arrives: a handful in a real call.
MAX_HELD = 20
# The error frames kept for reading (``errors_total`` counts them all).
MAX_ERRORS = 20
# A turn's text kept: far above any spoken turn; a server's megabytes are cut to it.
MAX_TEXT = 20_000


def _kept(text: str) -> str:
    return text if len(text) <= MAX_TEXT else text[:MAX_TEXT - 1] + "…"


@dataclass
class Turn:
    role: str
    text: str = ""
    # What had been said when the person spoke over it (None: not interrupted).
    interrupted_at: str | None = None
    # Milliseconds from the person's turn leaving to this answer's first audio frame (to its first
    # sign where no audio came); None: not an answer to a turn of the person's (the greeting).
    answer_ms: float | None = None
    # The call ended while this turn was still arriving: what had arrived is all there is.
    cut_off: bool = False

    @property
    def interrupted(self) -> bool:
        return self.interrupted_at is not None


@dataclass
class Conversation:
    """The state of one call. ``clock`` is monotonic seconds (the events' ``received_at``)."""

    max_turns: int = MAX_TURNS
    turns: deque[Turn] = field(default_factory=deque)
    live: Turn | None = None
    speaking: bool = False
    call_id: str | None = None
    started_at: float | None = None
    ended_at: float | None = None
    closed: SessionClosed | None = None
    failure: errors.ApiError | None = None
    # The last MAX_ERRORS error frames; errors_total counts every one.
    errors_seen: list[ErrorEvent] = field(default_factory=list)
    errors_total: int = 0
    # Frames this client could not read (realtime.parse_event's type "?"), and the last of them.
    malformed: int = 0
    last_malformed: UnknownEvent | None = None
    # session.created frames after the first (each ignored: the call started once).
    created_again: int = 0
    # Every frame folded (audio included): what a flood has put through.
    heard: int = 0
    audio_frames: int = 0
    audio_bytes: int = 0
    agent_turns: int = 0
    # Every turn settled so far, both sides (the deque keeps only the last ``max_turns``).
    settled_total: int = 0
    sent_at: float | None = None
    # The person's turns heard while the agent's turn was still arriving. A typed line does not
    # stop the agent (only speech over it does), so its turn started first and is kept first.
    held: list[Turn] = field(default_factory=list)
    # Every answer time of the call in the order measured (the turns deque may have let some go):
    # one per turn of the person's that was answered, so no server can grow it.
    answered: list[float] = field(default_factory=list)
    # The last MAX_TOOL_CALLS tool calls (sandbox.tool_call); tool_calls_total counts every one.
    tool_calls: deque[ToolCall] = field(default_factory=deque)
    tool_calls_total: int = 0
    # The send the live turn answers, while its first audio frame has not come.
    _answer_from: float | None = field(default=None, repr=False)

    def __post_init__(self) -> None:
        self.turns = deque(self.turns, maxlen=self.max_turns)
        self.tool_calls = deque(self.tool_calls, maxlen=MAX_TOOL_CALLS)

    # --- reading ---

    @property
    def started(self) -> bool:
        return self.started_at is not None

    @property
    def ended(self) -> bool:
        return self.ended_at is not None

    def billed_seconds(self, now: float) -> float:
        """Seconds since ``session.created`` (billing starts there), to the end once ended."""
        if self.started_at is None:
            return 0.0
        return max(0.0, (self.ended_at if self.ended_at is not None else now) - self.started_at)

    def agent_said(self) -> list[Turn]:
        return [t for t in self.turns if t.role == "assistant"]

    @property
    def how_it_ended(self) -> str:
        """The end in words with what to do next; "" while the call goes on."""
        if self.closed is not None:
            return self.closed.in_words
        if self.failure is not None:
            return str(self.failure)
        return "The call ended." if self.ended else ""

    # --- folding ---

    def sent(self, at: float) -> None:
        """The person's turn left at ``at``: the agent's next answer is timed from here."""
        self.sent_at = at

    def apply(self, event: ServerEvent) -> set[str]:
        self.heard += 1
        fold = _FOLDS.get(type(event))
        return fold(self, event) if fold else set()

    def end(self, at: float, failure: errors.ApiError | None = None) -> set[str]:
        """The socket is closed (``failure``: how, when it was not a normal end)."""
        self.failure = failure
        self.ended_at = at
        self.speaking = False
        changed = {STATUS, BILLING, SPEAKING}
        if self.live is not None:
            # What had arrived of the turn stays, marked as cut by the end.
            self.live.cut_off = True
            self._settle(self.live.text, at)
            changed |= {TURNS, LIVE}
        return changed

    def _answer_started(self, at: float) -> Turn:
        if self.live is None:
            self.live = Turn("assistant")
            if self.sent_at is not None:
                # Timed from the first sign for now; its first audio frame, if one comes, times it.
                self.live.answer_ms = max(0.0, (at - self.sent_at) * 1000)
                self._answer_from, self.sent_at = self.sent_at, None
        return self.live

    def _settle(self, text: str, at: float) -> None:
        # An answer may arrive whole, with no delta or agent_start_talking before it: its
        # transcript is then the first sign of it, and is timed (using up the send) as such.
        turn = self._answer_started(at)
        turn.text = _kept(text)
        self._answer_from = None  # no audio came: the first sign's time stands
        if turn.answer_ms is not None:
            self.answered.append(turn.answer_ms)
        self.turns.append(turn)
        self.agent_turns += 1
        self.settled_total += 1 + len(self.held)
        self.turns.extend(self.held)
        self.held = []
        self.live = None

    def _created(self, event: ServerEvent) -> set[str]:
        assert isinstance(event, SessionCreated)
        if self.started_at is not None:
            # The call started once: a second session.created neither restarts the billed clock
            # nor gives the call another id.
            self.created_again += 1
            return {STATUS}
        self.call_id = event.call_id or self.call_id
        self.started_at = event.received_at
        return {BILLING, STATUS}

    def _start(self, event: ServerEvent) -> set[str]:
        self.speaking = True
        self._answer_started(event.received_at)
        return {SPEAKING, LIVE}

    def _stop(self, event: ServerEvent) -> set[str]:
        self.speaking = False
        return {SPEAKING}

    def _delta(self, event: ServerEvent) -> set[str]:
        assert isinstance(event, TranscriptDelta)
        if event.role != "assistant":
            return set()
        self._answer_started(event.received_at).text = _kept(event.text)
        return {LIVE}

    def _transcript(self, event: ServerEvent) -> set[str]:
        assert isinstance(event, Transcript)
        if event.role == "assistant":
            self._settle(event.text, event.received_at)
            return {TURNS, LIVE}
        turn = Turn(event.role, _kept(event.text))
        if self.live is not None:
            self.held.append(turn)
            if len(self.held) <= MAX_HELD:
                return {LIVE}
            # More than a real call holds: the oldest settles now, before the turn still arriving.
            self.turns.append(self.held.pop(0))
            self.settled_total += 1
            return {LIVE, TURNS}
        self.turns.append(turn)
        self.settled_total += 1
        return {TURNS}

    def _interrupted(self, event: ServerEvent) -> set[str]:
        turn = self.live
        if turn is None and self.turns and self.turns[-1].role == "assistant" and self.speaking:
            turn = self.turns[-1]
        if turn is not None and turn.interrupted_at is None:
            turn.interrupted_at = turn.text
        return {LIVE, TURNS}

    def _audio(self, event: ServerEvent) -> set[str]:
        assert isinstance(event, OutputAudioDelta)
        self.audio_frames += 1
        self.audio_bytes += len(event.audio) * 3 // 4
        if self.sent_at is None and self._answer_from is None:
            return {AUDIO}  # the common case (50 a second): no answer waits to be timed
        # Audio with nothing before it after the person's turn is the answer starting.
        turn = self._answer_started(event.received_at)
        if self._answer_from is None:
            return {AUDIO}  # audio of a turn begun before the send: not its answer
        turn.answer_ms = max(0.0, (event.received_at - self._answer_from) * 1000)
        self._answer_from = None
        return {AUDIO, LIVE}

    def _tool(self, event: ServerEvent) -> set[str]:
        assert isinstance(event, ToolCall)
        self.tool_calls.append(event)
        self.tool_calls_total += 1
        return {TOOLS}

    def _closed(self, event: ServerEvent) -> set[str]:
        assert isinstance(event, SessionClosed)
        self.closed = event
        return {STATUS}

    def _error(self, event: ServerEvent) -> set[str]:
        assert isinstance(event, ErrorEvent)
        self.errors_total += 1
        self.errors_seen.append(event)
        if len(self.errors_seen) > MAX_ERRORS:
            del self.errors_seen[0]
        return {STATUS}

    def _unknown(self, event: ServerEvent) -> set[str]:
        if event.type != "?":
            return set()  # a type this client does not know: kept for --json, changes nothing
        assert isinstance(event, UnknownEvent)
        self.malformed += 1
        self.last_malformed = event
        return {STATUS}


_FOLDS: dict[type[ServerEvent], Callable[[Conversation, ServerEvent], set[str]]] = {
    SessionCreated: Conversation._created,
    AgentStartTalking: Conversation._start,
    AgentStopTalking: Conversation._stop,
    TranscriptDelta: Conversation._delta,
    Transcript: Conversation._transcript,
    Interruption: Conversation._interrupted,
    OutputAudioDelta: Conversation._audio,
    SessionClosed: Conversation._closed,
    ErrorEvent: Conversation._error,
    ToolCall: Conversation._tool,
    UnknownEvent: Conversation._unknown,
}
