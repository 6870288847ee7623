"""Answers the client cannot use are UnexpectedResponse on every method, with a message a person can
act on; a POST whose 2xx answer is unusable says it may have taken effect and carries its key;
protocol failures are ApiErrors too, never a raw httpx, h11 or decoding exception."""

from __future__ import annotations

import gzip
import json

import h11
import httpx
import pytest

from tests.api.conftest import API_KEY, BASE_URL, error_body, json_response, streamed
from tests.api.methods import METHODS, WITH_BODY, public_methods
from vap_console.api import errors
from vap_console.api.models import AgentCreate


def test_the_method_table_covers_every_public_method():
    assert {m.name for m in METHODS} == public_methods()


def _fresh(make):
    """A handler building a new answer per request (a streamed body can only be read once)."""
    return lambda request: make()


UNUSABLE_2XX = {
    "html": (lambda: httpx.Response(200, html="<html><body>Sign in</body></html>"),
             ["not JSON", "text/html"]),
    "empty": (lambda: httpx.Response(200), ["empty"]),
    "empty json": (lambda: httpx.Response(201, headers={"content-type": "application/json"}),
                   ["empty", "application/json"]),
    "truncated json": (lambda: streamed(200, b'{"items": [{"id": "x", "na',
                                        headers={"content-type": "application/json"}),
                       ["not JSON", "EOF while parsing"]),
    "invalid utf-8": (lambda: streamed(200, b'{"items": [], "count": 0, "x": "\xff\xfe"}',
                                       headers={"content-type": "application/json"}),
                      ["not JSON", "unicode"]),
    "wrong content-encoding": (
        lambda: streamed(200, b'{"items": [], "count": 0}',
                         headers={"content-type": "application/json", "content-encoding": "gzip"}),
        ["could not be decoded", "Content-Encoding"]),
    "schema break": (lambda: json_response(200, {"items": "nope", "count": "many"}),
                     ["breaks the API schema"]),
    "a JSON string": (lambda: json_response(200, "ok"), ["breaks the API schema"]),
}


@pytest.mark.parametrize("method", WITH_BODY, ids=repr)
@pytest.mark.parametrize("case", list(UNUSABLE_2XX))
async def test_an_unusable_2xx_is_unexpected_response_on_every_method(make_client, method, case):
    make, words = UNUSABLE_2XX[case]
    client, server = make_client(_fresh(make))
    with pytest.raises(errors.UnexpectedResponse) as caught:
        await method.call(client)
    error = caught.value
    text = str(error)
    for word in words:
        assert word in text
    # What was asked, and where to look.
    assert f"{method.http} {method.prefix}" in text
    assert "check the base URL" in text
    assert API_KEY not in text and API_KEY not in repr(error)
    assert error.__cause__ is None and error.__context__ is None
    # Not retried: the same answer would come back.
    assert len(server.requests) == 1
    if method.is_post:
        assert error.maybe_applied is True
        assert error.idempotency_key == server.requests[0].headers["Idempotency-Key"]
        assert "may have taken effect" in text
    else:
        assert error.maybe_applied is False
        assert error.idempotency_key is None


async def test_a_login_page_says_to_check_the_base_url_and_names_the_content_type(make_client):
    client, _ = make_client(httpx.Response(200, html="<html>Corporate proxy: sign in</html>"))
    with pytest.raises(errors.UnexpectedResponse) as caught:
        await client.list_variables()
    assert str(caught.value) == (
        "The answer to GET /v1/variables is not JSON (text/html, 37 bytes: expected value at line 1 "
        "column 1): check the base URL https://api.example.test; a proxy or login page may be "
        "answering (unexpected_response)."
    )


async def test_an_unusable_2xx_to_a_rental_may_have_charged_and_can_be_checked_with_its_key(make_client):
    from vap_console.api import RentalApplication

    client, _server = make_client(httpx.Response(201, text="Created"))
    with pytest.raises(errors.UnexpectedResponse) as caught:
        await client.rent_number(RentalApplication(requested_number="+919876500001"),
                                 idempotency_key="submission-1")
    error = caught.value
    assert error.status == 201
    assert error.maybe_applied and error.idempotency_key == "submission-1"
    assert str(error).endswith("It may have taken effect: check before sending it again.")
    assert "maybe_applied=True" in repr(error)


