"""Every answer hands its connection back, read or not: otherwise a pool of a few connections runs
dry after a few calls and the console stops talking to the server ("no connection free")."""

from __future__ import annotations

from collections.abc import AsyncIterator

import httpx
import pytest

from tests.api.conftest import API_KEY, BASE_URL
from vap_console.api import errors
from vap_console.api.client import VapClient


class Pool(httpx.AsyncBaseTransport):
    """A pool of ``size`` connections: one is free again only once its response is closed,
    as with httpx's own pool (a streamed response holds its connection until then)."""

    def __init__(self, size: int, status: int, body: bytes, headers: dict[str, str] | None = None) -> None:
        self.free = size
        self.status, self.body, self.headers = status, body, headers or {}
        self.requests = 0

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        if self.free == 0:
            raise httpx.PoolTimeout("no connection free in the pool", request=request)
        self.free -= 1
        self.requests += 1
        return httpx.Response(self.status, headers=self.headers, stream=_Held(self))


class _Held(httpx.AsyncByteStream):
    def __init__(self, pool: Pool) -> None:
        self.pool = pool
        self.closed = False

    async def __aiter__(self) -> AsyncIterator[bytes]:
        yield self.pool.body

    async def aclose(self) -> None:
        if not self.closed:
            self.closed = True
            self.pool.free += 1


async def _client(pool: Pool) -> VapClient:
    return VapClient(BASE_URL, API_KEY, transport=pool, max_retries=0)


async def test_deletes_whose_answers_are_not_read_keep_working_on_a_pool_of_two() -> None:
    pool = Pool(2, 200, b'{"deleted": true}', {"content-type": "application/json"})
    client = await _client(pool)
    try:
        for n in range(10):
            await client.delete_tool(f"tool_{n}")
    finally:
        await client.aclose()
    assert pool.requests == 10 and pool.free == 2


@pytest.mark.parametrize(("status", "headers"), [
    (302, {"location": "https://elsewhere.example/"}),  # a redirect's body is never read
    (500, {"content-length": str(2 * 1024 * 1024)}),  # an error body too large to read
])
async def test_answers_left_unread_do_not_use_up_the_pool(status, headers) -> None:
    body = b"x" * int(headers.get("content-length", "10"))
    pool = Pool(2, status, body, {"content-type": "application/json", **headers})
    client = await _client(pool)
    try:
        for _ in range(6):
            with pytest.raises(errors.ApiError) as caught:
                await client.list_variables()
            assert caught.value.status == status  # the server's answer, not "could not connect"
    finally:
        await client.aclose()
    assert pool.free == 2


async def test_a_body_over_the_limit_gives_its_connection_back() -> None:
    pool = Pool(1, 200, b"[" + b"1," * 600 + b"1]", {"content-type": "application/json"})
    client = await _client(pool)
    client.max_response_bytes = 100
    try:
        for _ in range(3):
            with pytest.raises(errors.ApiError) as caught:
                await client.list_variables()
            assert not isinstance(caught.value, errors.ConnectionFailed)
    finally:
        await client.aclose()
    assert pool.free == 1



class _BreaksOnClose(httpx.AsyncByteStream):
    def __init__(self, body: bytes) -> None:
        self.body = body

    async def __aiter__(self) -> AsyncIterator[bytes]:
        yield self.body

    async def aclose(self) -> None:
        raise httpx.ReadError("connection reset while closing")


async def test_a_connection_that_breaks_while_closing_does_not_undo_the_answer() -> None:
    async def answer(request: httpx.Request) -> httpx.Response:
        return httpx.Response(204, stream=_BreaksOnClose(b""))

    client = VapClient(BASE_URL, API_KEY, transport=httpx.MockTransport(answer), max_retries=0)
    try:
        assert await client.delete_tool("tool_1") is None  # deleted: the broken close changes nothing
    finally:
        await client.aclose()
