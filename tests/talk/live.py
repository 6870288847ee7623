"""Helpers for the talk client's tests: a VapClient on a live sandbox (real loopback sockets, the
sandbox's VirtualClock), and a reader of the client's typed events that moves the clock on."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import httpx

from tests.sandbox.socket_calls import PRIYA_GREETING, agent_ref, speaking_seconds
from vap_console.api import VapClient
from vap_console.api.realtime import AgentSocket, ServerEvent
from vap_console.sandbox.clock import VirtualClock
from vap_console.sandbox.server import RunningSandbox

__all__ = ["PRIYA_GREETING", "Reader", "agent_ref", "client_for", "on_call", "speaking_seconds"]


def client_for(sandbox: RunningSandbox, key: str = "agent") -> VapClient:
    return VapClient(sandbox.base_url, f"sk_sandbox_{key}", transport=httpx.AsyncHTTPTransport(verify=False))


class Reader:
    """The client's events of one call, read as the test asks for them."""

    def __init__(self, call: AgentSocket, clock: VirtualClock) -> None:
        self.call = call
        self.clock = clock
        self.events: list[ServerEvent] = []
        self._it: AsyncIterator[ServerEvent] = call.events()

    async def next(self, timeout: float = 10) -> ServerEvent:
        event = await asyncio.wait_for(self._it.__anext__(), timeout)
        self.events.append(event)
        return event

    async def until(self, kind: str, timeout: float = 10) -> list[ServerEvent]:
        seen: list[ServerEvent] = []
        while True:
            seen.append(await self.next(timeout))
            if seen[-1].type == kind:
                return seen

    async def played(self, text: str) -> list[ServerEvent]:
        """From agent_start_talking: the clock moved on by the time ``text`` takes to say."""
        seen = await self.until("agent_start_talking")
        self.clock.advance(speaking_seconds(text))
        return seen + await self.until("agent_stop_talking")

    async def to_end(self, timeout: float = 10) -> tuple[list[ServerEvent], Any]:
        """Every event to the socket's close, and the error it ended with (None: a normal end)."""
        seen: list[ServerEvent] = []
        try:
            while True:
                seen.append(await self.next(timeout))
        except StopAsyncIteration:
            return seen, None
        except Exception as error:  # noqa: BLE001 - the close's error is what the test checks
            return seen, error


@asynccontextmanager
async def on_call(sandbox: RunningSandbox, agent: str = "Priya", key: str = "agent") -> AsyncIterator[AgentSocket]:
    """A call with ``agent`` (by its name's start): registered, connected, hung up on leaving."""
    async with client_for(sandbox, key) as client:
        registered = await client.register_call(agent_ref(sandbox, agent, key))
        async with client.agent_socket(registered) as call:
            yield call
