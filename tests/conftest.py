"""Shared fixtures: a sandbox on a virtual clock, in-process or served on loopback.

Stable for every test directory: ``sandbox_clock`` (a VirtualClock at the sandbox EPOCH; advance
it to move rentals on), ``sandbox_app`` (the ASGI app on that clock, state in
``sandbox_app.state.sandbox``), ``sandbox_transport`` (an httpx.ASGITransport over it) and
``live_sandbox`` (the same app served by uvicorn on a free loopback port: ``.base_url``).
"""

from __future__ import annotations

import os
from collections.abc import Iterator

import httpx
import pytest

from vap_console.sandbox.app import create_app
from vap_console.sandbox.clock import VirtualClock
from vap_console.sandbox.server import RunningSandbox, start_in_thread

# pytest-xdist's workers run with COLUMNS=80 and LINES=24 set. Textual reads them before asking
# the terminal, so a console the tests start in a 120x36 tmux pane would lay itself out at 80x24.
for _name in ("COLUMNS", "LINES"):
    os.environ.pop(_name, None)


@pytest.fixture
def sandbox_clock() -> VirtualClock:
    return VirtualClock()


@pytest.fixture
def sandbox_app(sandbox_clock: VirtualClock):  # a Starlette app
    return create_app(clock=sandbox_clock)


@pytest.fixture
def sandbox_transport(sandbox_app) -> httpx.ASGITransport:
    return httpx.ASGITransport(app=sandbox_app)


@pytest.fixture
def live_sandbox(sandbox_clock: VirtualClock) -> Iterator[RunningSandbox]:
    with start_in_thread(clock=sandbox_clock) as running:
        yield running
