"""Deadlines and the body limit: a request ends in time whatever the server does, a large upload or
page moving at a slow but real pace is not cut off, and an answer over the limit is refused.

Time-dependent cases run on JumpLoop, an event loop whose clock a fake transport moves forward
("this chunk took 0.5 s on the wire") instead of anything really waiting. Where a server stalls
for ever, the deadlines are tiny real ones (50 ms), so nothing sleeps a fixed time."""

from __future__ import annotations

import asyncio
import json
import threading
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Any

import httpx
import pytest
from pydantic import BaseModel, field_validator

from tests.api.conftest import (
    API_KEY,
    BASE_URL,
    Chunks,
    error_body,
    json_response,
    streamed,
    wire_rental,
    wire_variable,
)
from vap_console.api import RentalApplication, VapClient, errors
from vap_console.api.answers import Answer
from vap_console.api.client import (
    MAX_RESPONSE_BYTES,
    MIN_TRANSFER_RATE,
    REQUEST_TIMEOUT,
    TOTAL_TIMEOUT,
)
from vap_console.api.models import Page, Variable

PAGE = {"items": [wire_variable()], "count": 1}


def _stalled(request: httpx.Request) -> Awaitable[httpx.Response]:
    async def never() -> httpx.Response:
        await asyncio.Event().wait()
        raise AssertionError("unreachable")

    return never()


async def _bounded(coro: Awaitable[Any], seconds: float = 10.0) -> Any:
    """The test fails (rather than hangs) if the client does not end the call itself."""
    async with asyncio.timeout(seconds):
        return await coro


# --- a body trickling in, a server that never answers ---


async def test_a_trickling_body_ends_in_timed_out_and_a_get_is_retried(make_client, sleeps):
    client, server = make_client(
        lambda request: streamed(200, b'{"items": [', stall=True), request_timeout=0.05)
    with pytest.raises(errors.TimedOut) as caught:
        await _bounded(client.list_variables())
    assert "did not arrive in full within 0.05 s" in str(caught.value)
    assert "request_timeout under [network] in config.toml" in str(caught.value)
    assert caught.value.retryable
    assert len(server.requests) == 3 and len(sleeps.waits) == 2


class _Trickle(httpx.AsyncByteStream):
    """A body that keeps moving, ``size`` bytes every ``gap`` seconds, until it is all there."""

    def __init__(self, body: bytes, size: int, gap: float) -> None:
        self.body, self.size, self.gap = body, size, gap

    async def __aiter__(self) -> AsyncIterator[bytes]:
        for at in range(0, len(self.body), self.size):
            await asyncio.sleep(self.gap)
            yield self.body[at:at + self.size]


async def test_a_slow_body_that_keeps_moving_in_small_pieces_is_waited_out(make_client):
    # A long list on a thin line: 23 pieces of 32 bytes, 20 ms apart, half a second in all against
    # a 0.1 s deadline. Each byte earns 1/64 s at a minimum rate of 64 B/s, so each piece earns 0.5 s
    # however small it is (counted in whole seconds, a piece under 64 bytes would earn none).
    body = b'{"items": [], "count": 0' + b" " * 680 + b"}"
    client, server = make_client(
        lambda request: httpx.Response(200, headers={"content-type": "application/json"},
                                       stream=_Trickle(body, 32, 0.02)),
        request_timeout=0.1, min_transfer_rate=64.0, max_retries=0)
    page = await _bounded(client.list_variables(), seconds=30)
    assert page.items == [] and len(server.requests) == 1


async def test_a_server_that_never_answers_a_get_is_timed_out(make_client):
    client, _server = make_client(_stalled, request_timeout=0.05, max_retries=0)
    with pytest.raises(errors.TimedOut) as caught:
        await _bounded(client.list_templates())
    assert "No answer to GET /v1/agents/templates within 0.05 s" in str(caught.value)


