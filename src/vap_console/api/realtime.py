"""The realtime agent socket (reference voice.md §3), Textual-free: typed events in, messages out.

``VapClient.register_call`` mints the one-use token (``POST /v1/register-call``); ``AgentSocket``
connects to ``ws(s)://<base>/v1/agent/connect?token=…`` (the scheme from the base URL's, as the
vendor's reference clients derive it), yields each server frame as a typed event, and sends typed
turns, audio, commit and the polite hang-up. How a socket closes becomes an error of the client's
one family (``api/errors.py``), in words that say what to do next:

* 4401 before any frame: the token was spent or expired (``TokenRejected``): mint a new one;
* 4000: the call could not start; the ``error`` frame just before it says why, and becomes that
  code's own error (``InsufficientBalance``, ``ConcurrencyLimitExceeded``, …);
* 1011 or any other code without ``session.closed``: the line dropped (``LineDropped``);
* 1009 sent by this client: the server sent a frame over ``MAX_FRAME`` (the call ends, said so);
* 1000 after ``session.closed``: the normal end, no error.

Whatever the server sends, the client stays able to hang up: a frame is never larger than
``MAX_FRAME``, a malformed one (not JSON, nested deeper than ``MAX_DEPTH``, no type) is an
``UnknownEvent`` of type ``"?"`` that says why, and a server that ignores ``session.close`` is
closed by the client itself after ``HANGUP_WAIT`` seconds (``AgentSocket.force_close``).

Nothing here retries: a socket that connects starts a billed call. The API key never goes near the
socket (the token is the credential there), and the token is masked in every repr and message.
"""

from __future__ import annotations

import asyncio
import base64
import binascii
import contextlib
import json
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from datetime import UTC, datetime
from typing import Any, Literal, Protocol
from urllib.parse import quote

from pydantic import BaseModel, ConfigDict, ValidationError

from vap_console.api import errors
from vap_console.api.models.wire import _SnakeWire, _Wire

SAMPLE_RATE = 24_000
SAMPLE_WIDTH = 2
# Published: at most one second of audio per input_audio_buffer.append.
MAX_APPEND_BYTES = SAMPLE_RATE * SAMPLE_WIDTH
CLOSE_NORMAL, CLOSE_REFUSED, CLOSE_BAD_TOKEN = 1000, 4000, 4401
# What a close that the server never sent looks like (the TCP connection just went away).
CLOSE_ABNORMAL = 1006
# What this client closes with when a frame is over MAX_FRAME (RFC 6455 "message too big").
CLOSE_TOO_BIG = 1009
# The largest frame read: a legitimate one is at most a second of audio (~64 KB of base64) or a
# long transcript (reference voice.md §3.2). Without a cap a 300 MB frame took 1.9 GB.
MAX_FRAME = 4 * 2**20
# A server frame is a flat object; deeper nesting than this is malformed (and, unchecked, a
# frame of "[" * 100000 broke the parser, a deep one the --json printer).
MAX_DEPTH = 32
# After session.close, how long to wait for session.closed before closing the socket ourselves
# (the vendor's Node client waits 2 s).
HANGUP_WAIT = 5.0
# Seconds of frames read in a row before the reader lets the rest of its loop run, and for how
# long it then stands aside. A pause of one loop turn (sleep(0)) moved a key one message hop on
# (terminal, app, screen, box, back up to the screen's binding): under a flood Esc took 0.25-0.65 s
# to reach the hang-up and a second to show. Standing aside briefly lets every hop run.
YIELD_EVERY = 0.01
FLOOD_PAUSE = 0.003
# A recv that took longer than this waited for its frame (one already queued takes microseconds).
WAITED = 0.001
CLOSED_REASONS = {
    "client_requested": "You hung up.",
    "ended": "The agent ended the call.",
    "max_duration": "The call reached its longest allowed length and was ended.",
    "error": "The call ended on an error on the service's side.",
}


