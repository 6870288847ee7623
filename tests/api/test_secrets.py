"""The API key is in no repr, str, log record (even at DEBUG), exception or traceback."""

from __future__ import annotations

import logging
import traceback

import pytest

from tests.api.conftest import API_KEY, json_response
from tests.api.loopback import HangUpServer
from tests.net import free_port
from vap_console.api import RentalApplication, VapClient, errors


def test_key_absent_from_repr_and_str_but_last_four_shown():
    client = VapClient("https://api.example.test", API_KEY)
    for text in (repr(client), str(client), repr(client._http.auth)):
        assert API_KEY not in text
        assert API_KEY[:-4] not in text
    assert client.key_hint == "…9f3a"
    assert "…9f3a" in repr(client)


def _assert_clean(error: BaseException) -> None:
    assert error.__cause__ is None
    assert error.__context__ is None
    for text in (
        str(error),
        repr(error),
        "".join(traceback.format_exception(error)),
        # Rich/Textual tracebacks show each frame's locals: they must be clean too.
        "".join(traceback.TracebackException.from_exception(error, capture_locals=True).format()),
    ):
        assert API_KEY not in text


async def _failures(loopback_url: str) -> list[BaseException]:
    caught: list[BaseException] = []

    async def attempt(coro) -> None:
        try:
            await coro
        except errors.ApiError as exc:
            caught.append(exc)

    async with VapClient(loopback_url, API_KEY) as client:
        await attempt(client.list_voices())  # 401
        await attempt(client.get_rental("x"))  # 404
    async with VapClient(f"http://127.0.0.1:{free_port()}", API_KEY, max_retries=0) as client:
        await attempt(client.list_variables())  # connection refused
        await attempt(client.start_webcall("ua_x"))
    with HangUpServer() as server:
        async with VapClient(server.url, API_KEY, max_retries=0) as client:
            await attempt(client.rent_number(RentalApplication(requested_number="+919876500001")))
    return caught


async def test_key_absent_from_debug_logs_and_from_every_error(loopback, caplog):
    caplog.set_level(logging.DEBUG)
    async with VapClient(loopback.url, API_KEY) as client:
        await client.list_variables()
        await client.rent_number(RentalApplication(requested_number="+919876500001"))
    failures = await _failures(loopback.url)

    assert [type(e) for e in failures] == [
        errors.Unauthorized, errors.NotFound, errors.ConnectionFailed, errors.ConnectionFailed,
        errors.OutcomeUnknown,
    ]
    for error in failures:
        _assert_clean(error)
    # The logs did record the traffic, headers included: the check below has teeth.
    loggers = {r.name for r in caplog.records}
    assert {"httpx", "httpcore.http11", "httpcore.connection"} <= loggers
    assert any("send_request_headers" in r.getMessage() for r in caplog.records)
    assert any("receive_response_headers" in r.getMessage() for r in caplog.records)
    assert API_KEY not in caplog.text
    for record in caplog.records:
        assert API_KEY not in record.getMessage()


async def test_a_bearer_token_logged_by_httpcore_is_scrubbed(caplog):
    # httpcore 1.x does not log request headers today; if a version starts to, the filter holds.
    VapClient("https://api.example.test", API_KEY)
    caplog.set_level(logging.DEBUG)
    logging.getLogger("httpcore.http11").debug(
        "send_request_headers.started headers=%r",
        [(b"Authorization", b"Bearer " + API_KEY.encode()), (b"Accept", b"*/*")],
    )
    logging.getLogger("httpx").debug("Authorization: Bearer %s", API_KEY)
    assert API_KEY not in caplog.text
    assert caplog.text.count("[redacted]") == 2


@pytest.mark.parametrize("answer", [
    json_response(200, {"items": "nope", "count": 1}),
    json_response(500, {"error": "boom"}),
])
async def test_errors_from_mock_answers_are_clean(make_client, answer):
    client, _ = make_client(answer, max_retries=0)
    with pytest.raises(errors.ApiError) as caught:
        await client.list_variables()
    _assert_clean(caught.value)
