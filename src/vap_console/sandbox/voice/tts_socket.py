"""The streaming twin of /v1/tts: ``POST /v1/tts/ws-connect`` mints a token, and the socket at its
``ws_url?token=…`` speaks one synthesis frame after another (reference/voice.md §5).

Client → server, JSON text frames: a synthesis frame ``{"text", "speaker", "description",
"f0_up_key", …}`` (the rules of /v1/tts; the model was chosen at mint), ``{"type": "cancel"}``
(drops the utterance being spoken and every one queued, answered with ``{"type": "cancelled"}``)
and ``{"type": "close"}`` (the server closes with 1000).

Server → client: ``{"type": "queued", "queue_depth": n}`` for each synthesis frame taken (n
utterances are ahead of it), then the utterance's audio as binary frames of raw PCM s16le 24 kHz
mono, made a sentence at a time (the first frame comes after one sentence's work), then
``{"type": "done", "audio_duration": s, "rtf": r}``; ``{"type": "error", "message"}`` for a frame
that breaks a rule (the socket stays open); ``{"type": "timeout", "message"}`` and a 1000 close
after ``idle_seconds`` with nothing asked and nothing being spoken.

Sandbox choices (docs/sandbox-voice.md "Speech synthesis"): one utterance in flight at a time,
the rest queued in order; the socket holds one of the account's concurrent slots while it is
open; each utterance is charged when its ``done`` is sent (a cancelled one is not); a token is
good once, for ``TOKEN_SECONDS`` of the sandbox clock; an unknown, spent or expired token gets an
``error`` frame and close code 4001, and a connection with every slot taken one ``error`` frame
and 4029 (the vendor publishes no close codes for this socket). Audio is sent in 100 ms frames,
``pace`` seconds of wall time per second of audio (0.25: four times faster than it plays, like a
fast cloud engine), and the idle timeout is in real seconds, like the per-minute budget.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
import time
from collections import deque
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.types import Message
from starlette.websockets import WebSocket, WebSocketDisconnect

from vap_console.sandbox.problems import FieldProblems, Problem, json_object
from vap_console.sandbox.state import Account, SandboxState
from vap_console.sandbox.voice import speech
from vap_console.sandbox.voice.tts import (
    Synthesis,
    admit,
    charge,
    check_funds,
    check_model,
    check_slot,
    check_synthesis,
    check_text,
    holding_slot,
)
from vap_console.sandbox.wire import account_of, read_json, sandbox_of

TOKEN_SECONDS = 300
CLOSE_NORMAL = 1000
CLOSE_UNAUTHORIZED = 4001  # sandbox choice: token unknown, spent or expired
CLOSE_NO_SLOT = 4029  # sandbox choice: every concurrent slot is taken


@dataclass
class SocketSettings:
    """How the sandbox's speech sockets behave; tests change them on ``app.state.speech_sockets``."""

    idle_seconds: float = 20.0
    pace: float = 0.25  # wall seconds per second of audio sent; 0 sends as fast as it can
    frame_bytes: int = speech.SAMPLE_RATE * speech.SAMPLE_WIDTH // 10  # 100 ms


@dataclass
class Minted:
    request_id: str
    token: str
    account: Account
    model: str
    expires_at: datetime


@dataclass
class SpeechSockets:
    """The tokens minted and not yet spent, and the sockets' settings: ``app.state.speech_sockets``."""

    settings: SocketSettings = field(default_factory=SocketSettings)
    minted: dict[str, Minted] = field(default_factory=dict)

    def mint(self, account: Account, model: str, now: datetime) -> Minted:
        request_id = account.next_id("tts-stream").replace("-", "")
        token = "tts_" + hashlib.sha256(f"{request_id}:token".encode()).hexdigest()[:32]
        minted = Minted(request_id, token, account, model, now + timedelta(seconds=TOKEN_SECONDS))
        self.minted[token] = minted
        return minted

    def spend(self, token: str, request_id: str, now: datetime) -> Minted | None:
        """The session ``token`` opens (once), or None if it is unknown, spent, expired or another path's."""
        for stale in [t for t, m in self.minted.items() if m.expires_at <= now]:
            del self.minted[stale]
        minted = self.minted.get(token)
        if minted is None or minted.request_id != request_id:
            return None
        del self.minted[token]
        return minted


def sockets_of(app: Starlette) -> SpeechSockets:
    sockets: SpeechSockets = app.state.speech_sockets
    return sockets


