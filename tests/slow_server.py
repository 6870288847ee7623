"""An unkind server on a real loopback socket: the sandbox behind it, each path's behaviour set apart.

``Slow(seconds)`` answers after a delay, ``Held(event)`` once the test sets the event, ``Close()`` closes the connection at once with no answer,
``Trickle(every)`` sends the headers and then the body a byte at a time, ``Stall()`` sends the
headers and then nothing. Paths not named pass through to the sandbox as they are. Behaviours can
be changed while the server runs (``server.behaviours[path] = ...``), and ``server.asked`` counts
the requests each path received.

Unlike the httpx transports the other tests wrap, this is real HTTP over TCP: httpx's connection
pool, its own timeouts and a connection closed under it all behave as with a real server.

By hand, in front of a sandbox on real time::

    python -m tests.slow_server --port 8790 --slow /v1/phone-numbers=20 --close /v1/agents
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
from collections import Counter
from dataclasses import dataclass
from typing import Any

import httpx


@dataclass(frozen=True)
class Slow:
    seconds: float


@dataclass(frozen=True)
class Held:
    """Answers once ``release`` is set: as slow as the test needs, with no clock in it."""

    release: asyncio.Event


@dataclass(frozen=True)
class Close:
    pass


@dataclass(frozen=True)
class Trickle:
    every: float


@dataclass(frozen=True)
class Stall:
    pass


Behaviour = Slow | Held | Close | Trickle | Stall


class UnkindServer:
    """HTTP/1.1 with keep-alive on 127.0.0.1; run it with ``async with UnkindServer(app) as server``."""

    def __init__(self, sandbox: Any, behaviours: dict[str, Behaviour] | None = None, port: int = 0) -> None:
        self.behaviours: dict[str, Behaviour] = dict(behaviours or {})
        self.asked: Counter[str] = Counter()
        self._sandbox = httpx.AsyncClient(transport=httpx.ASGITransport(app=sandbox), base_url="http://sandbox")
        self._port = port
        self._server: asyncio.Server | None = None
        self._tasks: set[asyncio.Task[None]] = set()
        # Kept-alive connections waiting for their next request.
        self._idle: set[asyncio.StreamWriter] = set()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._port}"

    async def __aenter__(self) -> UnkindServer:
        self._server = await asyncio.start_server(self._serve, "127.0.0.1", self._port)
        self._port = self._server.sockets[0].getsockname()[1]
        return self

    async def go_down(self) -> None:
        """Out of reach: new connections are refused and idle ones closed; requests under way
        (a held one) carry on."""
        assert self._server is not None
        self._server.close()
        for writer in list(self._idle):
            writer.close()

    async def come_up(self) -> None:
        """Listening again, on the same port."""
        self._server = await asyncio.start_server(self._serve, "127.0.0.1", self._port)

    async def __aexit__(self, *exc: object) -> None:
        assert self._server is not None
        self._server.close()
        for task in list(self._tasks):
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)
        await self._server.wait_closed()
        await self._sandbox.aclose()

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        assert task is not None
        self._tasks.add(task)
        try:
            while await self._one(reader, writer):
                pass
        except (ConnectionError, asyncio.IncompleteReadError, asyncio.LimitOverrunError):
            pass
        finally:
            self._tasks.discard(task)
            writer.close()
            with contextlib.suppress(Exception):
                await writer.wait_closed()

    async def _one(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> bool:
        """One request on a kept-alive connection; False when the connection is to end."""
        self._idle.add(writer)
        try:
            head = await reader.readuntil(b"\r\n\r\n")
        except asyncio.IncompleteReadError:
            return False
        finally:
            self._idle.discard(writer)
        line, *header_lines = head.decode("latin-1").split("\r\n")
        method, target, _ = line.split(" ", 2)
        headers = [tuple(h.split(":", 1)) for h in header_lines if ":" in h]
        lowered = {k.strip().lower(): v.strip() for k, v in headers}
        body = await _read_body(reader, lowered)
        path = target.split("?", 1)[0]
        self.asked[path] += 1
        behaviour = self.behaviours.get(path)
        if isinstance(behaviour, Close):
            return False
        if isinstance(behaviour, Slow):
            await asyncio.sleep(behaviour.seconds)
        if isinstance(behaviour, Held):
            await behaviour.release.wait()
        passed = {k.strip(): v.strip() for k, v in headers
                  if k.strip().lower() not in ("host", "connection", "content-length", "transfer-encoding")}
        answer = await self._sandbox.request(method, target, headers=passed, content=body)
        out = [f"HTTP/1.1 {answer.status_code} {answer.reason_phrase}"]
        out += [f"{k}: {v}" for k, v in answer.headers.items()
                if k.lower() not in ("content-length", "transfer-encoding", "connection", "content-encoding")]
        out.append(f"content-length: {len(answer.content)}")
        writer.write(("\r\n".join(out) + "\r\n\r\n").encode("latin-1"))
        await writer.drain()
        if isinstance(behaviour, Stall):
            await asyncio.Event().wait()
        if isinstance(behaviour, Trickle):
            for i in range(len(answer.content)):
                writer.write(answer.content[i:i + 1])
                await writer.drain()
                await asyncio.sleep(behaviour.every)
        else:
            writer.write(answer.content)
            await writer.drain()
        return lowered.get("connection", "").lower() != "close"


async def _read_body(reader: asyncio.StreamReader, headers: dict[str, str]) -> bytes:
    if "content-length" in headers:
        return await reader.readexactly(int(headers["content-length"]))
    if headers.get("transfer-encoding", "").lower() == "chunked":
        body = bytearray()
        while True:
            size = int((await reader.readuntil(b"\r\n")).split(b";")[0], 16)
            if size == 0:
                await reader.readuntil(b"\r\n")
                return bytes(body)
            body += await reader.readexactly(size)
            await reader.readexactly(2)
    return b""


def _pairs(values: list[str]) -> dict[str, float]:
    out = {}
    for value in values:
        path, _, seconds = value.partition("=")
        out[path] = float(seconds or 1)
    return out


async def _main() -> None:
    from vap_console.sandbox.app import create_app

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, default=8790)
    parser.add_argument("--slow", action="append", default=[], metavar="PATH=SECONDS")
    parser.add_argument("--trickle", action="append", default=[], metavar="PATH=SECONDS_A_BYTE")
    parser.add_argument("--close", action="append", default=[], metavar="PATH")
    parser.add_argument("--stall", action="append", default=[], metavar="PATH")
    args = parser.parse_args()
    behaviours: dict[str, Behaviour] = {}
    behaviours.update({p: Slow(s) for p, s in _pairs(args.slow).items()})
    behaviours.update({p: Trickle(s) for p, s in _pairs(args.trickle).items()})
    behaviours.update({p: Close() for p in args.close})
    behaviours.update({p: Stall() for p in args.stall})
    async with UnkindServer(create_app(), behaviours, port=args.port) as server:
        print(f"serving {server.url}: {behaviours}", flush=True)
        await asyncio.Event().wait()


if __name__ == "__main__":
    asyncio.run(_main())
