"""`vap agents talk|test` run in-process against a live sandbox (real loopback sockets: the agent
socket needs one), its clock sped up so a conversation takes a fraction of a second."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest

from vap_console.api import VapClient
from vap_console.credentials import KeyStore, ProfileStore
from vap_console.sandbox.server import RunningSandbox, start_in_thread
from vap_console.scripting.base import Session
from vap_console.scripting.root import run

# Fast enough that a greeting plays in ~50 ms. At this speed the sandbox's 120 s max_duration is
# 1.2 s of real time, which a busy machine overruns: calls of tests not about that limit last a day.
SPEED = 100
LONG_CALLS = "call_max_s=86400"


@dataclass
class Result:
    code: int
    out: str
    err: str

    def lines(self) -> list[dict[str, Any]]:
        return [json.loads(line) for line in self.out.splitlines()]

    @property
    def said(self) -> str:
        return " ".join(self.err.split())


@dataclass
class Talker:
    sandbox: RunningSandbox
    tmp: Path
    capsys: Any
    # The commands' client (tests/talk/hostile_socket.py's client_kind: agent sockets elsewhere).
    client_class: type[VapClient] = VapClient

    @property
    def started(self) -> list[tuple[str, str, str]]:
        """The calls the commands kept in the calls ledger, oldest first: (call id, agent, kind)."""
        from vap_console.ledger.accounts import files_for

        # VAP_API_KEY with no profile: the ledger of that account (the sandbox's key and address).
        ledger = files_for(self.store(), None, data_dir=self.tmp / "data").ledger
        return [(e.call_id or "", e.agent, e.kind) for e in reversed(ledger.entries())]

    def store(self, key: str = "agent") -> KeyStore:
        return KeyStore(profiles=ProfileStore(self.tmp),
                        env={"VAP_API_KEY": f"sk_sandbox_{key}", "VAP_BASE_URL": self.sandbox.base_url})

    def __call__(self, *args: str, terminal: bool = False, key: str = "agent") -> Result:
        store = self.store(key)
        session = Session(client_factory=lambda url, k: self.client_class(url, k, transport=httpx.AsyncHTTPTransport()),
                          keystore=store, terminal_out=terminal, terminal_in=terminal,
                          data_dir=self.tmp / "data")
        self.capsys.readouterr()
        code = run(list(args), session)
        captured = self.capsys.readouterr()
        return Result(code, captured.out, captured.err)

    def ref(self, name: str = "Priya", key: str = "agent") -> str:
        from tests.sandbox.socket_calls import agent_ref

        return agent_ref(self.sandbox, name, key)


@pytest.fixture
def fast_sandbox() -> Iterator[RunningSandbox]:
    with start_in_thread(speed=SPEED, faults=LONG_CALLS) as running:
        yield running


@pytest.fixture
def talker(fast_sandbox: RunningSandbox, tmp_path: Path, capsys: Any) -> Talker:
    return Talker(fast_sandbox, tmp_path, capsys)
