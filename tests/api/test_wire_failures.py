"""Unusable answers over a real socket: the same errors when httpcore and h11 parse the bytes."""

from __future__ import annotations

import pytest

from tests.api.conftest import API_KEY
from tests.api.loopback import RawServer
from vap_console.api import VapClient, errors


def _http(status: str, body: bytes, *headers: str) -> bytes:
    head = [f"HTTP/1.1 {status}", f"Content-Length: {len(body)}", "Connection: close", *headers]
    return ("\r\n".join(head) + "\r\n\r\n").encode() + body


async def _failure(server: RawServer, call: str = "list_variables", **kwargs) -> errors.ApiError:
    async with VapClient(server.url, API_KEY, max_retries=0, **kwargs) as client:
        with pytest.raises(errors.ApiError) as caught:
            await (getattr(client, call)("ua_x") if call == "start_webcall" else getattr(client, call)())
    return caught.value


async def test_a_body_that_does_not_match_its_content_encoding():
    answer = _http("200 OK", b'{"items": [], "count": 0}', "Content-Type: application/json",
                   "Content-Encoding: gzip")
    with RawServer(answer) as server:
        get = await _failure(server)
        post = await _failure(server, "start_webcall")
    assert type(get) is errors.UnexpectedResponse and get.status == 200
    assert "could not be decoded" in str(get)
    assert type(post) is errors.UnexpectedResponse and post.maybe_applied and post.idempotency_key


async def test_a_malformed_status_line_is_a_connection_failure_or_outcome_unknown():
    with RawServer(b"HTTP/1.1 OK-ish\r\nwhatever\r\n\r\n") as server:
        get = await _failure(server)
        post = await _failure(server, "start_webcall")
    assert type(get) is errors.ConnectionFailed
    assert type(post) is errors.OutcomeUnknown and post.maybe_applied


async def test_an_html_page_over_the_wire():
    answer = _http("200 OK", b"<html>Please sign in</html>", "Content-Type: text/html")
    with RawServer(answer) as server:
        error = await _failure(server)
    assert type(error) is errors.UnexpectedResponse
    assert "not JSON (text/html, 27 bytes" in str(error)


async def test_a_body_trickling_over_the_wire_ends_at_the_deadline():
    # 200 bytes a byte at a time, 20 ms apart: 4 s to arrive, against a 0.3 s deadline (httpx's
    # own timeout, per read, would never fire). One server each: neither waits for the other.
    answer = _http("200 OK", b'{"items": [' + b" " * 180 + b'], "count": 0}',
                   "Content-Type: application/json")
    with RawServer(answer, trickle=0.02) as first, RawServer(answer, trickle=0.02) as second:
        get = await _failure(first, request_timeout=0.3)
        post = await _failure(second, "start_webcall", request_timeout=0.3)
    assert type(get) is errors.TimedOut and get.status == 200
    assert type(post) is errors.OutcomeUnknown and post.status == 200