class RegisteredCall(_SnakeWire):
    """201 of POST /v1/register-call: a one-use token for the agent socket. ``call_id`` is an
    extra some servers add (the sandbox does); the socket's ``session.created`` always has it."""

    access_token: str
    expires_in: int = 300
    sample_rate: int = SAMPLE_RATE
    call_id: str | None = None

    def __repr__(self) -> str:
        # The token starts a billed call: keep it out of logs and tracebacks.
        return (f"RegisteredCall(call_id={self.call_id!r}, expires_in={self.expires_in!r}, "
                f"access_token={mask_token(self.access_token)!r})")

    __str__ = __repr__


class ToolCallSeen(_Wire):
    """One webhook call on a call record's ``toolCalls`` (the sandbox's ``--call-tools``): the
    arguments the agent gave (``args``) and the caller's turn that led to it (``turn``, 1-based;
    None for a before_call tool)."""

    name: str
    kind: str | None = None
    args: dict[str, Any] | None = None
    turn: int | None = None
    status: int | None = None
    error: str | None = None


class CallTools(_Wire):
    """Of GET /v1/calls/{id}, the tools the call used: their names (``toolsCalled``) and each
    webhook call with its arguments and turn (``toolCalls``); both sandbox extensions, None where
    the record does not say. Issue 25's client reads the whole record."""

    id: str
    tools_called: list[str] | None = None
    tool_calls: list[ToolCallSeen] | None = None


def mask_token(token: str) -> str:
    return "…" + token[-4:] if token else ""


# --- server events ---


class ServerEvent(BaseModel):
    """One frame from the server. Fields the published protocol does not list are kept."""

    model_config = ConfigDict(extra="allow", frozen=True)
    type: str
    # When this client read the frame (time.monotonic()); not on the wire.
    received_at: float = 0.0

    def wire(self) -> dict[str, Any]:
        """The frame as it came (less the receive time)."""
        return self.model_dump(exclude={"received_at"}, mode="json")


class SessionCreated(ServerEvent):
    type: Literal["session.created"] = "session.created"
    session_id: str = ""
    call_id: str = ""
    sample_rate: int = SAMPLE_RATE
    channels: int = 1


class OutputAudioDelta(ServerEvent):
    type: Literal["output_audio.delta"] = "output_audio.delta"
    audio: str = ""

    @property
    def pcm(self) -> bytes:
        """The 20 ms of speech as PCM s16le; b"" when the base64 is broken (never fatal)."""
        try:
            return base64.b64decode(self.audio, validate=True)
        except (binascii.Error, ValueError):
            return b""


class AgentStartTalking(ServerEvent):
    type: Literal["agent_start_talking"] = "agent_start_talking"
    timestamp: str | None = None


class AgentStopTalking(ServerEvent):
    type: Literal["agent_stop_talking"] = "agent_stop_talking"
    timestamp: str | None = None


class Interruption(ServerEvent):
    type: Literal["interruption"] = "interruption"


class Transcript(ServerEvent):
    type: Literal["transcript"] = "transcript"
    role: str = "assistant"
    text: str = ""


class TranscriptDelta(ServerEvent):
    type: Literal["transcript.delta"] = "transcript.delta"
    role: str = "assistant"
    text: str = ""


class SessionClosed(ServerEvent):
    type: Literal["session.closed"] = "session.closed"
    reason: str = ""

    @property
    def in_words(self) -> str:
        return CLOSED_REASONS.get(self.reason, f"The call ended ({self.reason or 'no reason given'}).")


class ErrorEvent(ServerEvent):
    type: Literal["error"] = "error"
    code: str = "error"
    message: str = ""


