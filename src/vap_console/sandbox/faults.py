"""Injected failures for reliability tests: ``latency=MS,error_rate=P,drop_rate=P,seed=N``.

One seeded generator draws for every request in arrival order, so a given seed and a given
sequence of requests fail the same way on every run.

The realtime agent socket's faults (sandbox/voice/agent_socket.py, docs/sandbox-voice.md) are
set the same way and hit every socket call, timed on the sandbox clock from ``session.created``:
``socket_drop_after=S`` (closed with 1011, no ``session.closed``), ``socket_stall_after=S`` and
``socket_stall_for=S`` (the agent falls silent mid-call: no event at all, for S seconds or to the
call's end), ``socket_start_error=CODE`` (one ``error`` frame, then close 4000), ``call_max_s=S`` (a call's
longest length, 120 s on the sandbox clock unless set: a test on a fast clock that is not about
that limit sets it far off, so a busy machine does not end its call for it); and per agent
``agent_delay_ms=REF:MS`` and ``agent_credits_per_minute=REF:N`` (sandbox/agent_pace.py).

``hostile_text=1`` puts terminal control (OSC 52, CSI, C1, a bidi override, NUL, U+FFFF) into
every string the sandbox serves, over HTTP and on the agent socket (sandbox/hostile_text.py says
what, and what it leaves alone so that answers still parse and ids still work).
"""

from __future__ import annotations

import asyncio
import json
import random
from dataclasses import dataclass, field

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from vap_console.sandbox.agent_pace import DEFAULT_DELAY_MS, AgentSettingError, AgentSettings
from vap_console.sandbox.agent_pace import SETTINGS as AGENT_SETTINGS


class FaultSpecError(ValueError):
    pass


# What each --faults setting does, as the OpenAPI document lists them (info.x-sandbox-faults).
SETTINGS = {
    "latency": "MS: every request waits that long first",
    "error_rate": "P: that share of requests answers 502 bad_gateway or 503 service_unavailable",
    "drop_rate": "P: that share of connections is cut mid-answer, before or after the API acted",
    "seed": "N: seeds the one generator that draws for every request",
    "socket_drop_after": "S: every agent-socket call closed with 1011 that long after session.created",
    "socket_stall_after": "S: the agent falls silent that long into every call",
    "socket_stall_for": "S: and speaks again after that long",
    "socket_start_error": "CODE: every call refused with that error frame, then close 4000",
    "call_max_s": "S: a call's longest length on the sandbox clock (120 unless set), then max_duration",
    "agent_delay_ms": "REF:MS: agent REF's greeting and every answer start MS ms of the sandbox clock late "
                      f"(REF an id, a ua_ handle or *; {DEFAULT_DELAY_MS:g} unless set: info.x-sandbox-agent-pace)",
    "agent_credits_per_minute": "REF:N: agent REF's calls cost N credits a started minute",
    "hostile_text": "1: terminal control (OSC 52, CSI, C1, a bidi override, NUL, U+FFFF) in every string "
                    "served, HTTP answers and socket frames, and a hostile key in every object; dates and "
                    "a frame's type left alone, ids sent back as served still reach their records",
}


# The agent socket's settings: seconds on the sandbox clock, then the error code of a refused start.
_SOCKET_SETTINGS = ("socket_drop_after", "socket_stall_after", "socket_stall_for", "socket_start_error")
# The codes the published protocol names for a call that cannot start (close 4000).
SOCKET_START_ERRORS = ("agent_start_failed", "not_configured", "insufficient_balance", "concurrency_limit_exceeded")