@pytest.mark.parametrize("method", METHODS, ids=repr)
async def test_a_redirect_is_unexpected_response_on_every_method_and_never_followed(make_client, method):
    client, server = make_client(httpx.Response(308, headers={"Location": "https://new.example.test/v1/x"}))
    with pytest.raises(errors.Redirected) as caught:
        await method.call(client)
    error = caught.value
    assert isinstance(error, errors.UnexpectedResponse)
    assert error.code == "redirected" and error.status == 308
    assert error.location == "https://new.example.test/v1/x"
    assert f"redirected {method.http} {method.prefix}" in str(error)
    assert "set the base URL to the new address" in str(error)
    assert len(server.requests) == 1
    assert error.maybe_applied is False


async def test_a_redirect_without_location_still_says_what_to_do(make_client):
    client, _ = make_client(httpx.Response(302))
    with pytest.raises(errors.Redirected) as caught:
        await client.list_voices()
    assert caught.value.location is None
    assert "check the base URL" in str(caught.value)


async def test_303_see_other_after_a_post_may_have_taken_effect(make_client):
    client, _ = make_client(httpx.Response(303, headers={"Location": "/v1/agents/a-1"}))
    with pytest.raises(errors.Redirected) as caught:
        await client.start_webcall("ua_front")
    assert caught.value.maybe_applied is True
    assert caught.value.idempotency_key


@pytest.mark.parametrize("status", [400, 403, 405, 413, 418, 451, 100, 199])
async def test_a_status_the_api_does_not_use_without_its_error_body_is_unexpected_response(
    make_client, status
):
    client, server = make_client(httpx.Response(status, html="<h1>Request blocked</h1>"))
    with pytest.raises(errors.UnexpectedResponse) as caught:
        await client.list_voices()
    assert caught.value.status == status
    assert "not an answer of the API" in str(caught.value)
    assert "text/html" in str(caught.value)
    assert len(server.requests) == 1


async def test_an_error_body_in_the_apis_format_keeps_its_class_and_message(make_client):
    client, _ = make_client(json_response(409, error_body("agent_busy", "Try later")))
    with pytest.raises(errors.ApiError) as caught:
        await client.start_webcall("ua_front")
    assert type(caught.value) is errors.ApiError
    assert caught.value.code == "agent_busy" and caught.value.message == "Try later"
    assert caught.value.maybe_applied is False


@pytest.mark.parametrize(("status", "applied"), [(500, True), (502, True), (504, True), (503, False)])
async def test_a_gateway_error_page_on_a_post_may_have_taken_effect(make_client, status, applied):
    client, server = make_client(httpx.Response(status, html="<h1>Bad gateway</h1>"))
    with pytest.raises(errors.ServerError) as caught:
        await client.create_agent(AgentCreate(name="Front"))
    assert caught.value.maybe_applied is applied
    assert len(server.requests) == 1


async def test_the_apis_own_502_on_a_post_did_not_take_effect(make_client):
    client, _ = make_client(json_response(502, error_body("telephony_sandbox_error")))
    with pytest.raises(errors.CarrierError) as caught:
        await client.start_webcall("ua_front")
    assert caught.value.maybe_applied is False


async def test_an_error_body_that_cannot_be_decoded_is_judged_by_its_status(make_client):
    client, server = make_client(_fresh(lambda: streamed(
        503, b"not gzip at all", headers={"content-encoding": "gzip"})), max_retries=1)
    with pytest.raises(errors.ServerError):
        await client.list_voices()
    assert len(server.requests) == 2  # a 503 is retried, whatever its body


async def test_a_well_encoded_gzip_body_is_read(make_client):
    from tests.api.methods import VOICES

    packed = gzip.compress(json.dumps(VOICES).encode())
    client, _ = make_client(_fresh(lambda: streamed(
        200, packed[:10], packed[10:], headers={"content-encoding": "gzip"})))
    assert (await client.list_voices()).default_model == "mulberry"


# --- protocol failures: an ApiError, never the raw exception ---

PROTOCOL_FAILURES = {
    "remote protocol error": httpx.RemoteProtocolError("illegal status line"),
    "local protocol error": httpx.LocalProtocolError("bad header"),
    "h11 remote protocol error": h11.RemoteProtocolError("malformed data"),
    "decoding error": httpx.DecodingError("incorrect header check"),
    "read error": httpx.ReadError("connection reset"),
    "write error": httpx.WriteError("broken pipe"),
    "too many redirects": httpx.TooManyRedirects("loop"),
    "stream error": httpx.StreamClosed(),
    "os error": ConnectionResetError(104, "Connection reset by peer"),
}