async def connect_speech_stream(request: Request) -> Response:
    """``POST /v1/tts/ws-connect {model, text}``: 200 ``{ws_url, token, request_id}``. The text is
    only checked for presence and length: the vendor's own client mints with ``"init"`` whatever
    the model, and sends the real text in the socket's synthesis frames. No slot is taken until
    the socket connects, but a full account is told now (429)."""
    account = account_of(request)
    admit(account)
    body = await read_json(request)
    body = json_object(body)
    problems = FieldProblems()
    model = check_model(body.get("model"), problems)
    check_text(body.get("text"), problems)
    problems.raise_if_any()
    now = sandbox_of(request).now()
    check_slot(account, now)
    minted = sockets_of(request.app).mint(account, model, now)
    scheme = "wss" if request.url.scheme == "https" else "ws"
    return JSONResponse({
        "ws_url": f"{scheme}://{request.url.netloc}/v1/tts/ws/{minted.request_id}",
        "token": minted.token,
        "request_id": minted.request_id,
    })


async def speech_socket(websocket: WebSocket) -> None:
    """The socket at ``/v1/tts/ws/{request_id}?token=…``."""
    sandbox: SandboxState = websocket.app.state.sandbox
    sockets = sockets_of(websocket.app)
    await websocket.accept()
    minted = sockets.spend(websocket.query_params.get("token", ""), websocket.path_params["request_id"],
                           sandbox.now())
    if minted is None:
        await _refuse(websocket, "The token is unknown, already used or expired: mint a new one with "
                                 "POST /v1/tts/ws-connect.", CLOSE_UNAUTHORIZED)
        return
    try:
        check_slot(minted.account, sandbox.now())
    except Problem as problem:
        await _refuse(websocket, problem.message, CLOSE_NO_SLOT)
        return
    with holding_slot(minted.account, sandbox.now(), "tts-stream"):
        await _Stream(websocket, minted, sockets.settings, sandbox).run()


async def _refuse(websocket: WebSocket, message: str, code: int) -> None:
    with contextlib.suppress(WebSocketDisconnect, RuntimeError):
        await websocket.send_json({"type": "error", "message": message})
        await websocket.close(code)


_FINISHED = {"type": "sandbox.finished"}
# What sending to a client that has gone raises (Starlette, or uvicorn beneath it).
_GONE = (WebSocketDisconnect, RuntimeError, OSError)  # the worker's note to the loop: an utterance is over


