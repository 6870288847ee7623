"""Retry rules: what is resent, after how long, and what never is."""

from __future__ import annotations

from datetime import UTC

import httpx
import pytest

from tests.api.conftest import error_body, json_response, wire_rental, wire_variable
from vap_console.api import RentalApplication, errors, new_idempotency_key
from vap_console.api.models import ToolCreate

PAGE = {"items": [wire_variable()], "count": 1}


def _plain_rental() -> RentalApplication:
    return RentalApplication(requested_number="+919876500001")


def _dropped(request: httpx.Request) -> httpx.Response:
    raise httpx.RemoteProtocolError("Server disconnected without sending a response.", request=request)


async def test_get_is_retried_after_429_waiting_retry_after(make_client, sleeps):
    client, server = make_client(
        json_response(429, error_body("rate_limited", limit=600, current=601), {"Retry-After": "3"}),
        json_response(200, PAGE),
    )
    page = await client.list_variables()
    assert page.items[0].name == "customer_name"
    assert len(server.requests) == 2
    assert sleeps.waits == [3.0]


async def test_retry_after_is_capped_at_60_seconds(make_client, sleeps):
    client, _ = make_client(
        json_response(429, error_body("rate_limited"), {"Retry-After": "3600"}),
        json_response(200, PAGE),
    )
    await client.list_variables()
    assert sleeps.waits == [60.0]


async def test_get_is_retried_after_502_and_503_with_growing_jittered_backoff(make_client, sleeps):
    client, server = make_client(
        json_response(502, error_body("telephony_sandbox_error")),
        httpx.Response(503, text="upstream unavailable"),
        json_response(200, PAGE),
        max_retries=2,
        backoff_base=0.5,
    )
    await client.list_variables()
    assert len(server.requests) == 3
    first, second = sleeps.waits
    # Equal jitter: half of each exponential step is fixed, half random.
    assert 0.25 <= first <= 0.5
    assert 0.5 <= second <= 1.0


async def test_jitter_spreads_the_waits(make_client, sleeps):
    for _ in range(20):
        client, _ = make_client(httpx.Response(502), json_response(200, PAGE))
        await client.list_variables()
    assert len(sleeps.waits) == 20
    assert len(set(sleeps.waits)) > 10


async def test_backoff_waits_spread_over_the_upper_half_of_each_step(make_client, sleeps):
    # "Equal jitter": half the step fixed, the other half uniformly random, so clients that failed
    # together do not come back together.
    for _ in range(200):
        client, _ = make_client(httpx.Response(502), json_response(200, PAGE), backoff_base=1.0)
        await client.list_variables()
    assert all(0.5 <= w <= 1.0 for w in sleeps.waits)
    assert min(sleeps.waits) < 0.6 and max(sleeps.waits) > 0.9


async def test_backoff_doubles_with_each_retry(make_client, sleeps):
    client, _ = make_client(*[httpx.Response(502)] * 4, json_response(200, PAGE), max_retries=4, backoff_base=1.0)
    await client.list_variables()
    assert len(sleeps.waits) == 4
    for attempt, wait in enumerate(sleeps.waits):
        assert 2**attempt / 2 <= wait <= 2**attempt, (attempt, wait)


async def test_get_gives_up_after_max_retries_with_the_last_error(make_client, sleeps):
    client, server = make_client(json_response(502, error_body("telephony_sandbox_error")), max_retries=2)
    with pytest.raises(errors.CarrierError):
        await client.list_variables()
    assert len(server.requests) == 3
    assert len(sleeps.waits) == 2


async def test_get_is_retried_on_connection_errors_and_timeouts(make_client):
    client, server = make_client(
        httpx.ConnectError("Connection refused"),
        httpx.ReadTimeout("timed out"),
        json_response(200, PAGE),
    )
    assert (await client.list_variables()).count == 1
    assert len(server.requests) == 3


async def test_get_connection_failure_after_retries_is_connection_failed(make_client):
    client, server = make_client(httpx.ConnectError("Connection refused"))
    with pytest.raises(errors.ConnectionFailed) as caught:
        await client.list_voices()
    assert len(server.requests) == 3
    assert "Connection refused" in str(caught.value)


async def test_get_timeout_after_retries_is_timed_out(make_client):
    client, _ = make_client(httpx.ReadTimeout("timed out"))
    with pytest.raises(errors.TimedOut):
        await client.list_templates()