@pytest.mark.parametrize("method", METHODS, ids=repr)
@pytest.mark.parametrize("case", list(PROTOCOL_FAILURES))
async def test_a_protocol_failure_is_an_api_error_on_every_method(make_client, method, case):
    failure = PROTOCOL_FAILURES[case]
    client, server = make_client(failure, max_retries=1)
    with pytest.raises(errors.ApiError) as caught:
        await method.call(client)
    error = caught.value
    assert error.__cause__ is None and error.__context__ is None
    if method.is_post:
        if isinstance(error, errors.OutcomeUnknown):
            assert error.maybe_applied and error.idempotency_key
        else:  # the transport gave the bytes back undecoded: it still may have taken effect
            assert isinstance(error, errors.UnexpectedResponse) and error.maybe_applied
        assert len(server.requests) == 1  # never resent
    else:
        assert isinstance(error, (errors.ConnectionFailed, errors.UnexpectedResponse))


@pytest.mark.parametrize("method", WITH_BODY, ids=repr)
async def test_a_2xx_whose_body_breaks_off_is_outcome_unknown_for_a_post_and_retried_for_a_get(
    make_client, method
):
    broken = httpx.RemoteProtocolError("peer closed connection without sending complete message body")
    client, server = make_client(
        _fresh(lambda: streamed(200, b'{"items": [', then=broken)), max_retries=1)
    with pytest.raises(errors.ApiError) as caught:
        await method.call(client)
    if method.is_post:
        assert isinstance(caught.value, errors.OutcomeUnknown)
        assert caught.value.status == 200 and caught.value.maybe_applied
        assert len(server.requests) == 1
    else:
        assert isinstance(caught.value, errors.ConnectionFailed)
        assert "while reading the answer" in str(caught.value)
        assert len(server.requests) == 2


async def test_a_delete_answered_2xx_needs_no_body(make_client):
    client, _ = make_client(_fresh(lambda: streamed(
        200, b"\x00garbage", headers={"content-encoding": "gzip", "content-length": "999999999999"})))
    assert await client.delete_tool("tool_1") is None


# --- the API key never appears, even when a hostile server echoes it ---

@pytest.mark.parametrize("answer", [
    lambda: json_response(400, {"error": f"bad key {API_KEY}", "code": "invalid_request",
                                "details": [{"loc": API_KEY, "message": f"is {API_KEY}"}]}),
    lambda: httpx.Response(301, headers={"Location": f"https://evil.test/?k={API_KEY}"}),
    lambda: httpx.Response(200, headers={"content-type": f"text/{API_KEY}"}, text="x"),
    lambda: httpx.Response(418, headers={"content-type": f"text/{API_KEY}"}, text="x"),
])
async def test_a_key_echoed_by_the_server_is_masked_in_the_error(make_client, answer):
    client, _ = make_client(_fresh(answer))
    with pytest.raises(errors.ApiError) as caught:
        await client.list_variables()
    error = caught.value
    everything = " ".join([str(error), repr(error), error.message, *map(str, error.args),
                           *(d.loc + d.message for d in error.details),
                           str(getattr(error, "location", ""))])
    assert API_KEY not in everything
    assert "…9f3a" in everything


def test_a_key_that_cannot_be_a_header_is_refused_without_quoting_it():
    from vap_console.api import VapClient

    for key in ("sk_live_ключ_1234567890", "sk live with spaces 123", "sk_\x1b[2J_123456"):
        with pytest.raises(ValueError) as caught:
            VapClient(BASE_URL, key)
        assert key.strip() not in str(caught.value)


@pytest.mark.parametrize("key", ["", "with space", "x" * 256, "ключ", "a\nb"])
async def test_an_idempotency_key_no_server_could_take_is_a_value_error(make_client, key):
    client, server = make_client(json_response(200, {}))
    with pytest.raises(ValueError, match="idempotency_key"):
        await client.start_webcall("ua_front", idempotency_key=key)
    assert server.requests == []


async def test_a_closed_client_raises_an_api_error(make_client):
    client, server = make_client(json_response(200, {}))
    await client.aclose()
    with pytest.raises(errors.ApiError, match="this client is closed"):
        await client.list_voices()
    assert server.requests == []