async def test_a_post_answered_2xx_whose_body_trickles_is_outcome_unknown(make_client):
    client, server = make_client(
        lambda request: streamed(201, b'{"id": "', stall=True), request_timeout=0.05)
    with pytest.raises(errors.OutcomeUnknown) as caught:
        await _bounded(client.rent_number(RentalApplication(requested_number="+919876500001")))
    error = caught.value
    assert error.status == 201 and error.maybe_applied
    assert error.idempotency_key == server.requests[0].headers["Idempotency-Key"]
    assert len(server.requests) == 1


async def test_a_post_sent_but_never_answered_is_outcome_unknown(make_client):
    # MockTransport reads the whole request before its handler runs: the POST went out.
    client, server = make_client(_stalled, request_timeout=0.05)
    with pytest.raises(errors.OutcomeUnknown) as caught:
        await _bounded(client.start_webcall("ua_front"))
    assert "was sent but no answer came within 0.05 s" in str(caught.value)
    assert len(server.requests) == 1


class _NeverTakesTheBody(httpx.AsyncBaseTransport):
    """Accepts the request but never pulls its body: nothing of it reached the network."""

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        await asyncio.Event().wait()
        raise AssertionError("unreachable")


async def test_a_post_whose_body_never_left_is_timed_out_not_outcome_unknown(sleeps):
    async with VapClient(BASE_URL, API_KEY, transport=_NeverTakesTheBody(), sleep=sleeps,
                         request_timeout=0.05) as client:
        with pytest.raises(errors.TimedOut) as caught:
            await _bounded(client.start_webcall("ua_front"))
    assert not isinstance(caught.value, errors.OutcomeUnknown)
    assert not caught.value.maybe_applied
    assert "was not sent" in str(caught.value)
    assert sleeps.waits == []


async def test_the_calls_budget_cuts_an_attempt_short(make_client):
    client, _ = make_client(_stalled, request_timeout=30, total_timeout=0.05)
    started = time.monotonic()
    with pytest.raises(errors.TimedOut) as caught:
        await _bounded(client.list_voices())
    assert "within the 0.05 s allowed for the call" in str(caught.value)
    assert time.monotonic() - started < 5  # not request_timeout's 30 s


async def test_no_retry_wait_begins_that_would_end_after_the_calls_budget(make_client, sleeps):
    client, server = make_client(
        json_response(429, error_body("rate_limited"), {"Retry-After": "30"}),
        json_response(200, PAGE),
        total_timeout=10,
    )
    with pytest.raises(errors.RateLimited) as caught:
        await client.list_variables()
    # Told at once, with the wait the server asked for, rather than timing out later.
    assert caught.value.retry_after == 30.0
    assert len(server.requests) == 1 and sleeps.waits == []


async def test_a_retry_wait_inside_the_budget_still_happens(make_client, sleeps):
    client, _server = make_client(
        json_response(429, error_body("rate_limited"), {"Retry-After": "3"}),
        json_response(200, PAGE),
        total_timeout=10,
    )
    assert (await client.list_variables()).count == 1
    assert sleeps.waits == [3.0]


# --- large bodies on slow links: a virtual clock the transport moves ---


class JumpLoop(asyncio.SelectorEventLoop):
    """An event loop whose clock can jump ahead: timers (deadlines) see the jump at once."""

    def __init__(self) -> None:
        super().__init__()
        self.offset = 0.0

    def time(self) -> float:
        return super().time() + self.offset

    def jump(self, seconds: float) -> None:
        self.offset += seconds


def run_on_jump_loop(main: Callable[[], Awaitable[Any]]) -> Any:
    with asyncio.Runner(loop_factory=JumpLoop) as runner:
        return runner.run(main())


class SlowLink(httpx.AsyncBaseTransport):
    """Takes the request body chunk by chunk, each costing ``seconds_per_chunk`` of the loop's
    (virtual) clock, keeping nothing; then answers with ``answer`` (which may itself be slow)."""

    def __init__(self, answer: Callable[[], httpx.Response], seconds_per_chunk: float = 0.0) -> None:
        self.answer = answer
        self.seconds_per_chunk = seconds_per_chunk
        self.received = 0

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        loop = asyncio.get_running_loop()
        async for chunk in request.stream:  # type: ignore[union-attr]
            self.received += len(chunk)
            loop.jump(self.seconds_per_chunk)  # type: ignore[attr-defined]
            await asyncio.sleep(0)  # let a due deadline fire
        return self.answer()


