"""Helpers for the tests of `vap sandbox serve --call-tools`: a sandbox that calls tools, the
loopback webhook (tests/webhook.py), the seeded lookup_customer pointed at it, and one socket call
to Arjun (whose greeting says lookup_customer's ``customer_name``)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from tests.webhook import Webhook
from vap_console.sandbox.clock import VirtualClock
from vap_console.sandbox.server import RunningSandbox, start_in_thread
from vap_console.sandbox.voice.tool_calls import ToolCalling

from .socket_calls import account_of, dialled, instant, register

ARJUN = ("Hello {name}, this is Priya from Sharma Dental Clinic. You enquired about a flat with us. "
         "Is this a good time to talk?")
STORED_TOKEN = "sandbox-crm-token"  # the seeded lookup_customer's credential


@pytest.fixture
def hook() -> Iterator[Webhook]:
    with Webhook() as server:
        yield server


@pytest.fixture
def calling(sandbox_clock: VirtualClock) -> Iterator[RunningSandbox]:
    with start_in_thread(clock=sandbox_clock, call_tools=ToolCalling(), faults=instant()) as running:
        yield running


def point_lookup_at(sandbox: RunningSandbox, url: str, timeout_ms: int = 2000, **config: Any) -> None:
    tool = next(t for t in account_of(sandbox).tools.values() if t.name == "lookup_customer")
    tool.config = {**tool.config, "url": url, "timeoutMs": timeout_ms, **config}


async def greeting_and_record(sandbox: RunningSandbox) -> tuple[str, dict[str, Any]]:
    """One socket call to Arjun: what it greeted with, and its record's tool calls and id."""
    registered = await register(sandbox, "Arjun")
    async with dialled(sandbox, registered["access_token"]) as call:
        await call.until("agent_start_talking", timeout=60)
        call.clock.advance(30)  # longer than the greeting takes to say
        events = await call.until("agent_stop_talking")
    record = account_of(sandbox).calls[registered["call_id"]]
    return events[-2]["text"], {"toolCalls": record.tool_calls, "id": registered["call_id"]}
