"""Injected failures for reliability tests: ``latency=MS,error_rate=P,drop_rate=P,seed=N``.

One seeded generator draws for every request in arrival order, so a given seed and a given
sequence of requests fail the same way on every run.
"""

from __future__ import annotations

import asyncio
import json
import random
from dataclasses import dataclass

from starlette.types import ASGIApp, Message, Receive, Scope, Send


class FaultSpecError(ValueError):
    pass


@dataclass(frozen=True)
class Faults:
    latency_ms: float = 0.0
    error_rate: float = 0.0
    drop_rate: float = 0.0
    seed: int = 0

    def __str__(self) -> str:
        return (f"latency={self.latency_ms:g},error_rate={self.error_rate:g},"
                f"drop_rate={self.drop_rate:g},seed={self.seed}")

    @property
    def active(self) -> bool:
        return bool(self.latency_ms or self.error_rate or self.drop_rate)

    @classmethod
    def parse(cls, spec: str | None) -> Faults:
        """``latency=MS,error_rate=P,drop_rate=P,seed=N``; every part optional; empty → none."""
        values: dict[str, float | int] = {}
        for part in (spec or "").split(","):
            part = part.strip()
            if not part:
                continue
            name, sep, raw = part.partition("=")
            name = name.strip()
            if not sep:
                raise FaultSpecError(f"--faults: {part!r} is not name=value")
            if name not in ("latency", "error_rate", "drop_rate", "seed"):
                raise FaultSpecError(
                    f"--faults: unknown setting {name!r} (use latency, error_rate, drop_rate, seed)"
                )
            try:
                if name == "latency":
                    value: float | int = float(raw)
                    if not 0 <= value <= 60_000:
                        raise ValueError
                elif name in ("error_rate", "drop_rate"):
                    value = float(raw)
                    if not 0 <= value <= 1:
                        raise ValueError
                else:
                    value = int(raw)
            except ValueError:
                rule = {"latency": "milliseconds from 0 to 60000", "seed": "a whole number"}.get(
                    name, "a probability from 0 to 1"
                )
                raise FaultSpecError(f"--faults: {name} must be {rule}, not {raw!r}") from None
            values[name] = value
        if values.get("error_rate", 0) + values.get("drop_rate", 0) > 1:
            raise FaultSpecError("--faults: error_rate + drop_rate must not exceed 1")
        return cls(
            latency_ms=float(values.get("latency", 0.0)),
            error_rate=float(values.get("error_rate", 0.0)),
            drop_rate=float(values.get("drop_rate", 0.0)),
            seed=int(values.get("seed", 0)),
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