class SlowBody(httpx.AsyncByteStream):
    """A response body arriving ``chunk`` bytes at a time, each costing ``seconds`` of the clock."""

    def __init__(self, data: bytes, chunk: int, seconds: float) -> None:
        self.data, self.chunk, self.seconds = data, chunk, seconds

    async def __aiter__(self) -> AsyncIterator[bytes]:
        loop = asyncio.get_running_loop()
        for start in range(0, len(self.data), self.chunk):
            loop.jump(self.seconds)  # type: ignore[attr-defined]
            await asyncio.sleep(0)
            yield self.data[start:start + self.chunk]


def _documents(tmp_path: Path, count: int, size: int) -> RentalApplication:
    paths = []
    for index in range(count):
        path = tmp_path / f"doc{index}.pdf"
        with path.open("wb") as fh:
            fh.write(b"%PDF-1.7\n")
            fh.truncate(size)
        paths.append(path)
    return RentalApplication.model_validate({
        "requestedNumber": "+919876500001", "endUser": {"name": "Acme"},
        "documents": [{"documentTypeId": f"t{i}", "path": str(p)} for i, p in enumerate(paths)],
    })


def test_ten_5_mb_documents_on_a_slow_uplink_are_not_cut_off(tmp_path):
    """50 MB at 256 kbit/s (32 KiB/s): ~27 virtual minutes of upload, against a 30 s deadline
    that each byte sent extends."""
    application = _documents(tmp_path, 10, 5 * 1024 * 1024)
    link = SlowLink(lambda: json_response(201, wire_rental()), seconds_per_chunk=2.0)  # 64 KiB / 2 s

    async def main() -> tuple[Any, float]:
        loop = asyncio.get_running_loop()
        async with VapClient(BASE_URL, API_KEY, transport=link) as client:
            started = loop.time()
            rental = await client.rent_number(application)
            return rental, loop.time() - started

    rental, took = run_on_jump_loop(main)
    assert rental.status == "kyc_submitted"
    assert link.received > 50 * 1024 * 1024
    assert took > 1500  # the upload really took longer than any fixed deadline would allow


def test_an_upload_slower_than_the_floor_rate_is_cut_off_as_outcome_unknown(tmp_path):
    application = _documents(tmp_path, 1, 5 * 1024 * 1024)
    # 64 KiB per 8 s = 8 KiB/s, half the 16 KiB/s floor: the deadline catches up.
    link = SlowLink(lambda: json_response(201, wire_rental()), seconds_per_chunk=8.0)

    async def main() -> errors.ApiError:
        async with VapClient(BASE_URL, API_KEY, transport=link) as client:
            with pytest.raises(errors.OutcomeUnknown) as caught:
                await client.rent_number(application)
            return caught.value

    error = run_on_jump_loop(main)
    assert error.maybe_applied and error.idempotency_key
    assert 0 < link.received < 5 * 1024 * 1024


def test_a_large_page_on_a_slow_link_is_not_cut_off_but_a_trickle_is():
    body = json_response(200, {"items": [wire_variable(name=f"v{i}") for i in range(12_000)],
                               "count": 12_000}).content
    assert len(body) > 2 * 1024 * 1024

    def fetch(seconds_per_64k: float) -> tuple[Any, float]:
        link = SlowLink(lambda: httpx.Response(200, stream=SlowBody(body, 65536, seconds_per_64k)))

        async def main() -> tuple[Any, float]:
            loop = asyncio.get_running_loop()
            started = loop.time()
            async with VapClient(BASE_URL, API_KEY, transport=link, max_retries=0) as client:
                try:
                    result = await client.list_variables()
                except errors.ApiError as exc:
                    result = exc
            return result, loop.time() - started

        return run_on_jump_loop(main)

    # 64 KiB/s (512 kbit/s): ~36 virtual seconds, over the 30 s deadline, and it arrives.
    page, took = fetch(1.0)
    assert page.count == 12_000 and took > REQUEST_TIMEOUT
    # 4 KiB/s: cut off near the deadline (the whole body would take ~580 s); a GET says it
    # timed out.
    failure, took = fetch(16.0)
    assert isinstance(failure, errors.TimedOut) and took < 100