class ToolCall(ServerEvent):
    """``sandbox.tool_call`` (a sandbox extension, ``vap sandbox serve --call-tools``): a tool's
    webhook was called during the call. ``status`` None: no answer came (``error`` says why)."""

    type: Literal["sandbox.tool_call"] = "sandbox.tool_call"
    name: str = ""
    kind: str = ""
    status: int | None = None
    ms: float | None = None
    outputs: dict[str, str] = {}
    error: str | None = None

    def in_words(self) -> str:
        """``book_appointment → 200 in 84 ms``, or ``name ✘ timed out after 3000 ms`` (the error);
        the tool's name and the error are the server's text: the caller shows them literally."""
        took = f" in {self.ms:.0f} ms" if self.ms is not None else ""
        name = self.name or "?"
        if self.error:
            # The sandbox's error starts with the tool's name, already said first here.
            said = self.error.removeprefix(f"{self.name}: ")
            return f"{name} ✘ {said}" + ("" if self.status is None else f" (HTTP {self.status}{took})")
        if self.status is None:
            return f"{name} ✘ no answer{took}"
        mark = "→" if 200 <= self.status < 300 else "✘"
        return f"{name} {mark} {self.status}{took}"


class UnknownEvent(ServerEvent):
    """A frame of a type this client does not know (or that breaks its own type's shape): kept,
    shown in --json, never fatal."""


EVENT_TYPES: dict[str, type[ServerEvent]] = {
    cls.model_fields["type"].default: cls
    for cls in (SessionCreated, OutputAudioDelta, AgentStartTalking, AgentStopTalking, Interruption,
                Transcript, TranscriptDelta, SessionClosed, ErrorEvent, ToolCall)
}


def _too_deep(data: object, limit: int = MAX_DEPTH) -> bool:
    """Whether ``data`` nests lists/objects deeper than ``limit`` (walked without recursion)."""
    stack: list[tuple[object, int]] = [(data, 1)]
    while stack:
        value, depth = stack.pop()
        children = value.values() if isinstance(value, dict) else value if isinstance(value, list) else ()
        for child in children:
            if isinstance(child, (dict, list)):
                if depth + 1 > limit:
                    return True
                stack.append((child, depth + 1))
    return False


def malformed(raw: str | bytes, at: float, problem: str) -> UnknownEvent:
    """A frame this client cannot use: type ``"?"``, why (``problem``), and its start."""
    text = raw[:200] if isinstance(raw, str) else raw[:800].decode("utf-8", "replace")[:200]
    return UnknownEvent(type="?", received_at=at, frame=text, problem=problem)


def parse_event(raw: str | bytes, received_at: float | None = None) -> ServerEvent:
    """The typed event of one text frame. Never raises, whatever the frame's size or depth: one
    that is not a JSON object with a string ``type`` (or nests deeper than ``MAX_DEPTH``) is an
    ``UnknownEvent`` of type ``"?"`` holding what came (cut to 200 chars) and its ``problem``."""
    at = time.monotonic() if received_at is None else received_at
    try:
        data = json.loads(raw)
    except RecursionError:
        return malformed(raw, at, f"nested deeper than {MAX_DEPTH} levels")
    except (ValueError, UnicodeDecodeError):
        return malformed(raw, at, "not JSON")
    if not isinstance(data, dict) or not isinstance(data.get("type"), str):
        return malformed(raw, at, "not a JSON object with a \"type\"")
    # Counting brackets is cheap (and audio frames have none); only a frame with many is walked.
    text = raw if isinstance(raw, str) else raw.decode("utf-8", "replace")
    if text.count("[") + text.count("{") > MAX_DEPTH and _too_deep(data):
        return malformed(raw, at, f"nested deeper than {MAX_DEPTH} levels")
    cls = EVENT_TYPES.get(data["type"], UnknownEvent)
    try:
        return cls.model_validate({**data, "received_at": at})
    except ValidationError:
        try:
            return UnknownEvent.model_validate({**data, "received_at": at})
        except (ValueError, RecursionError):
            return malformed(raw, at, "not a frame this client can read")


# How servers write an agent audio frame: json.dumps's layout and the compact one (JSON.stringify).
AUDIO_LAYOUTS = ('{"type": "output_audio.delta", "audio": "', '{"type":"output_audio.delta","audio":"')


