"""Real servers on 127.0.0.1 for the client tests: a tiny Starlette app under uvicorn, and a raw
socket server that reads a whole request then hangs up without answering."""

from __future__ import annotations

import hashlib
import json
import socket
import threading
import time
from typing import Any

import uvicorn
from starlette.applications import Starlette
from starlette.datastructures import UploadFile
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

STAMP = "2026-01-02T03:04:05Z"


def _rental(received: dict[str, Any]) -> dict[str, Any]:
    steps = [("prepaid", "done"), ("submitted", "done"), ("verification", "active"),
             ("purchase", "pending"), ("active", "pending")]
    return {
        "id": "11111111-2222-4333-8444-555555555555",
        "status": "kyc_submitted",
        "numberType": "local",
        "countryIso": "IN",
        "currency": "INR",
        "timeline": [{"key": k, "label": k.title(), "state": s} for k, s in steps],
        "events": [],
        "createdAt": STAMP,
        "updatedAt": STAMP,
        # Not a spec field: the client keeps unknown fields, so tests can read what arrived.
        "received": received,
    }


def _variables() -> dict[str, Any]:
    items = [
        {"id": f"00000000-0000-4000-8000-00000000000{i}", "name": name, "defaultValue": value,
         "toolId": None, "toolOutput": None, "createdAt": STAMP, "updatedAt": STAMP}
        for i, (name, value) in enumerate([("customer_name", ""), ("city", "Pune"), ("plan", "gold")])
    ]
    return {"items": items, "count": len(items)}


async def _auth_ok(request: Request) -> bool:
    return request.headers.get("authorization", "").startswith("Bearer ")


async def variables(request: Request) -> JSONResponse:
    if not await _auth_ok(request):
        return JSONResponse({"error": "missing key", "code": "unauthorized"}, status_code=401)
    return JSONResponse(_variables())


async def rent(request: Request) -> JSONResponse:
    received: dict[str, Any] = {
        "idempotencyKey": request.headers.get("idempotency-key"),
        "contentType": request.headers.get("content-type", "").split(";")[0],
        "contentLength": request.headers.get("content-length"),
        "transferEncoding": request.headers.get("transfer-encoding"),
    }
    if received["contentType"] == "application/json":
        received["json"] = json.loads(await request.body())
    else:
        parts = []
        async with request.form(max_files=50, max_fields=50) as form:
            for name, value in form.multi_items():
                if isinstance(value, UploadFile):
                    data = await value.read()
                    parts.append({
                        "name": name, "filename": value.filename,
                        "contentType": value.content_type, "size": len(data),
                        "sha256": hashlib.sha256(data).hexdigest(),
                    })
                else:
                    parts.append({"name": name, "value": value})
        received["parts"] = parts
    return JSONResponse(_rental(received), status_code=201)


async def unauthorized(request: Request) -> JSONResponse:
    return JSONResponse({"error": "The key was revoked", "code": "unauthorized"}, status_code=401)


def loopback_app() -> Starlette:
    return Starlette(routes=[
        Route("/v1/variables", variables),
        Route("/v1/phone-numbers", rent, methods=["POST"]),
        Route("/v1/voices", unauthorized),
    ])


def _bound_socket() -> socket.socket:
    # proto=IPPROTO_TCP, or asyncio will not set TCP_NODELAY on accepted connections, and Nagle
    # plus delayed ACKs add ~40 ms to every answer sent in two writes.
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    return sock


class LoopbackServer:
    """uvicorn serving an ASGI app in a background thread on a free loopback port."""

    def __init__(self, app: Any) -> None:
        self._sock = _bound_socket()
        self.port = self._sock.getsockname()[1]
        self._server = uvicorn.Server(uvicorn.Config(
            app, log_level="warning", lifespan="off", access_log=False,
        ))
        self._thread = threading.Thread(target=self._server.run, kwargs={"sockets": [self._sock]},
                                        daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> None:
        self._thread.start()
        deadline = time.monotonic() + 60  # bounds a failure only; a busy machine may take seconds
        while not self._server.started:
            if time.monotonic() > deadline or not self._thread.is_alive():
                raise RuntimeError("loopback server did not start")
            time.sleep(0.01)

    def stop(self) -> None:
        self._server.should_exit = True
        self._thread.join(timeout=10)
        self._sock.close()


class HangUpServer:
    """Reads each request in full (head and Content-Length body), then closes without answering:
    the request certainly arrived, its outcome is unknown to the client."""

    def __init__(self) -> None:
        self._sock = _bound_socket()
        self._sock.listen(8)
        self._sock.settimeout(0.2)
        self.port = self._sock.getsockname()[1]
        self.requests: list[bytes] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._serve, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def __enter__(self) -> HangUpServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join(timeout=5)
        self._sock.close()

    def _serve(self) -> None:
        while not self._stop.is_set():
            try:
                conn, _ = self._sock.accept()
            except TimeoutError:
                continue
            with conn:
                conn.settimeout(5)
                data = b""
                while b"\r\n\r\n" not in data:
                    chunk = conn.recv(65536)
                    if not chunk:
                        break
                    data += chunk
                head, _, body = data.partition(b"\r\n\r\n")
                length = 0
                for line in head.split(b"\r\n")[1:]:
                    name, _, value = line.partition(b":")
                    if name.strip().lower() == b"content-length":
                        length = int(value.strip())
                while len(body) < length:
                    chunk = conn.recv(65536)
                    if not chunk:
                        break
                    body += chunk
                self.requests.append(head)


class RawServer:
    """Answers every request with the bytes of ``answer`` as they are (a malformed status line, a
    body that does not match its Content-Encoding...), then closes. With ``trickle``, the bytes
    after the head go out one at a time, ``trickle`` seconds apart, until the client gives up."""

    def __init__(self, answer: bytes, trickle: float | None = None) -> None:
        self.answer = answer
        self.trickle = trickle
        self._sock = _bound_socket()
        self._sock.listen(8)
        self._sock.settimeout(0.2)
        self.port = self._sock.getsockname()[1]
        self.requests = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._serve, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def __enter__(self) -> RawServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join(timeout=5)
        self._sock.close()

    def _serve(self) -> None:
        while not self._stop.is_set():
            try:
                conn, _ = self._sock.accept()
            except TimeoutError:
                continue
            with conn:
                conn.settimeout(5)
                data = b""
                while b"\r\n\r\n" not in data:
                    chunk = conn.recv(65536)
                    if not chunk:
                        break
                    data += chunk
                self.requests += 1
                try:
                    if self.trickle is None:
                        conn.sendall(self.answer)
                        continue
                    head, _, body = self.answer.partition(b"\r\n\r\n")
                    conn.sendall(head + b"\r\n\r\n")
                    for byte in body:
                        if self._stop.wait(self.trickle):
                            break
                        conn.sendall(bytes([byte]))
                except OSError:  # the client hung up: what a trickle is for
                    continue