# --- the body limit ---


async def test_a_content_length_over_the_limit_is_refused_before_reading(make_client):
    body = Chunks(b"x" * 100)
    answer = httpx.Response(200, headers={"content-length": str(MAX_RESPONSE_BYTES + 1)}, stream=body)
    client, server = make_client(answer)
    with pytest.raises(errors.ResponseTooLarge) as caught:
        await client.list_variables()
    error = caught.value
    assert isinstance(error, errors.UnexpectedResponse)
    assert body.read == 0
    assert error.max_bytes == MAX_RESPONSE_BYTES
    assert "over the 64 MiB limit (67,108,865 bytes)" in str(error)
    assert "raise max_response_mib under [network] in config.toml" in str(error)
    assert len(server.requests) == 1  # not retried


async def test_a_body_without_content_length_is_counted_as_it_streams(make_client):
    body = Chunks(*[b"[" + b" " * 1023] * 64)
    client, _ = make_client(httpx.Response(200, stream=body), max_response_bytes=10 * 1024)
    with pytest.raises(errors.ResponseTooLarge) as caught:
        await client.list_voices()
    assert "over the 10,240 bytes limit" in str(caught.value)
    # Reading stopped at the chunk that crossed the limit.
    assert body.read <= 11 * 1024


async def test_a_body_of_exactly_the_limit_is_read(make_client):
    data = json_response(200, PAGE).content
    client, _ = make_client(streamed(200, data), max_response_bytes=len(data))
    assert (await client.list_variables()).count == 1


async def test_an_oversized_post_answer_may_have_taken_effect(make_client):
    client, _ = make_client(streamed(201, b"{" * 2048), max_response_bytes=1024)
    with pytest.raises(errors.ResponseTooLarge) as caught:
        await client.start_webcall("ua_front")
    assert caught.value.maybe_applied and caught.value.idempotency_key


async def test_a_huge_error_body_is_dropped_and_the_status_decides(make_client):
    client, server = make_client(
        lambda request: streamed(503, b"<html>" + b"x" * (2 * 1024 * 1024)), max_retries=1)
    with pytest.raises(errors.ServerError):
        await client.list_variables()
    assert len(server.requests) == 2


@pytest.mark.parametrize("declared", [True, False])
async def test_an_error_body_of_up_to_1_mib_is_read_and_its_message_shown(make_client, declared):
    def error_of(size: int) -> httpx.Response:
        head = b'{"error": "The number is already taken", "code": "invalid_request", "pad": "'
        body = head + b"x" * (size - len(head) - 2) + b'"}'
        assert len(body) == size
        if declared:
            return httpx.Response(400, headers={"content-type": "application/json"}, content=body)
        return streamed(400, body)

    client, _ = make_client(error_of(1024 * 1024))
    with pytest.raises(errors.ApiError) as caught:
        await client.list_variables()
    assert "The number is already taken" in str(caught.value)
    # One byte more and only the status speaks (the body is not read at all).
    client, _ = make_client(error_of(1024 * 1024 + 1))
    with pytest.raises(errors.ApiError) as caught:
        await client.list_variables()
    assert "The number is already taken" not in str(caught.value) and caught.value.status == 400


@pytest.mark.parametrize("length", ["lots", "-1"])
async def test_a_content_length_that_is_not_a_size_is_ignored_and_the_body_read(make_client, length):
    body = json_response(200, PAGE).content
    answer = httpx.Response(200, headers={"content-type": "application/json", "content-length": length},
                            stream=Chunks(body))
    client, _ = make_client(answer)
    assert (await client.list_variables()).count == 1


