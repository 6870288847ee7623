"""``GET /v1/agent/connect?token=wct_…``: the realtime agent socket, as published (voice.md §3).

One session per token. JSON text frames both ways; audio is base64 PCM s16le, 24 kHz, mono. The
server's side of a call runs as three tasks that end together: the reader (the caller's frames),
the speaker (the agent's turns, paced in 20 ms frames on the sandbox clock) and the timer (the
per-minute charge, ``max_duration`` and the socket faults). Sandbox choices the vendor does not
publish (the price, the voice threshold, the error codes of malformed frames) are in
docs/sandbox-voice.md.
"""

from __future__ import annotations

import asyncio
import base64
import binascii
import contextlib
import functools
import json
import logging
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any

from starlette.websockets import WebSocket, WebSocketDisconnect

from vap_console.sandbox.calls import active_calls
from vap_console.sandbox.clock import iso
from vap_console.sandbox.hostile_text import hostile_frame
from vap_console.sandbox.records import Account, LedgerEntry
from vap_console.sandbox.voice import speech
from vap_console.sandbox.voice.agent_brain import Reply, SandboxAgent
from vap_console.sandbox.voice.call_records import (
    CALLING,
    COMPLETED,
    FAILED,
    IN_PROGRESS,
    NANOS_PER_CREDIT,
    PRICE_CREDITS_PER_MINUTE,
    CallRecord,
)
from vap_console.sandbox.voice.recordings import voice_of
from vap_console.sandbox.voice.register import AgentSockets, Grant, sockets_of
from vap_console.sandbox.voice.socket_audio import Recording, Turns, loud

if TYPE_CHECKING:  # imported when a call starts with --call-tools: it brings the webhook sender
    from vap_console.sandbox.voice.tool_calls import ToolCalling

_log = logging.getLogger("uvicorn.error")
MAX_DURATION_SECONDS = 120
# Every call's sandbox price (call_records.py), charged here as each minute starts.
PRICE_NANOS_PER_MINUTE = PRICE_CREDITS_PER_MINUTE * NANOS_PER_CREDIT
MAX_APPEND_BYTES = speech.SAMPLE_RATE * speech.SAMPLE_WIDTH  # 1 s
TEXT_MAX = 2000
FRAME = timedelta(milliseconds=speech.FRAME_MS)
# The call record's end_reason where it differs from session.closed's reason (or there is none).
_END_REASONS = {"dropped": "socket_dropped", "disconnected": "participant_disconnected"}
CLOSE_NORMAL, CLOSE_DROPPED, CLOSE_REFUSED, CLOSE_BAD_TOKEN = 1000, 1011, 4000, 4401


@functools.lru_cache(maxsize=64)
def _speech(text: str, voice: str) -> bytes:
    # The same text in the same voice gives the same bytes: a greeting every call opens with is made once.
    return speech.synthesize(text, voice=voice)


async def connect(websocket: WebSocket) -> None:
    sockets = sockets_of(websocket.app)
    # Accepted first: the published client reads 4401 as a close code, which a refused handshake is not.
    await websocket.accept()
    grant = sockets.spend(websocket.query_params.get("token"))
    if grant is None:
        await websocket.close(CLOSE_BAD_TOKEN, "token unknown, already spent or expired: mint a new one")
        return
    account = sockets.state.accounts[grant.key]
    await Session(websocket, sockets, account, grant).run()