async def test_401_and_422_are_not_retried(make_client):
    client, server = make_client(json_response(401, error_body("unauthorized")))
    with pytest.raises(errors.Unauthorized):
        await client.list_voices()
    assert len(server.requests) == 1


async def test_503_not_configured_is_not_retried_it_will_not_change(make_client):
    client, server = make_client(json_response(503, error_body("telephony_not_configured")))
    with pytest.raises(errors.NotConfigured):
        await client.rental_requirements("IN")
    assert len(server.requests) == 1


async def test_post_rental_is_not_resent_after_502(make_client, sleeps):
    client, server = make_client(json_response(502, error_body("telephony_sandbox_error", "carrier down")))
    with pytest.raises(errors.CarrierError) as caught:
        await client.rent_number(_plain_rental())
    assert len(server.requests) == 1
    assert sleeps.waits == []
    # The error says how to resend the same submission.
    assert caught.value.idempotency_key == server.requests[0].headers["Idempotency-Key"]


async def test_post_is_retried_on_429_with_the_same_idempotency_key(make_client, sleeps):
    client, server = make_client(
        json_response(429, error_body("rate_limited"), {"Retry-After": "2"}),
        json_response(201, wire_rental()),
    )
    rental = await client.rent_number(_plain_rental())
    assert rental.status == "kyc_submitted"
    keys = [r.headers["Idempotency-Key"] for r in server.requests]
    assert len(keys) == 2 and keys[0] == keys[1]
    assert sleeps.waits == [2.0]
    assert server.requests[0].content == server.requests[1].content == b'{"requestedNumber":"+919876500001"}'


async def test_post_dropped_after_sending_is_outcome_unknown_and_sent_once(make_client, sleeps):
    client, server = make_client(_dropped, json_response(201, wire_rental()))
    with pytest.raises(errors.OutcomeUnknown) as caught:
        await client.rent_number(_plain_rental())
    assert len(server.requests) == 1
    assert sleeps.waits == []
    assert "may have taken effect" in str(caught.value)
    assert caught.value.idempotency_key == server.requests[0].headers["Idempotency-Key"]


async def test_post_read_timeout_is_outcome_unknown(make_client):
    client, server = make_client(httpx.ReadTimeout("timed out"))
    with pytest.raises(errors.OutcomeUnknown):
        await client.start_webcall("ua_support")
    assert len(server.requests) == 1


async def test_post_connect_error_is_connection_failed_safe_to_resend(make_client):
    client, server = make_client(httpx.ConnectError("Connection refused"))
    with pytest.raises(errors.ConnectionFailed):
        await client.create_tool(ToolCreate.model_validate(
            {"name": "t", "description": "d", "kind": "before_call", "config": {}}))
    assert len(server.requests) == 1


async def test_every_post_carries_a_fresh_idempotency_key(make_client):
    client, server = make_client(json_response(201, wire_rental()))
    await client.rent_number(_plain_rental())
    await client.rent_number(_plain_rental())
    first, second = (r.headers["Idempotency-Key"] for r in server.requests)
    assert first != second
    assert len(first) == 36


async def test_the_callers_idempotency_key_is_reused(make_client):
    key = new_idempotency_key()
    client, server = make_client(_dropped, json_response(201, wire_rental()))
    with pytest.raises(errors.OutcomeUnknown):
        await client.rent_number(_plain_rental(), idempotency_key=key)
    rental = await client.rent_number(_plain_rental(), idempotency_key=key)
    assert rental.id
    assert [r.headers["Idempotency-Key"] for r in server.requests] == [key, key]


async def test_delete_retried_after_a_lost_answer_treats_404_as_done(make_client):
    client, server = make_client(
        httpx.ReadTimeout("timed out"),
        json_response(404, error_body("agent_tool_not_found")),
    )
    assert await client.delete_tool("tool_123") is None
    assert [r.method for r in server.requests] == ["DELETE", "DELETE"]


@pytest.mark.parametrize("first", [
    json_response(502, error_body("telephony_sandbox_error")),
    httpx.Response(503, text="upstream unavailable"),
])
async def test_delete_answered_by_a_gateway_error_then_404_is_done(make_client, first):
    # A 502/503 comes from between us and the server: the DELETE may have got through.
    client, server = make_client(first, json_response(404, error_body("agent_tool_not_found")))
    assert await client.delete_tool("tool_123") is None
    assert [r.method for r in server.requests] == ["DELETE", "DELETE"]


