"""`vap <area> …` run in-process against an in-process sandbox, every request counted."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import pytest

from vap_console.api import VapClient
from vap_console.credentials import KeyStore, ProfileStore
from vap_console.scripting.base import Session
from vap_console.scripting.root import run

BASE_URL = "http://127.0.0.1:9"


async def no_wait(seconds: float) -> None:
    return None


class Counting(httpx.AsyncBaseTransport):
    def __init__(self, inner: httpx.AsyncBaseTransport, log: list[str]) -> None:
        self.inner = inner
        self.log = log

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        self.log.append(f"{request.method} {request.url.path}")
        return await self.inner.handle_async_request(request)


@dataclass
class Result:
    code: int
    out: str
    err: str

    def json(self) -> Any:
        return json.loads(self.out)


@dataclass
class Vap:
    app: Any
    tmp: Path
    capsys: Any
    key: str = "sk_sandbox_agent"
    sent: list[str] = field(default_factory=list)
    # Wraps the transport between the client and the sandbox (a lost answer, say); None: nothing.
    wrap: Callable[[httpx.AsyncBaseTransport], httpx.AsyncBaseTransport] | None = None

    def session(self, *, terminal: bool = False, key: str | None = None) -> Session:
        store = KeyStore(profiles=ProfileStore(self.tmp),
                         env={"VAP_API_KEY": key or self.key, "VAP_BASE_URL": BASE_URL})
        inner: httpx.AsyncBaseTransport = httpx.ASGITransport(app=self.app)
        transport = Counting(self.wrap(inner) if self.wrap else inner, self.sent)
        return Session(
            client_factory=lambda url, k: VapClient(url, k, transport=transport, sleep=no_wait),
            keystore=store, terminal_out=terminal, terminal_in=terminal, data_dir=self.tmp / "data",
        )

    def __call__(self, *args: str, terminal: bool = False, key: str | None = None) -> Result:
        self.capsys.readouterr()
        code = run(list(args), self.session(terminal=terminal, key=key))
        captured = self.capsys.readouterr()
        return Result(code, captured.out, captured.err)

    def api(self, method: str, path: str, key: str | None = None) -> Any:
        """What the API itself answers, for comparing with --json."""
        import asyncio

        async def go() -> Any:
            async with httpx.AsyncClient(transport=httpx.ASGITransport(app=self.app), base_url=BASE_URL) as c:
                answer = await c.request(method, path, headers={"Authorization": f"Bearer {key or self.key}"})
                return answer.json()

        return asyncio.run(go())


@pytest.fixture
def vap(sandbox_app, tmp_path: Path, capsys) -> Vap:
    return Vap(sandbox_app, tmp_path, capsys)