def parse_audio(raw: str, received_at: float) -> tuple[OutputAudioDelta, bytes] | None:
    """An agent audio frame written in one of ``AUDIO_LAYOUTS``: the event ``parse_event`` reads
    from it and its ``pcm``, or None for any other frame (parse_event's to read, as ever).

    Fifty of these a second reach the Talk screen. Read this way, one costs half of what parsing
    it and then decoding its audio did: the base64 is decoded once, strictly, and text that decodes
    strictly holds only base64's letters (no quote, backslash or control character), so it is the
    JSON string's value as it stands and the frame holds nothing else."""
    for layout in AUDIO_LAYOUTS:
        if raw.startswith(layout) and raw.endswith('"}'):
            audio = raw[len(layout):-2]
            try:
                pcm = binascii.a2b_base64(audio, strict_mode=True)
            except (binascii.Error, ValueError):
                return None
            return OutputAudioDelta(audio=audio, received_at=received_at), pcm
    return None


# --- close codes as errors ---


class TokenRejected(errors.ApiError):
    """Close 4401: the token is unknown, already spent (each connects once) or expired (300 s)."""

    code_name = "token_rejected"
    hint = "Mint a new one (a new call) and connect with it at once."

    def default_message(self) -> str:
        return "The call's token was spent or expired"


class LineDropped(errors.TransportError):
    """The socket closed without ``session.closed``: 1011, or the connection just went away."""

    code_name = "line_dropped"
    hint = ("The call has ended; nothing is re-dialled by itself. Start a new call to go on "
            "(it is billed again from the moment the agent answers).")

    def default_message(self) -> str:
        return "The line dropped"


def close_error(code: int | None, last_error: ErrorEvent | None, *, created: bool) -> errors.ApiError:
    """The error for a socket that closed other than after ``session.closed``; its ``close_code``
    attribute is the socket's close code (None: the connection went away without one)."""
    error: errors.ApiError
    if code == CLOSE_BAD_TOKEN:
        error = TokenRejected()
    elif code == CLOSE_REFUSED and last_error is not None:
        cls = errors.error_class_for(400, last_error.code)
        error = cls(f"{last_error.message.rstrip('.') or 'The call could not start'} (socket closed with 4000)",
                    code=last_error.code)
    elif code == CLOSE_REFUSED:
        error = errors.ApiError("The call could not start and the service did not say why (socket closed "
                                "with 4000)", code="call_refused")
    else:
        said = f"socket closed with {code}" if code and code != CLOSE_ABNORMAL else "the connection went away"
        if code == CLOSE_TOO_BIG:
            said = f"the server sent a frame larger than {MAX_FRAME // 2**20} MiB (the console's limit)"
        when = "during the call" if created else "before the call started"
        error = LineDropped(f"The line dropped {when}: {said}")
    error.close_code = code
    return error


# --- the socket ---


class Socket(Protocol):
    """What AgentSocket needs of a websocket connection (websockets' ClientConnection has it)."""

    async def send(self, message: str) -> None: ...

    async def recv(self) -> str | bytes: ...

    async def close(self) -> None: ...


Connector = Callable[[str], Awaitable[Socket]]
# Agent audio handed over as it arrives: the event and its decoded PCM (AgentSocket.events).
AudioCallback = Callable[["OutputAudioDelta", bytes], None]


async def websockets_connect(url: str) -> Socket:
    """The default connector: the websockets library, as the vendor's reference client uses it,
    but with frames capped at ``MAX_FRAME`` (a larger one closes the socket with 1009) and a short
    close handshake (a server that never answers it is cut off after 2 s)."""
    import websockets

    from vap_console.api.realtime_lane import LanedConnection

    try:
        socket: Socket = await websockets.connect(url, max_size=MAX_FRAME, open_timeout=10, close_timeout=2,
                                                  user_agent_header="vap-console", create_connection=LanedConnection)
    except websockets.InvalidStatus as exc:
        status = exc.response.status_code
        raise errors.error_class_for(status, None)(
            f"The agent socket refused the connection (HTTP {status})", status=status) from None
    except (OSError, TimeoutError, websockets.InvalidHandshake) as exc:
        raise errors.ConnectionFailed(f"Could not open the agent socket ({type(exc).__name__})") from None
    return socket