def test_the_default_limit_holds_the_largest_pages_the_console_expects():
    def page_size(item: dict[str, Any], count: int) -> int:
        return len(json.dumps(item)) * count + (count - 1) * 2 + len('{"items": [], "count": 00000}')

    variable = wire_variable(name="v" * 64, defaultValue="d" * 1000, toolOutput="$.x" * 20)
    tool = {"id": "t" * 36, "name": "n" * 64, "description": "d" * 1000, "kind": "before_call",
            "config": {"url": "https://x.example/" + "p" * 2000, "body": "b" * 4000,
                       "headers": [{"name": "h", "value": "v" * 200}] * 5}}
    variables, tools = page_size(variable, 50_000), page_size(tool, 5_000)
    assert variables < MAX_RESPONSE_BYTES and tools < MAX_RESPONSE_BYTES  # 62.6 MiB, 39.9 MiB
    assert (variables, tools) > (50 * 1024 * 1024, 30 * 1024 * 1024)  # near, not far below


# --- parsing large bodies off the loop ---


class _Probe(BaseModel):
    text: str

    @field_validator("text")
    @classmethod
    def _where(cls, value: str) -> str:
        _PARSED_ON.append(threading.get_ident())
        return value


_PARSED_ON: list[int] = []


@pytest.mark.parametrize(("size", "in_thread"), [(1000, False), (1024 * 1024, False), (2_000_000, True)])
async def test_a_body_over_the_threshold_is_parsed_in_a_worker_thread(make_client, size, in_thread):
    client, _ = make_client(json_response(200, {}))
    body = bytearray(b'{"text": "' + b"x" * (size - 12) + b'"}')
    assert len(body) == size
    _PARSED_ON.clear()
    probe = await client._parse(_Probe, Answer("GET", "GET /probe", 200, "", body, None))
    assert len(probe.text) == size - 12
    assert ([threading.get_ident()] != _PARSED_ON) is in_thread


async def test_a_large_page_is_validated_in_pieces_off_the_loop(make_client, monkeypatch):
    from vap_console.api import pieces as pieces_module

    calls: list[tuple[int, int]] = []  # (characters validated in one call, thread)
    real = pieces_module.TypeAdapter.validate_json

    def spy(self, data, *args, **kwargs):
        calls.append((len(data), threading.get_ident()))
        return real(self, data, *args, **kwargs)

    monkeypatch.setattr(pieces_module.TypeAdapter, "validate_json", spy)
    body = json_response(200, {"items": [wire_variable(name=f"v{i}") for i in range(10_000)],
                               "count": 10_000}).content
    client, _ = make_client(json_response(200, {}), parse_in_thread_bytes=1024)
    page = await client._parse(Page[Variable], Answer("GET", "GET /v1/variables", 200, "", bytearray(body), None))
    assert page == Page[Variable].model_validate_json(body)
    assert len(calls) >= len(body) // pieces_module.PIECE_CHARS
    assert max(size for size, _ in calls) < pieces_module.PIECE_CHARS * 1.1  # items, commas
    assert threading.get_ident() not in {thread for _, thread in calls}


async def test_a_schema_break_found_in_the_worker_thread_is_still_unexpected_response(make_client):
    items = [wire_variable(name=f"v{i}") for i in range(2000)] + [{"name": 5}]
    client, _ = make_client(json_response(200, {"items": items, "count": 2001}))
    with pytest.raises(errors.UnexpectedResponse) as caught:
        await client.list_variables()
    assert "items[2000]" in str(caught.value)


# --- the settings' checks ---


@pytest.mark.parametrize("name", ["timeout", "request_timeout", "total_timeout",
                                  "min_transfer_rate", "max_response_bytes"])
@pytest.mark.parametrize("value", [0, -1, float("nan"), float("inf"), True, "30"])
def test_limits_must_be_numbers_more_than_zero(name, value):
    with pytest.raises(ValueError, match=name):
        VapClient(BASE_URL, API_KEY, **{name: value})


def test_the_defaults():
    client = VapClient(BASE_URL, API_KEY)
    assert (client.request_timeout, client.total_timeout) == (REQUEST_TIMEOUT, TOTAL_TIMEOUT) == (30, 120)
    assert client.max_response_bytes == MAX_RESPONSE_BYTES == 64 * 1024 * 1024
    assert client.min_transfer_rate == MIN_TRANSFER_RATE == 16 * 1024
    assert client.parse_in_thread_bytes == 1024 * 1024
