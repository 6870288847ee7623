"""Fixtures for the API client tests: wire bodies, a recording mock server, a real loopback server."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.api.loopback import LoopbackServer, loopback_app
from vap_console.api.client import VapClient

API_KEY = "sk_live_THIS_KEY_MUST_NEVER_LEAK_9f3a"
BASE_URL = "https://api.example.test"

STAMP = "2026-01-02T03:04:05Z"


def wire_rental(**overrides: Any) -> dict[str, Any]:
    """A rental as the spec's POST /v1/phone-numbers answers right after creation."""
    body: dict[str, Any] = {
        "id": "6f1c1c1e-9a57-4c1e-8f50-0c0d0a0b0c01",
        "status": "kyc_submitted",
        "requestedNumber": "+919876500001",
        "number": None,
        "e164": None,
        "alias": None,
        "numberType": "local",
        "countryIso": "IN",
        "region": None,
        "city": None,
        "monthlyRentalRateUsd": None,
        "setupRateUsd": None,
        "voiceRateUsd": None,
        "outboundRateUsd": None,
        "monthlyRentNanos": None,
        "setupNanos": None,
        "voiceRateNanos": None,
        "outboundRateNanos": None,
        "outboundUnitSeconds": None,
        "prepaidNanos": 0,
        "currency": "INR",
        "rentedAt": None,
        "nextRenewalAt": None,
        "lastRenewalChargedFor": None,
        "renewalAttempts": 0,
        "renewalLastError": None,
        "releaseReason": None,
        "releasedAt": None,
        "lastError": None,
        "userAgentId": None,
        "agentName": None,
        "compliance": None,
        "timeline": [
            {"key": "prepaid", "label": "First month's rent deducted", "state": "done", "at": STAMP, "detail": None},
            {"key": "submitted", "label": "Documents submitted", "state": "done", "at": STAMP, "detail": None},
            {"key": "verification", "label": "Verification", "state": "active", "at": None, "detail": None},
            {"key": "purchase", "label": "Number purchase", "state": "pending", "at": None, "detail": None},
            {"key": "active", "label": "Number active", "state": "pending", "at": None, "detail": None},
        ],
        "events": [],
        "createdAt": STAMP,
        "updatedAt": STAMP,
    }
    body.update(overrides)
    return body


def wire_variable(name: str = "customer_name", **overrides: Any) -> dict[str, Any]:
    body = {
        "id": "0b7c6f0e-1111-4a4a-9b9b-000000000001",
        "name": name,
        "defaultValue": "",
        "toolId": None,
        "toolOutput": None,
        "createdAt": STAMP,
        "updatedAt": STAMP,
    }
    body.update(overrides)
    return body


def error_body(code: str, message: str = "", **extra: Any) -> dict[str, Any]:
    return {"error": message or f"error {code}", "code": code, **extra}


@dataclass
class Recorder:
    """A MockTransport that answers from a script and remembers every request it saw."""

    script: list[Any]
    requests: list[httpx.Request] = field(default_factory=list)

    def handler(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        step = self.script.pop(0) if len(self.script) > 1 else self.script[0]
        if isinstance(step, Exception):
            raise step
        if callable(step):
            return step(request)
        return step

    @property
    def transport(self) -> httpx.MockTransport:
        return httpx.MockTransport(self.handler)


class SleepLog:
    """Stands in for asyncio.sleep: records each wait instead of waiting."""

    def __init__(self) -> None:
        self.waits: list[float] = []

    async def __call__(self, seconds: float) -> None:
        self.waits.append(seconds)


@pytest.fixture
def sleeps() -> SleepLog:
    return SleepLog()


@pytest.fixture
async def make_client(sleeps: SleepLog) -> AsyncIterator[Callable[..., tuple[VapClient, Recorder]]]:
    """make_client(*responses) → (client, recorder); responses are Responses, exceptions or callables."""
    made: list[VapClient] = []

    def make(*script: Any, **kwargs: Any) -> tuple[VapClient, Recorder]:
        recorder = Recorder(list(script))
        kwargs.setdefault("sleep", sleeps)
        client = VapClient(BASE_URL, API_KEY, transport=recorder.transport, **kwargs)
        made.append(client)
        return client, recorder

    yield make
    for client in made:
        await client.aclose()


class Chunks(httpx.AsyncByteStream):
    """A response body that arrives in pieces, as from a socket: decoding and size checks happen
    as it is read, not when the Response is built. ``then`` is raised after the last piece, or,
    with ``stall=True``, the body never ends (for deadlines)."""

    def __init__(self, *chunks: bytes, then: BaseException | None = None, stall: bool = False) -> None:
        self.chunks = chunks
        self.then = then
        self.stall = stall
        self.read = 0

    async def __aiter__(self) -> AsyncIterator[bytes]:
        import asyncio

        for chunk in self.chunks:
            self.read += len(chunk)
            yield chunk
        if self.then is not None:
            raise self.then
        if self.stall:
            await asyncio.Event().wait()


def streamed(status: int, *chunks: bytes, headers: dict[str, str] | None = None,
             then: BaseException | None = None, stall: bool = False) -> httpx.Response:
    return httpx.Response(status, headers=headers, stream=Chunks(*chunks, then=then, stall=stall))


def json_response(status: int, body: Any, headers: dict[str, str] | None = None) -> httpx.Response:
    return httpx.Response(status, content=json.dumps(body).encode(), headers={
        "content-type": "application/json", **(headers or {}),
    })


@pytest.fixture(scope="session")
def loopback() -> Iterator[LoopbackServer]:
    server = LoopbackServer(loopback_app())
    server.start()
    yield server
    server.stop()


@pytest.fixture
def pdf_file(tmp_path: Path) -> Path:
    path = tmp_path / "certificate.pdf"
    path.write_bytes(b"%PDF-1.7\n" + bytes(range(256)) * 40 + b"\n%%EOF\n")
    return path


@pytest.fixture
def png_file(tmp_path: Path) -> Path:
    path = tmp_path / "id card.png"
    path.write_bytes(b"\x89PNG\r\n\x1a\n" + b"\x00\x00\x00\rIHDR" + bytes(range(200, 256)) * 30)
    return path


@pytest.fixture
def jpeg_file(tmp_path: Path) -> Path:
    path = tmp_path / "utility-bill.jpg"
    path.write_bytes(b"\xff\xd8\xff\xe0\x00\x10JFIF\x00" + bytes(range(100)) * 50 + b"\xff\xd9")
    return path