def socket_url(base_url: str, token: str) -> str:
    """``https://host/base`` → ``wss://host/base/v1/agent/connect?token=…`` (``http`` → ``ws``)."""
    base = base_url.rstrip("/")
    if base.startswith("https://"):
        base = "wss://" + base.removeprefix("https://")
    elif base.startswith("http://"):
        base = "ws://" + base.removeprefix("http://")
    else:
        raise ValueError("base_url must be an http:// or https:// address")
    return f"{base}/v1/agent/connect?token={quote(token, safe='')}"


class AgentSocket:
    """One call over the agent socket. ``async with AgentSocket(url) as call:`` connects; ``async for
    event in call.events():`` reads until the socket closes, then raises the close's error if the
    call did not end normally (``ending`` says how it ended either way)."""

    def __init__(self, url: str, *, connect: Connector = websockets_connect,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self._url = url
        self._connect = connect
        # What each frame's ``received_at`` is read from (monotonic seconds). Answer times are
        # differences on it, so whoever stamps the person's turn as sent reads the same clock.
        self.clock = clock
        self._socket: Socket | None = None
        self.created: SessionCreated | None = None
        self.closed_event: SessionClosed | None = None
        self.last_error: ErrorEvent | None = None
        self.close_code: int | None = None
        self.failure: errors.ApiError | None = None
        self.hangup_sent = False
        # Closed by this client after the server ignored the hang-up (force_close).
        self.forced = False

    def __repr__(self) -> str:
        where, _, token = self._url.partition("?token=")
        return f"AgentSocket(url={where + '?token=' + mask_token(token)!r}, close_code={self.close_code!r})"

    __str__ = __repr__

    @property
    def call_id(self) -> str | None:
        return self.created.call_id if self.created else None

    @property
    def is_open(self) -> bool:
        return self._socket is not None and self.close_code is None

    async def __aenter__(self) -> AgentSocket:
        await self.open()
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.aclose()

    async def open(self) -> None:
        self._socket = await self._connect(self._url)

    async def aclose(self) -> None:
        if self._socket is not None:
            # Closing a socket that already broke has nothing left to do.
            with contextlib.suppress(Exception):
                await self._socket.close()

    def force_close(self) -> None:
        """End the call from this side now, without waiting on the server (one that ignored
        ``session.close``): the connection is dropped and ``events()`` ends without an error."""
        self.forced = True
        transport = getattr(self._socket, "transport", None)
        if transport is not None:
            transport.abort()

    async def events(self, on_audio: AudioCallback | None = None) -> AsyncIterator[ServerEvent]:
        """Each frame as a typed event; binary frames are skipped (the published clients ignore
        them). Ends when the socket closes: normally after ``session.closed``; otherwise by raising
        the close's error (also kept in ``failure``).

        With ``on_audio``, agent audio may instead be handed to it as it arrives, in frame order,
        with its decoded ``pcm`` (``realtime_lane``: the default connector's sockets); audio it is
        not handed is yielded as ever, so a caller handles ``OutputAudioDelta`` both ways."""
        if self._socket is None:
            raise RuntimeError("open() the socket first")
        import websockets

        # The default connector's sockets have the lane (realtime_lane.LanedConnection); others not.
        lane: Any = self._socket if on_audio is not None and hasattr(self._socket, "audio_sink") else None
        if lane is not None and on_audio is not None:
            lane.audio_sink = self._audio_sink(on_audio)
        yielded = time.monotonic()
        try:
            while True:
                asked = time.monotonic()
                raw = await self._socket.recv()
                got = time.monotonic()
                if got - asked > WAITED:
                    # recv waited for this frame, so the loop ran meanwhile: no pause is owed. (At
                    # 50 frames a second, one a pause was a second wake of this task per frame.)
                    yielded = got
                if isinstance(raw, bytes):
                    continue
                event = parse_event(raw, self.clock())
                if isinstance(event, SessionCreated):
                    # The first one starts the call; a second on the same socket changes nothing.
                    self.created = self.created or event
                elif isinstance(event, SessionClosed):
                    self.closed_event = event
                elif isinstance(event, ErrorEvent):
                    self.last_error = event
                yield event
                # Frames already queued are handed over without a pause: every few milliseconds
                # let the loop run, so a flood cannot keep a key (Esc's hang-up) from being handled.
                if time.monotonic() - yielded > YIELD_EVERY:
                    await asyncio.sleep(FLOOD_PAUSE)
                    yielded = time.monotonic()
        except websockets.ConnectionClosed as closed:
            if closed.sent is not None and closed.sent.code == CLOSE_TOO_BIG:
                self.close_code = CLOSE_TOO_BIG  # this client closed it: a frame over MAX_FRAME
            else:
                self.close_code = closed.rcvd.code if closed.rcvd else CLOSE_ABNORMAL
        except (OSError, asyncio.IncompleteReadError):
            self.close_code = CLOSE_ABNORMAL
        finally:
            if lane is not None:
                lane.audio_sink = None
        if self.forced:
            return  # closed by this client after an unanswered hang-up: the end the person asked for
        if self.closed_event is not None and self.close_code in (CLOSE_NORMAL, CLOSE_ABNORMAL, None):
            return
        self.failure = close_error(self.close_code, self.last_error, created=self.created is not None)
        raise self.failure

    def _audio_sink(self, on_audio: AudioCallback) -> Callable[[bytes], bool]:
        def sink(data: bytes) -> bool:
            try:
                raw = data.decode()
            except UnicodeDecodeError:
                return False  # the reader's way: websockets closes the socket as for any bad UTF-8
            at = self.clock()
            read = parse_audio(raw, at)
            if read is None:
                event = parse_event(raw, at)
                if type(event) is not OutputAudioDelta:
                    return False  # audio by its first bytes only: the reader reports what it is
                read = event, event.pcm
            on_audio(*read)
            return True

        return sink

    # --- messages to the server ---

    async def _send(self, message: dict[str, Any]) -> None:
        if self._socket is None or self.close_code is not None:
            raise LineDropped("The call has ended: nothing more can be sent")
        import websockets

        try:
            await self._socket.send(json.dumps(message))
        except websockets.ConnectionClosed:
            raise LineDropped("The call ended before this could be sent") from None

    async def send_text(self, text: str) -> None:
        """``input_text.send``: a turn typed instead of spoken."""
        await self._send({"type": "input_text.send", "text": text})

    async def send_audio(self, pcm: bytes) -> None:
        """``input_audio_buffer.append``, in pieces of at most one second (48,000 bytes)."""
        if len(pcm) % SAMPLE_WIDTH:
            raise ValueError("PCM s16le audio has an even number of bytes")
        for start in range(0, len(pcm), MAX_APPEND_BYTES):
            piece = pcm[start:start + MAX_APPEND_BYTES]
            await self._send({"type": "input_audio_buffer.append", "audio": base64.b64encode(piece).decode()})

    async def commit(self) -> None:
        await self._send({"type": "input_audio_buffer.commit"})

    async def hang_up(self) -> None:
        """``session.close``: the server answers ``session.closed`` and closes. Once per call; a
        socket already closed has nothing to hang up."""
        if self.hangup_sent or not self.is_open:
            return
        self.hangup_sent = True
        with contextlib.suppress(LineDropped):
            await self._send({"type": "session.close"})


def now_iso() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds")
