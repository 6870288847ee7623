"""A transport for placing a call whose answer is lost, shared by the console's and the CLI's tests."""

from __future__ import annotations

import httpx


class LoseCallAnswer(httpx.AsyncBaseTransport):
    """POST /v1/calls reaches the sandbox, which places the call; its answer is lost on the way back."""

    def __init__(self, inner: httpx.AsyncBaseTransport) -> None:
        self.inner = inner
        self.posts = 0

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        if request.method == "POST" and request.url.path == "/v1/calls":
            self.posts += 1
            await (await self.inner.handle_async_request(request)).aread()
            raise httpx.ReadError("connection reset by peer")
        return await self.inner.handle_async_request(request)
