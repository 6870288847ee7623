"""A slow answer is waited for, a stalled one is not: over a real socket, with httpx's pool and
timeouts in play (tests/slow_server.py). Deadlines are scaled down; the ratios are the defaults'."""

from __future__ import annotations

import time

import pytest

from tests.net import free_port
from tests.slow_server import Behaviour, Close, Slow, Stall, UnkindServer
from vap_console.api import VapClient, errors
from vap_console.sandbox.app import create_app
from vap_console.sandbox.keys import DEFAULT_KEY

PATH = "/v1/variables"


async def _list(behaviour: Behaviour, **options: float) -> tuple[UnkindServer, object]:
    """List the variables once through a server that does ``behaviour`` on that path: the page,
    or the ApiError raised."""
    async with UnkindServer(create_app(), {PATH: behaviour}) as server, VapClient(
        server.url, DEFAULT_KEY, max_retries=0, **options
    ) as client:
        try:
            return server, await client.list_variables()
        except errors.ApiError as error:
            return server, error


async def test_an_answer_slower_than_a_read_timeout_lands_within_the_attempts_deadline() -> None:
    # As a 20 s answer against the defaults (10 s reads, 30 s attempts): the head's wait is the
    # attempt's, not one read's, so the answer is not cut off and asked for again and again.
    server, page = await _list(Slow(1.0), timeout=0.3, request_timeout=10)
    assert not isinstance(page, errors.ApiError), page
    assert server.asked[PATH] == 1


async def test_a_body_that_stalls_after_its_head_ends_after_the_read_timeout() -> None:
    started = time.monotonic()
    _, error = await _list(Stall(), timeout=0.3, request_timeout=30)
    took = time.monotonic() - started
    assert isinstance(error, errors.TimedOut) and error.status == 200
    assert "stopped arriving" in str(error)
    # Ended by the 0.3 s read timeout, long before the 30 s deadline.
    assert took < 15


async def test_an_answer_that_never_comes_ends_at_the_attempts_deadline() -> None:
    _, error = await _list(Slow(3600), timeout=0.2, request_timeout=0.8)
    assert isinstance(error, errors.TimedOut)
    assert "within 0.8 s" in str(error)


async def test_a_refused_connection_is_the_server_out_of_reach_a_closed_one_is_not() -> None:
    # What the console's connection state rests on: offline only when nothing could connect.
    _, closed = await _list(Close())
    assert isinstance(closed, errors.ConnectionFailed) and not closed.unreachable
    async with VapClient(f"http://127.0.0.1:{free_port()}", DEFAULT_KEY, max_retries=0) as client:
        with pytest.raises(errors.ConnectionFailed) as refused:
            await client.list_variables()
    assert refused.value.unreachable