@dataclass(frozen=True)
class Faults:
    latency_ms: float = 0.0
    error_rate: float = 0.0
    drop_rate: float = 0.0
    seed: int = 0
    socket_drop_after: float | None = None
    socket_stall_after: float | None = None
    socket_stall_for: float | None = None
    socket_start_error: str | None = None
    hostile_text: bool = False
    call_max_s: float | None = None
    agents: AgentSettings = field(default_factory=AgentSettings)

    def __str__(self) -> str:
        text = (f"latency={self.latency_ms:g},error_rate={self.error_rate:g},"
                f"drop_rate={self.drop_rate:g},seed={self.seed}")
        for name in _SOCKET_SETTINGS:
            value = getattr(self, name)
            if value is not None:
                text += f",{name}={value:g}" if isinstance(value, float) else f",{name}={value}"
        if self.hostile_text:
            text += ",hostile_text=1"
        if self.call_max_s is not None:
            text += f",call_max_s={self.call_max_s:g}"
        return text + (f",{self.agents}" if self.agents else "")

    @property
    def socket_active(self) -> bool:
        return bool(self.agents) or any(getattr(self, name) is not None for name in (*_SOCKET_SETTINGS, "call_max_s"))

    @property
    def active(self) -> bool:
        return bool(self.latency_ms or self.error_rate or self.drop_rate)

    @classmethod
    def parse(cls, spec: str | None) -> Faults:
        """``latency=MS,error_rate=P,drop_rate=P,seed=N``; every part optional; empty → none."""
        values: dict[str, float | int | str] = {}
        agents = AgentSettings()
        for part in (spec or "").split(","):
            part = part.strip()
            if not part:
                continue
            name, sep, raw = part.partition("=")
            name = name.strip()
            if not sep:
                raise FaultSpecError(f"--faults: {part!r} is not name=value")
            if name in AGENT_SETTINGS:
                try:
                    agents = agents.add(name, raw.strip())
                except AgentSettingError as exc:
                    raise FaultSpecError(str(exc)) from None
                continue
            if name not in SETTINGS:
                raise FaultSpecError(f"--faults: unknown setting {name!r} (use {', '.join(SETTINGS)})")
            if name == "hostile_text":
                if raw not in ("0", "1"):
                    raise FaultSpecError(f"--faults: hostile_text must be 0 or 1, not {raw!r}")
                values[name] = int(raw)
                continue
            if name == "socket_start_error":
                if raw not in SOCKET_START_ERRORS:
                    raise FaultSpecError(f"--faults: socket_start_error must be one of "
                                         f"{', '.join(SOCKET_START_ERRORS)}, not {raw!r}")
                values[name] = raw
                continue
            try:
                if name == "latency":
                    value: float | int = float(raw)
                    if not 0 <= value <= 60_000:
                        raise ValueError
                elif name in _SOCKET_SETTINGS or name == "call_max_s":
                    value = float(raw)
                    if not 0 <= value <= 86_400:
                        raise ValueError
                elif name in ("error_rate", "drop_rate"):
                    value = float(raw)
                    if not 0 <= value <= 1:
                        raise ValueError
                else:
                    value = int(raw)
            except ValueError:
                rule = {"latency": "milliseconds from 0 to 60000", "seed": "a whole number"}.get(
                    name, "seconds from 0 to 86400" if name in (*_SOCKET_SETTINGS, "call_max_s")
                    else "a probability from 0 to 1"
                )
                raise FaultSpecError(f"--faults: {name} must be {rule}, not {raw!r}") from None
            values[name] = value
        if float(values.get("error_rate", 0)) + float(values.get("drop_rate", 0)) > 1:
            raise FaultSpecError("--faults: error_rate + drop_rate must not exceed 1")
        seconds = {name: float(values[name]) for name in _SOCKET_SETTINGS[:3] if name in values}
        start_error = values.get("socket_start_error")
        return cls(
            latency_ms=float(values.get("latency", 0.0)),
            error_rate=float(values.get("error_rate", 0.0)),
            drop_rate=float(values.get("drop_rate", 0.0)),
            seed=int(values.get("seed", 0)),
            **seconds,
            socket_start_error=str(start_error) if start_error is not None else None,
            hostile_text=bool(values.get("hostile_text", 0)),
            call_max_s=float(values["call_max_s"]) if "call_max_s" in values else None,
            agents=agents,
        )


class FaultInjector:
    """ASGI middleware: adds latency, answers some requests 502/503, drops some connections.

    A dropped connection either never reaches the API (nothing happened) or is cut after the API
    handled it (it took effect but the answer is lost: what Idempotency-Key retries are for).
    A drop starts an answer and breaks it off, which the server reports by closing the connection.
    """

    def __init__(self, app: ASGIApp, faults: Faults) -> None:
        self.app = app
        self.faults = faults
        self.random = random.Random(faults.seed)
        self.counts = {"requests": 0, "errors": 0, "drops": 0}

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or not self.faults.active:
            return await self.app(scope, receive, send)
        self.counts["requests"] += 1
        draw, half = self.random.random(), self.random.random()
        if self.faults.latency_ms:
            await asyncio.sleep(self.faults.latency_ms / 1000)
        if draw < self.faults.error_rate:
            self.counts["errors"] += 1
            return await _error(send, 502 if half < 0.5 else 503)
        if draw < self.faults.error_rate + self.faults.drop_rate:
            self.counts["drops"] += 1
            if half >= 0.5:
                await self.app(scope, receive, _swallow)
            return await _cut(send)
        await self.app(scope, receive, send)


async def _swallow(message: Message) -> None:
    return None


async def _error(send: Send, status: int) -> None:
    code, text = {
        502: ("bad_gateway", "Injected fault: the gateway got no answer from the API."),
        503: ("service_unavailable", "Injected fault: the API is briefly unavailable."),
    }[status]
    body = json.dumps({"error": text, "code": code}).encode()
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
    if status == 503:
        headers.append((b"retry-after", b"1"))
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})


async def _cut(send: Send) -> None:
    await send({
        "type": "http.response.start", "status": 200,
        "headers": [(b"content-type", b"application/json"), (b"content-length", b"1024")],
    })
    await send({"type": "http.response.body", "body": b'{"trunc', "more_body": True})
