"""Sending a tool's request to its webhook (api/tool_call.py builds it) and keeping what came back.

The API client's sending rules, for someone else's server (DESIGN §9):

* never the platform's API key: a client of its own, with no auth but the tool's own header;
* no redirect followed (a 3xx is an answer, its Location kept: the platform does not follow it
  either, and a credential must not travel on to another host);
* one deadline, the tool's ``timeoutMs``, for everything: connecting, sending, the answer's head
  and its whole body (the platform gives the webhook no more);
* the body read up to ``limits.TOOL_ANSWER`` bytes, Content-Length checked first, counted while
  streaming; what is over it is not read (a 10 MB answer costs 1 MiB of memory, no more);
* ``waitForResponse: false``: the request is sent and the answer not waited for (the connection is
  dropped once the body has gone out, as a fire-and-forget call would).

Every failure is kept in the answer (``failure``, in words), never raised: a webhook that is slow,
huge, rude or down is what `vap tools try` is there to report.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import httpx

from vap_console import __version__
from vap_console.api.limits import TOOL_ANSWER
from vap_console.api.sending import _close_quietly, _content_length
from vap_console.api.tool_call import ToolRequest

USER_AGENT = f"vap-console/{__version__} (tools try)"


@dataclass
class WebhookAnswer:
    """What came back from one webhook call (status None: no answer)."""

    status: int | None = None
    reason: str = ""
    headers: list[tuple[str, str]] = field(default_factory=list)
    body: bytes = b""
    # Bytes of the body as far as known: those read, or Content-Length when it was over the cap.
    size: int = 0
    over_cap: bool = False
    ms: float = 0.0
    timed_out: bool = False
    failure: str | None = None
    waited: bool = True
    sent: bool = False

    @property
    def content_type(self) -> str:
        return next((v for n, v in self.headers if n.lower() == "content-type"), "")

    @property
    def location(self) -> str | None:
        return next((v for n, v in self.headers if n.lower() == "location"), None)


def webhook_client(transport: httpx.AsyncBaseTransport | None = None, *, plain: bool = False) -> httpx.AsyncClient:
    """A client for tool webhooks only: no platform key, no redirects, deadlines set per call.

    ``plain``: every URL it will be given is http://, so no TLS and no CA bundle to load (that
    load is most of a short try's start-up: ~30 ms on a quiet machine, 300 on a busy one). Its
    requests are refused should an https:// URL come its way after all."""
    if transport is None and plain:
        transport = _PlainOnly()
    return httpx.AsyncClient(follow_redirects=False, timeout=None, transport=transport,
                             headers={"User-Agent": USER_AGENT})


async def send(
    request: ToolRequest,
    client: httpx.AsyncClient,
    *,
    max_bytes: int = TOOL_ANSWER.high,
    clock: Callable[[], float] = time.perf_counter,
) -> WebhookAnswer:
    """Send ``request`` within its ``timeoutMs``; what came back, or what went wrong, in words."""
    answer = WebhookAnswer(waited=request.wait_for_response)
    body_out = asyncio.Event()

    async def trace(name: str, info: dict[str, Any]) -> None:
        if name.endswith("send_request_body.complete"):
            body_out.set()

    try:
        outgoing = client.build_request(
            request.method, request.url, params=list(request.params) or None,
            headers=[(n.encode(), v.encode()) for n, v in request.send_headers()],
            content=request.body.encode() if request.body else None, extensions={"trace": trace},
        )
    except (httpx.InvalidURL, ValueError, TypeError) as exc:
        answer.failure = f"the request cannot be made: {exc}"
        return answer
    started = clock()
    try:
        async with asyncio.timeout(request.timeout_ms / 1000):
            if request.wait_for_response:
                await _exchange(client, outgoing, answer, max_bytes)
            else:
                await _fire(client, outgoing, answer, body_out)
    except TimeoutError:
        answer.timed_out = True
        answer.sent = answer.sent or body_out.is_set()
        answer.failure = (f"no complete answer within {request.timeout_ms} ms (timeoutMs)" if answer.sent
                          else f"not even sent within {request.timeout_ms} ms (timeoutMs)")
    except httpx.ConnectError as exc:
        answer.failure = f"could not connect to {outgoing.url.host}:{outgoing.url.port or _port(outgoing)} ({exc})"
    except (httpx.HTTPError, httpx.StreamError, OSError) as exc:
        answer.failure = f"the exchange broke off: {type(exc).__name__}: {str(exc) or 'no detail'}"
    answer.ms = (clock() - started) * 1000
    return answer


async def _exchange(client: httpx.AsyncClient, outgoing: httpx.Request, answer: WebhookAnswer,
                    max_bytes: int) -> None:
    response = await client.send(outgoing, stream=True)
    answer.sent = True
    try:
        answer.status = response.status_code
        answer.reason = response.reason_phrase
        answer.headers = [(n, v) for n, v in response.headers.multi_items()]
        declared = _content_length(response)
        if declared is not None and declared > max_bytes:
            answer.over_cap, answer.size = True, declared
            return
        data = bytearray()
        async for chunk in response.aiter_bytes():
            if len(data) + len(chunk) > max_bytes:
                data += chunk[: max_bytes - len(data)]
                answer.over_cap = True
                break
            data += chunk
        answer.body = bytes(data)
        answer.size = len(data)
    finally:
        await _close_quietly(response)


async def _fire(client: httpx.AsyncClient, outgoing: httpx.Request, answer: WebhookAnswer,
                body_out: asyncio.Event) -> None:
    """Send and stop once the request has gone out whole (or an answer came before that)."""
    exchange = asyncio.ensure_future(client.send(outgoing, stream=True))
    waiter = asyncio.ensure_future(body_out.wait())
    try:
        await asyncio.wait({exchange, waiter}, return_when=asyncio.FIRST_COMPLETED)
    finally:
        waiter.cancel()
    if exchange.done():
        response = exchange.result()  # raises what broke the exchange
        answer.status, answer.reason = response.status_code, response.reason_phrase
        await _close_quietly(response)
    else:
        exchange.cancel()
        await asyncio.gather(exchange, return_exceptions=True)
    answer.sent = True


class _PlainOnly(httpx.AsyncBaseTransport):
    """http:// without a CA bundle loaded; an https:// request is refused, never sent unchecked."""

    def __init__(self) -> None:
        self._inner = httpx.AsyncHTTPTransport(verify=False)

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        if request.url.scheme != "http":
            raise httpx.UnsupportedProtocol(f"{request.url.scheme}:// on a client made for http:// only")
        return await self._inner.handle_async_request(request)

    async def aclose(self) -> None:
        await self._inner.aclose()


def plain_only(requests: list[ToolRequest]) -> bool:
    """Whether every request goes to an http:// URL (then no TLS is needed: webhook_client's plain_only)."""
    return all(r.url.lower().startswith("http://") for r in requests)


def full_url(request: ToolRequest) -> str:
    """The URL with its query as it goes out (params encoded as httpx encodes them)."""
    try:
        return str(httpx.URL(request.url).copy_merge_params(list(request.params)))
    except (httpx.InvalidURL, ValueError, TypeError):
        return request.url


def _port(request: httpx.Request) -> int:
    return 443 if request.url.scheme == "https" else 80
