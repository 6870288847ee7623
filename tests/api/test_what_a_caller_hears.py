"""What the console and `vap … --json` hear from a call besides its result: each retry's wait as it
begins, the answer exactly as it came, and a plain refusal once the client is closed."""

from __future__ import annotations

import httpx
import pytest

from tests.api.conftest import API_KEY, error_body, json_response, wire_variable
from vap_console.api import errors

PAGE = {"items": [wire_variable()], "count": 1}


async def test_each_retry_wait_is_told_as_it_begins_with_the_failure_and_the_delay(make_client, sleeps):
    client, _ = make_client(
        json_response(429, error_body("rate_limited"), {"Retry-After": "3"}),
        json_response(502, error_body("telephony_sandbox_error"), {"Retry-After": "1"}),
        json_response(200, PAGE),
    )
    heard: list[tuple[type, float, int]] = []
    client.on_wait = lambda failure, delay: heard.append((type(failure), delay, len(sleeps.waits)))
    await client.list_variables()
    # Told before each wait begins (none waited yet, then one), with the server's Retry-After.
    assert heard == [(errors.RateLimited, 3.0, 0), (errors.CarrierError, 1.0, 1)]


async def test_the_last_answer_is_the_body_and_request_id_as_they_came(make_client):
    raw = b'{"items": [], "count": 0, "extra": "kept as sent"}'
    client, _ = make_client(httpx.Response(200, content=raw, headers={
        "content-type": "application/json", "x-request-id": "req_42"}))
    await client.list_variables()
    answer = client.last_answer
    assert answer is not None
    assert (answer.status, bytes(answer.body), answer.request_id) == (200, raw, "req_42")


async def test_a_failed_call_leaves_the_last_good_answer_as_it_was(make_client):
    client, _ = make_client(json_response(200, PAGE), json_response(404, error_body("not_found")), max_retries=0)
    await client.list_variables()
    first = client.last_answer
    with pytest.raises(errors.ApiError):
        await client.list_variables()
    assert client.last_answer is first


async def test_a_call_on_a_closed_client_is_refused_without_sending(make_client):
    client, server = make_client(json_response(200, PAGE))
    await client.aclose()
    with pytest.raises(errors.ApiError) as caught:
        await client.list_variables()
    assert caught.value.code == "client_closed"
    assert "GET /v1/variables was not sent: this client is closed" in str(caught.value)
    assert server.requests == [] and API_KEY not in str(caught.value)


async def test_a_timeout_from_below_is_not_blamed_on_the_calls_deadline(make_client):
    # The operating system's own timeout (a TLS handshake, say), long before the 30 s deadline.
    client, _ = make_client(TimeoutError("handshake timed out"), max_retries=0)
    with pytest.raises(errors.TimedOut) as caught:
        await client.list_variables()
    assert "within 30 s" not in str(caught.value)
