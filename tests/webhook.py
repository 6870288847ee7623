"""A tool's webhook on 127.0.0.1 for the tests of `vap tools try` (and later the sandbox's
--call-tools): it records every request as it arrived and answers in the ways a real webhook can,
well or badly.

Routes: ``/ok`` (a nested JSON answer), ``/redirect`` (302 to /ok), ``/html`` (a page, not JSON),
``/huge`` (10 MB streamed with no Content-Length), ``/huge-declared`` (10 MB, Content-Length said),
``/hostile`` (escape sequences, NUL, U+FFFE, bidi and ``]]>`` in JSON), ``/echo-secret`` (the
Authorization header and X-Shop-Key back in the body), ``/slow`` (answers only when the test ends:
a timeout needs no sleep), ``/status/{code}``.
"""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from typing import Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route

from tests.api.loopback import LoopbackServer

TEN_MB = 10 * 1024 * 1024
ANSWER = {"data": {"name": "Asha Rao", "tier": "gold", "visits": [{"date": "2026-01-05"}], "count": 3},
          "ok": True}
HOSTILE = {"data": {"name": "\x1b]0;pwned\x07\x1b[2JAsha\x00\ufffe\u202eevil]]><x/>", "note": "\x9b31m"}}


@dataclass
class Arrived:
    method: str
    path: str
    query: str
    headers: dict[str, str]
    body: bytes
    # The caller's address and port: the same on a kept connection.
    peer: str = ""


class Webhook:
    """The server and what reached it (``arrived``, in order)."""

    def __init__(self) -> None:
        self.arrived: list[Arrived] = []
        self._release = threading.Event()
        self._came = threading.Condition()
        self._server = LoopbackServer(self._app())

    @property
    def url(self) -> str:
        return self._server.url

    def wait_arrived(self, count: int) -> list[Arrived]:
        """The requests once ``count`` have arrived (a fire-and-forget sender returns before the
        server has read it); the deadline only bounds a failure."""
        with self._came:
            assert self._came.wait_for(lambda: len(self.arrived) >= count, timeout=60), self.arrived
            return list(self.arrived)

    def _app(self) -> Starlette:
        async def record(request: Request) -> None:
            got = Arrived(request.method, request.url.path, request.url.query,
                          {k.lower(): v for k, v in request.headers.items()}, await request.body(),
                          f"{request.client.host}:{request.client.port}" if request.client else "")
            with self._came:
                self.arrived.append(got)
                self._came.notify_all()

        async def ok(request: Request) -> Response:
            await record(request)
            return JSONResponse(ANSWER)

        async def redirect(request: Request) -> Response:
            await record(request)
            return Response(status_code=302, headers={"Location": f"{self.url}/ok"})

        async def html(request: Request) -> Response:
            await record(request)
            return Response("<html><body>Not JSON</body></html>", media_type="text/html")

        async def ten_mb() -> AsyncIterator[bytes]:
            chunk = b"x" * 65536
            for _ in range(TEN_MB // len(chunk)):
                yield chunk

        async def huge(request: Request) -> Response:
            await record(request)
            return StreamingResponse(ten_mb(), media_type="application/json")

        async def huge_declared(request: Request) -> Response:
            await record(request)
            return StreamingResponse(ten_mb(), media_type="application/json",
                                     headers={"Content-Length": str(TEN_MB)})

        async def hostile(request: Request) -> Response:
            await record(request)
            return Response(json.dumps(HOSTILE, ensure_ascii=False), media_type="application/json",
                            headers={"X-Note": "\x1b[31mred"})

        async def echo_secret(request: Request) -> Response:
            await record(request)
            return JSONResponse({"data": {"name": "x"}, "auth": request.headers.get("authorization", ""),
                                 "key": request.headers.get("x-shop-key", "")})

        async def slow(request: Request) -> Response:
            await record(request)
            await asyncio.to_thread(self._release.wait)  # held until the test ends, however long it takes
            return JSONResponse(ANSWER)

        async def status(request: Request) -> Response:
            await record(request)
            return JSONResponse({"error": "no"}, status_code=int(request.path_params["code"]))

        every = ["GET", "POST", "PUT", "PATCH", "DELETE"]
        return Starlette(routes=[
            Route("/ok", ok, methods=every), Route("/ok/{rest:path}", ok, methods=every),
            Route("/redirect", redirect, methods=every), Route("/html", html, methods=every),
            Route("/huge", huge, methods=every), Route("/huge-declared", huge_declared, methods=every),
            Route("/hostile", hostile, methods=every), Route("/echo-secret", echo_secret, methods=every),
            Route("/slow", slow, methods=every), Route("/status/{code:int}", status, methods=every),
        ])

    def __enter__(self) -> Webhook:
        self._server.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._release.set()
        self._server.stop()


def webhook_server() -> Iterator[Webhook]:
    with Webhook() as hook:
        yield hook


def tool_document(name: str, url: str, **config: Any) -> dict[str, Any]:
    """A tool as POST /v1/tools takes it, pointing at ``url``."""
    kind = "during_call" if config.get("llmParams") else "before_call"
    return {"name": name, "description": f"{name} for the webhook tests", "kind": kind,
            "config": {"method": "GET", "url": url, **config}}