class _Stream:
    """One connected socket: a loop reading the client's frames, one worker speaking at a time."""

    def __init__(self, websocket: WebSocket, minted: Minted, settings: SocketSettings, sandbox: SandboxState) -> None:
        self.websocket = websocket
        self.minted = minted
        self.settings = settings
        self.sandbox = sandbox
        self.inbox: asyncio.Queue[Message] = asyncio.Queue()
        self.queue: deque[Synthesis] = deque()
        self.speaking: asyncio.Task[None] | None = None
        self.send_lock = asyncio.Lock()

    async def run(self) -> None:
        reader = asyncio.create_task(self._read())
        try:
            await self._serve()
        finally:
            reader.cancel()
            await self._stop_speaking()
            with contextlib.suppress(asyncio.CancelledError):
                await reader

    async def _read(self) -> None:
        while True:
            message = await self.websocket.receive()
            await self.inbox.put(message)
            if message["type"] == "websocket.disconnect":
                return

    async def _serve(self) -> None:
        while True:
            idle = self.speaking is None and not self.queue
            try:
                message = await asyncio.wait_for(self.inbox.get(), self.settings.idle_seconds if idle else None)
            except TimeoutError:
                await self._send({"type": "timeout", "message": f"Nothing was asked for {self.settings.idle_seconds:g} "
                                                                "seconds; the socket closes."})
                await self._close()
                return
            if message is _FINISHED:
                self.speaking = None
                self._next()
                continue
            if message["type"] == "websocket.disconnect":
                return
            frame = await self._frame(message)
            if frame is None:
                continue
            kind = frame.get("type")
            if kind == "close":
                await self._stop_speaking()
                await self._close()
                return
            if kind == "cancel":
                await self._stop_speaking()
                self.queue.clear()
                await self._send({"type": "cancelled"})
                continue
            if kind is not None:
                await self._send({"type": "error", "message": f"Unknown frame type {str(kind)[:40]!r}: send a "
                                                              "synthesis frame, cancel or close."})
                continue
            await self._take(frame)

    async def _frame(self, message: Message) -> dict[str, Any] | None:
        text = message.get("text")
        if text is None:
            await self._send({"type": "error", "message": "Send JSON text frames; binary frames are not read."})
            return None
        try:
            frame = json.loads(text)
        except ValueError:
            frame = None
        if not isinstance(frame, dict):
            await self._send({"type": "error", "message": "A frame must be a JSON object."})
            return None
        return frame

    async def _take(self, frame: dict[str, Any]) -> None:
        try:
            synthesis = check_synthesis(frame, model=self.minted.model)
            check_funds(self.minted.account, synthesis, self.sandbox.now())
        except Problem as problem:
            await self._send({"type": "error", "message": _sentence(problem)})
            return
        ahead = len(self.queue) + (self.speaking is not None)
        self.queue.append(synthesis)
        await self._send({"type": "queued", "queue_depth": ahead})
        if self.speaking is None:
            self._next()

    def _next(self) -> None:
        if self.queue and self.speaking is None:
            self.speaking = asyncio.create_task(self._speak(self.queue.popleft()))

    async def _speak(self, synthesis: Synthesis) -> None:
        cancelled = False
        try:
            # the client may go away mid-utterance: the reader reports the disconnect
            with contextlib.suppress(*_GONE):
                await self._stream(synthesis)
        except asyncio.CancelledError:
            cancelled = True  # a cancel or close already took the utterance off
            raise
        finally:
            # however else it ended, the loop must hear of it, or it would never time out
            if not cancelled:
                self.inbox.put_nowait(_FINISHED)

    async def _stream(self, synthesis: Synthesis) -> None:
        started = time.monotonic()
        size = self.settings.frame_bytes
        seconds_per_frame = size / (speech.SAMPLE_RATE * speech.SAMPLE_WIDTH)
        sent, pending = 0, b""
        sentences = speech.synthesize_stream(synthesis.text, voice=synthesis.voice, f0_up_key=synthesis.f0_up_key,
                                             max_seconds=synthesis.max_seconds)
        async for pcm in sentences:
            pending += pcm
            while len(pending) >= size:
                await self._send_frame(pending[:size], started, sent, seconds_per_frame)
                pending, sent = pending[size:], sent + 1
        if pending:
            await self._send_frame(pending, started, sent, seconds_per_frame)
        audio = (sent * size + len(pending)) / (speech.SAMPLE_RATE * speech.SAMPLE_WIDTH)
        elapsed = time.monotonic() - started
        charge(self.minted.account, synthesis, self.sandbox.now())
        await self._send({"type": "done", "audio_duration": round(audio, 3),
                          "rtf": round(elapsed / audio, 3) if audio else 0.0})

    async def _send_frame(self, data: bytes, started: float, index: int, seconds_per_frame: float) -> None:
        if self.settings.pace:
            # Each frame is due at its own instant, so a late wake-up does not slow the rest.
            due = started + index * seconds_per_frame * self.settings.pace
            await asyncio.sleep(max(0.0, due - time.monotonic()))
        await self._send_bytes(data)

    async def _stop_speaking(self) -> None:
        task, self.speaking = self.speaking, None
        if task is not None:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError, *_GONE):
                await task
            # A _FINISHED it put before being cancelled belongs to no utterance now.
            self._drop_finished()

    def _drop_finished(self) -> None:
        kept = [m for m in _drain(self.inbox) if m is not _FINISHED]
        for message in kept:
            self.inbox.put_nowait(message)

    async def _send(self, frame: dict[str, Any]) -> None:
        async with self.send_lock:
            await self.websocket.send_text(json.dumps(frame))

    async def _send_bytes(self, data: bytes) -> None:
        async with self.send_lock:
            await self.websocket.send_bytes(data)

    async def _close(self) -> None:
        async with self.send_lock:
            with contextlib.suppress(RuntimeError):
                await self.websocket.close(CLOSE_NORMAL)


def _drain(queue: asyncio.Queue[Message]) -> list[Message]:
    out = []
    while not queue.empty():
        out.append(queue.get_nowait())
    return out


def _sentence(problem: Problem) -> str:
    """A problem as one line for an error frame: the 422's fields by name, without ``body.``."""
    if not problem.details:
        return problem.message
    return "; ".join(f"{d['loc'].removeprefix('body.')} {d['message']}" for d in problem.details)