@pytest.mark.parametrize("status", [400, 403, 409])
async def test_delete_after_a_lost_answer_is_done_only_on_a_404(make_client, status):
    # Only a 404 says the tool is gone; another refusal is reported, whatever code it carries.
    client, _ = make_client(httpx.ReadTimeout("timed out"),
                            json_response(status, error_body("agent_tool_not_found")))
    with pytest.raises(errors.ToolNotFound) as caught:
        await client.delete_tool("tool_123")
    assert caught.value.status == status


async def test_delete_that_got_through_once_stays_done_after_a_refused_connection(make_client):
    # The first try may have deleted it; the second never connected; the third's 404 means gone.
    client, server = make_client(httpx.ReadTimeout("timed out"), httpx.ConnectError("Connection refused"),
                                 json_response(404, error_body("agent_tool_not_found")))
    assert await client.delete_tool("tool_123") is None
    assert len(server.requests) == 3


async def test_a_get_whose_answer_was_lost_then_404_is_not_found(make_client):
    # Only a DELETE's 404 after a lost answer means "done"; a GET's means there is no such thing.
    client, server = make_client(httpx.ReadTimeout("timed out"), json_response(404, error_body("not_found")))
    with pytest.raises(errors.NotFound):
        await client.get_rental("6f1c1c1e-9a57-4c1e-8f50-0c0d0a0b0c01")
    assert [r.method for r in server.requests] == ["GET", "GET"]


async def test_delete_that_never_connected_then_404_is_not_found(make_client):
    # Nothing reached the server the first time: the 404 means there was no such tool.
    client, server = make_client(
        httpx.ConnectError("Connection refused"),
        json_response(404, error_body("agent_tool_not_found")),
    )
    with pytest.raises(errors.ToolNotFound):
        await client.delete_tool("tool_123")
    assert len(server.requests) == 2


async def test_delete_of_an_unknown_tool_is_tool_not_found(make_client):
    client, _ = make_client(json_response(404, error_body("agent_tool_not_found")))
    with pytest.raises(errors.ToolNotFound):
        await client.delete_tool("tool_123")


async def test_retry_after_as_an_http_date_is_honoured(make_client, sleeps):
    from datetime import datetime, timedelta
    from email.utils import format_datetime

    when = format_datetime(datetime.now(UTC) + timedelta(seconds=30), usegmt=True)
    client, _ = make_client(json_response(503, {"error": "busy", "code": "overloaded"}, {"Retry-After": when}),
                            json_response(200, PAGE))
    await client.list_variables()
    [wait] = sleeps.waits
    assert 27 <= wait <= 30


def test_parse_retry_after():
    from vap_console.api.answers import parse_retry_after

    assert parse_retry_after("7") == 7.0
    assert parse_retry_after(" 0 ") == 0.0
    assert parse_retry_after("-3") == 0.0
    assert parse_retry_after("Wed, 21 Oct 2015 07:28:00 GMT", now=1445412470.0) == 10.0
    assert parse_retry_after("soon") is None
    assert parse_retry_after(None) is None


async def test_each_retry_is_logged_without_secrets(make_client, caplog):
    import logging

    caplog.set_level(logging.INFO, logger="vap_console.api.client")
    client, _ = make_client(httpx.Response(502), json_response(200, PAGE))
    await client.list_variables()
    assert "GET /v1/variables failed (server_error); retry 1 of 2" in caplog.text


async def test_base_url_with_a_path_prefix_keeps_it(make_client):
    from tests.api.conftest import API_KEY, Recorder
    from vap_console.api import VapClient

    recorder = Recorder([json_response(200, PAGE)])
    async with VapClient("https://gw.example.test/vap/", API_KEY, transport=recorder.transport) as client:
        await client.list_variables()
    assert str(recorder.requests[0].url) == "https://gw.example.test/vap/v1/variables"


async def test_post_connect_timeout_is_timed_out_and_says_nothing_was_sent(make_client):
    client, server = make_client(httpx.ConnectTimeout("connect timed out"))
    with pytest.raises(errors.TimedOut) as caught:
        await client.rent_number(_plain_rental())
    assert not isinstance(caught.value, errors.OutcomeUnknown)
    assert "was not sent" in str(caught.value)
    assert len(server.requests) == 1


async def test_max_retries_zero_sends_once(make_client, sleeps):
    client, server = make_client(httpx.Response(503), max_retries=0)
    with pytest.raises(errors.ServerError):
        await client.list_variables()
    assert len(server.requests) == 1 and sleeps.waits == []