class Session:
    """One call on the socket, from its first frame to its close."""

    def __init__(self, websocket: WebSocket, sockets: AgentSockets, account: Account, grant: Grant) -> None:
        self.ws = websocket
        self.sockets = sockets
        self.pacer = sockets.pacer
        self.faults = sockets.faults
        self.account = account
        self.grant = grant
        self.call_id = grant.call_id
        self.speaker_label = f"speaker:{grant.call_id}"
        self.timer_label = f"timer:{grant.call_id}"
        now = self.pacer.now()
        self.started = now
        self.record = CallRecord(id=grant.call_id, agent_id=grant.agent_id, kind="socket", status=CALLING,
                                 created_at=now)
        account.calls[grant.call_id] = self.record
        self.mix = Recording(self.record.audio)
        self.turns = Turns()
        self.heard: asyncio.Queue[str] = asyncio.Queue()
        self.lock = asyncio.Lock()
        self.ended: asyncio.Future[str] | None = None
        self.policy: ToolCalling | None = None  # --call-tools, read when the call starts
        self.minutes = 0
        self.caller_end = 0
        # The agent's turn under way: its number, whether the caller cut in, the words said so far.
        self.turn = 0
        self.talking = False
        self.interrupted = False
        self.said = ""
        # Where the agent's turn under way goes in the record's transcript: turns are kept in the
        # order they were begun, so a line typed during the greeting follows the greeting.
        self.turn_at = 0
        self.stalled = False
        # The instant of the frame the speaker is at; None while it waits for the caller.
        self.speaker_at: datetime | None = None
        # Per-agent settings (sandbox/agent_pace.py): how long each turn waits, what a minute costs.
        self.delay = timedelta(0)
        self.price = float(PRICE_CREDITS_PER_MINUTE)
        drop = self.faults.socket_drop_after
        self.longest = self.faults.call_max_s if self.faults.call_max_s is not None else MAX_DURATION_SECONDS
        self.cutoff = now + timedelta(seconds=min(self.longest, drop if drop is not None else 1e9))
        stall = self.faults.socket_stall_after
        stall_for = self.faults.socket_stall_for
        self.stall_from = now + timedelta(seconds=stall) if stall is not None else None
        self.stall_until = (self.stall_from + timedelta(seconds=stall_for)
                            if self.stall_from is not None and stall_for is not None else self.cutoff)

    # -- start and end ------------------------------------------------------------------------

    def _refusal(self) -> tuple[str, str] | None:
        """Why the call cannot start (the ``error`` frame's code and message), else None."""
        if self.faults.socket_start_error:
            return self.faults.socket_start_error, "Injected fault: the call could not start (--faults)."
        key = self.account.key
        if not key.voice_agents:
            return "not_configured", "Voice agents are not available on this deployment."
        agent = self.account.agents.get(self.grant.agent_id)
        if agent is None or not agent.deployed:
            return "agent_start_failed", "The agent was deleted or withdrawn after the token was minted."
        if not key.call_balance or self.account.balance(self.started) < PRICE_NANOS_PER_MINUTE:
            return "insufficient_balance", "The account's balance cannot cover a call; top it up first."
        active = active_calls(self.account, self.started)
        if active >= key.call_slots:
            return "concurrency_limit_exceeded", f"All {key.call_slots} concurrent-call slots are in use."
        if key.start_fails_first and agent.id not in self.account.failed_starts:
            self.account.failed_starts.add(agent.id)
            return "agent_start_failed", f"{agent.name} could not be started; safe to retry."
        return None

    async def run(self) -> None:
        refusal = self._refusal()
        if refusal is not None:
            code, message = refusal
            self.record.status, self.record.ended_at, self.record.end_reason = FAILED, self.started, code
            await self._send({"type": "error", "code": code, "message": message})
            with contextlib.suppress(WebSocketDisconnect, OSError, RuntimeError):
                await self.ws.close(CLOSE_REFUSED, code)
            return
        agent = self.account.agents[self.grant.agent_id]
        self.delay = timedelta(milliseconds=self.faults.agents.delay_for(agent.id, agent.handle))
        self.price = self.faults.agents.price_for(agent.id, agent.handle, self.price)
        self.voice = voice_of(self.account, agent.id)  # as its outbound calls' recordings speak
        # The slot is taken and the first minute charged in the same step as the check above.
        self.record.status, self.record.started_at = IN_PROGRESS, self.started
        self._charge()
        self.ended = asyncio.get_running_loop().create_future()
        session_id = "sess_" + self.call_id.replace("-", "")[:24]
        await self._send({"type": "session.created", "session_id": session_id, "call_id": self.call_id,
                          "sample_rate": speech.SAMPLE_RATE, "channels": speech.CHANNELS})
        # After the slot is taken (no await between the check and the charge above): the start of
        # the call, before its greeting, is when the platform runs the before_call tools.
        tool_values = None
        self.policy = policy = getattr(self.ws.app.state, "call_tools", None)
        if policy is not None:  # --call-tools: the account's before_call webhooks, for real
            from vap_console.sandbox.voice.tool_calls import before_call

            tool_values, entries = await before_call(self.account, agent, self.call_id, policy)
            for entry in entries:
                await self._tool_called(entry)
        self.brain = SandboxAgent(self.account, agent, self.call_id, tool_values)
        tasks = [asyncio.create_task(job()) for job in (self._read, self._speak, self._time)]
        for task in tasks:
            task.add_done_callback(self._crashed)
        try:
            reason = await self.ended
        finally:
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
        await self._finish(reason)

    def _crashed(self, task: asyncio.Task[None]) -> None:
        if not task.cancelled() and (error := task.exception()) is not None:
            # A sandbox bug: said in `vap sandbox serve`'s log (embedded, its loggers go nowhere).
            _log.error("agent socket call %s failed", self.call_id, exc_info=error)
            self._end("error")

    def _end(self, reason: str) -> None:
        if self.ended is not None and not self.ended.done():
            self.ended.set_result(reason)

    async def _finish(self, reason: str) -> None:
        record = self.record
        record.ended_at = min(self.pacer.now(), self.cutoff)  # a test's big advance overshoots the end
        if self.talking and self.said:
            record.transcript.insert(self.turn_at, {"role": "assistant", "content": self.said})
        failed = reason in ("dropped", "error")
        record.status = FAILED if failed else COMPLETED
        record.end_reason = _END_REASONS.get(reason, reason)
        with contextlib.suppress(WebSocketDisconnect, OSError, RuntimeError):
            if reason == "dropped":
                await self.ws.close(CLOSE_DROPPED, "Injected fault: the socket dropped (--faults).")
            elif reason != "disconnected":
                await self._send({"type": "session.closed", "reason": reason}, last=True)
                await self.ws.close(CLOSE_NORMAL)

    def _charge(self) -> None:
        self.minutes += 1
        at = self.started + timedelta(minutes=self.minutes - 1)
        self.account.ledger.append(LedgerEntry(at, -round(self.price * NANOS_PER_CREDIT),
                                               f"socket call {self.call_id}: minute {self.minutes}"))
        self.record.credits_charged = float(self.minutes * self.price)

    async def _send(self, event: dict[str, Any], *, turn: int | None = None, caller: bool = False,
                    last: bool = False) -> None:
        """One frame, whole. ``turn``: dropped once that agent turn is cut off; ``caller``: an
        answer to the caller's frame, dropped while the stream is stalled. Once the call has ended
        only its ``last`` frame goes."""
        async with self.lock:
            if self.ended is not None and self.ended.done() and not last:
                return
            if turn is not None and (turn != self.turn or self.interrupted):
                return
            if caller and self.stalled:
                return
            # A frame the client has gone away from is lost; the reader ends the call, having read
            # first what the client sent before it went (a session.close, so client_requested).
            if self.faults.hostile_text:
                event = hostile_frame(event)
            with contextlib.suppress(WebSocketDisconnect, OSError, RuntimeError):
                await self.ws.send_text(json.dumps(event, separators=(",", ":"), ensure_ascii=False))

    def _offset(self, at: datetime) -> int:
        # In whole microseconds: a float of seconds puts a frame at 0.58 s one sample early.
        micros = (at - self.started) // timedelta(microseconds=1)
        return micros * speech.SAMPLE_RATE // 1_000_000 * speech.SAMPLE_WIDTH

    # -- the caller's frames ----------------------------------------------------------------

    async def _error(self, code: str, message: str) -> None:
        await self._send({"type": "error", "code": code, "message": message}, caller=True)

    async def _read(self) -> None:
        while True:
            message = await self.ws.receive()
            if message["type"] == "websocket.disconnect":
                self._end("disconnected")
                return
            raw = message.get("text")
            if raw is None:
                await self._error("invalid_frame", "Send JSON text frames; binary frames are not read.")
                continue
            try:
                event = json.loads(raw)
            except (ValueError, RecursionError):  # nesting deeper than the parser goes is not JSON here
                await self._error("invalid_frame", "The frame is not JSON.")
                continue
            kind = event.get("type") if isinstance(event, dict) else None
            if kind == "input_audio_buffer.append":
                await self._append(event.get("audio"))
            elif kind == "input_text.send":
                await self._typed(event.get("text"))
            elif kind == "input_audio_buffer.commit":
                pass  # accepted for compatibility: the server's voice detection decides turns
            elif kind == "session.close":
                self._end("client_requested")
                return
            elif isinstance(kind, str):
                await self._error("unknown_type", f"Unknown message type {kind[:80]!r}.")
            else:
                await self._error("invalid_frame", "A frame is a JSON object with a string type.")

    async def _append(self, audio: Any) -> None:
        if not isinstance(audio, str):
            await self._error("invalid_audio", "audio must be base64 text of PCM s16le, 24 kHz, mono.")
            return
        try:
            pcm = base64.b64decode(audio, validate=True)
        except (binascii.Error, ValueError):
            await self._error("invalid_audio", "audio is not valid base64.")
            return
        if len(pcm) % 2:
            await self._error("invalid_audio", f"audio has {len(pcm)} bytes: 16-bit samples make an even count.")
            return
        if len(pcm) > MAX_APPEND_BYTES:
            await self._error("invalid_audio",
                              f"audio has {len(pcm)} bytes: at most {MAX_APPEND_BYTES} (1 s) per append.")
            return
        offset = max(self.caller_end, self._offset(self.pacer.now()))
        self.mix.add(offset, pcm)
        self.caller_end = offset + len(pcm)
        for start in range(0, len(pcm), speech.FRAME_BYTES):
            window = pcm[start:start + speech.FRAME_BYTES]
            voiced = loud(window)
            if voiced and self.talking and not self.interrupted and not self.stalled:
                self.interrupted = True
                await self._send({"type": "interruption"})
                self.pacer.wake(self.speaker_label)
            seconds = self.turns.feed(voiced, len(window) // speech.SAMPLE_WIDTH)
            if seconds is not None:
                await self._heard(f"(speech, {seconds:.1f} s)")

    async def _typed(self, text: Any) -> None:
        if not isinstance(text, str) or not text.strip():
            await self._error("invalid_text", "text must be a non-empty string.")
            return
        if len(text) > TEXT_MAX:
            await self._error("invalid_text", f"text has {len(text)} characters: at most {TEXT_MAX}.")
            return
        await self._heard(text)

    async def _heard(self, text: str) -> None:
        self.record.transcript.append({"role": "user", "content": text})
        await self._send({"type": "transcript", "role": "user", "text": text}, caller=True)
        self.heard.put_nowait(text)

    # -- the agent's turns ------------------------------------------------------------------

    async def _speak(self) -> None:
        await self._say(self.brain.greeting())
        answering = 0  # the caller's turn being answered, 1-based (a tool call's record says which)
        while True:
            self.speaker_at = None
            heard = await self.heard.get()
            answering += 1
            reply = self.brain.answer(heard)
            self.record.tools_called.extend(reply.tools)
            if self.policy is not None and reply.tools:
                reply = await self._call_tools(reply, heard, answering)
            await self._say(reply.text)
            if reply.ends_call:
                self._end("ended")
                return

    async def _call_tools(self, reply: Reply, heard: str, turn: int) -> Reply:
        """--call-tools: the during_call tools a turn named, called for real (built-in ones are the
        platform's own actions, never a webhook); the answer says what they returned."""
        from vap_console.sandbox.voice.tool_calls import answer_after, during_call

        for name in reply.tools:
            record = next((t for t in self.account.tools.values() if t.name == name and not t.is_default), None)
            if record is None or self.policy is None:
                continue
            context = {"call_id": self.call_id, "agent_id": self.brain.agent.id, "phone_number": ""}
            outcome = await during_call(record, heard, self.brain.values, context, self.policy, turn)
            await self._tool_called(outcome.entry)
            self.brain.values.update(outcome.outputs)
            reply = Reply(answer_after(name.replace("_", " "), outcome), reply.tools, reply.ends_call)
        return reply

    async def _tool_called(self, entry: dict[str, Any]) -> None:
        """A tool call kept on the record and told on the socket (the sandbox.tool_call extension)."""
        self.record.tool_calls.append(entry)
        await self._send({"type": "sandbox.tool_call",
                          **{k: entry[k] for k in ("name", "kind", "status", "ms", "outputs", "error")}})

    async def _say(self, text: str) -> None:
        self.speaker_at = None
        starts = self.pacer.now() + self.delay  # the agent's answer delay (agent_delay_ms), on the sandbox clock
        pcm = await asyncio.to_thread(_speech, text, self.voice)
        chunks = speech.frames(pcm)
        words = text.split()
        self.turn += 1
        turn = self.turn
        t0 = await self._wait(max(self.pacer.now(), starts))  # a turn due in a stall starts after it
        self.talking, self.interrupted, self.said = True, False, ""
        self.turn_at = len(self.record.transcript)
        await self._send({"type": "agent_start_talking", "timestamp": iso(t0)})
        said, at = 0, t0
        for i, chunk in enumerate(chunks + [b""]):
            at = await self._wait(t0 + i * FRAME)
            if self.interrupted or not chunk:
                break
            t0 = at - i * FRAME  # a stall moves the rest of the turn on
            due = min(len(words), i * len(words) // len(chunks) + 1)
            if due > said:
                said = due
                self.said = " ".join(words[:said])
                await self._send({"type": "transcript.delta", "role": "assistant", "text": self.said}, turn=turn)
            self.mix.add(self._offset(at), chunk)
            await self._send({"type": "output_audio.delta", "audio": base64.b64encode(chunk).decode("ascii")},
                             turn=turn)
        if not self.interrupted:
            self.said = text
        self.talking = False
        if self.said:  # cut in on before its first word, the turn said nothing
            self.record.transcript.insert(self.turn_at, {"role": "assistant", "content": self.said})
        await self._send({"type": "transcript", "role": "assistant", "text": self.said})
        # The end of its audio, or the moment it was cut off (not when a test's advance woke it).
        stopped = self.pacer.now() if self.interrupted else at
        await self._send({"type": "agent_stop_talking", "timestamp": iso(stopped)})

    async def _wait(self, at: datetime) -> datetime:
        """Sleep to the frame at ``at``; returns when it is sent, later than ``at`` after a stall.
        A frame at or after the call's end is never sent: the speaker waits for the timer to end it."""
        if self.stall_from is not None and self.stall_from <= at < self.stall_until:
            at = self.stall_until
        self.speaker_at = at
        if at >= self.cutoff:
            await asyncio.get_running_loop().create_future()  # never: the call's end cancels this task
        await self.pacer.sleep_until(at, self.speaker_label)
        return at

    async def _speaker_reaches(self, end: datetime) -> None:
        """Let the speaker send the frames due before ``end`` first. Woken at once by a test's big
        advance of the clock, the timer would otherwise end the call before frames that came due
        earlier; in real time the speaker is there already and this returns at once."""
        give_up = asyncio.get_running_loop().time() + 0.5  # a speaker stuck on a slow client
        while (  # noqa: ASYNC110 - the speaker is runnable, not awaiting an event: yield to it
               self.speaker_at is not None and self.speaker_at < end and self.speaker_at <= self.pacer.now()
               and asyncio.get_running_loop().time() < give_up):
            await asyncio.sleep(0)

    # -- the clock: the minutes charged, faults and max_duration ------------------------------

    async def _time(self) -> None:
        marks: list[tuple[datetime, int, str]] = [(self.cutoff, 0, "end")]
        marks += [(self.started + timedelta(minutes=m), 1, "minute")
                  for m in range(1, int(self.longest) // 60 + 1)]
        if self.stall_from is not None:
            marks += [(self.stall_from, 1, "stall"), (self.stall_until, 1, "resume")]
        for at, _, what in sorted(m for m in marks if m[0] <= self.cutoff):
            await self.pacer.sleep_until(at, self.timer_label)
            if what == "end":
                await self._speaker_reaches(at)
                drop = self.faults.socket_drop_after
                self._end("dropped" if drop is not None and drop < self.longest else "max_duration")
                return
            if what == "minute":
                self._charge()
            else:
                self.stalled = what == "stall"
