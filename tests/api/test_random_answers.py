"""Property: whatever a server answers — any status from 100 to 599, odd headers, bytes, almost-JSON,
JSON of the wrong shape, the right shape, bodies that break off or never end — every public
method returns its model or raises an errors.ApiError, never anything else, and never hangs.

Deterministic (derandomize) and quick: tiny deadlines, a fake sleep, a few hundred examples."""

from __future__ import annotations

import asyncio
import gzip
import json
from dataclasses import dataclass
from typing import Any

import httpx
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from tests.api.conftest import API_KEY, BASE_URL, Chunks
from tests.api.methods import METHODS, Method
from vap_console.api import VapClient, errors
from vap_console.api.client import MAX_RESPONSE_BYTES

ASCII = st.characters(min_codepoint=32, max_codepoint=126)
CODES = ["unauthorized", "forbidden_scope", "rate_limited", "telephony_autopay_required",
         "telephony_account_ineligible", "telephony_document_invalid", "invalid_request",
         "telephony_acme_error", "telephony_not_configured", "agent_not_found",
         "agent_tool_not_found", "not_found"]

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=8), children,
                                                                       max_size=4),
    max_leaves=12,
)


def _maybe(strategy: st.SearchStrategy[str]) -> st.SearchStrategy[str | None]:
    return st.none() | strategy


HEADERS = st.fixed_dictionaries({}, optional={
    "content-type": st.sampled_from(["application/json", "application/json; charset=utf-8",
                                     "text/html; charset=utf-8", "text/plain", "",
                                     "application/problem+json"]) | st.text(ASCII, max_size=30),
    "content-encoding": st.sampled_from(["gzip", "deflate", "identity", "br", "gzip, deflate",
                                         "x-nonsense", ""]),
    "content-length": st.integers(-5, 10**12).map(str) | st.text(ASCII, max_size=8),
    "location": st.sampled_from(["https://new.example.test/v1/x", "/v1/elsewhere", "",
                                 f"https://evil.test/?k={API_KEY}"]) | st.text(ASCII, max_size=30),
    "retry-after": st.sampled_from(["0", "1", "2.5", "3600", "-1", "nan", "inf", "1e308",
                                    "Wed, 21 Oct 2015 07:28:00 GMT", "Fri, 31 Dec 9999 23:59:59 GMT",
                                    "soon"]) | st.text(ASCII, max_size=12),
})


@st.composite
def bodies(draw: st.DrawFn, method: Method) -> tuple[str, bytes]:
    valid = method.raw if method.raw is not None else json.dumps(
        method.valid if method.valid is not None else {}).encode()
    kind = draw(st.sampled_from(["bytes", "almost", "wrong shape", "valid", "valid", "error",
                                 "gzip valid", "echo key", "empty"]))
    if kind == "bytes":
        return kind, draw(st.binary(max_size=300))
    if kind == "almost":
        cut = draw(st.integers(0, len(valid)))
        mutation = draw(st.sampled_from(["truncate", "flip", "bad utf-8", "trailing"]))
        if mutation == "truncate":
            return kind, valid[:cut]
        if mutation == "flip":
            return kind, valid[:cut] + bytes([draw(st.integers(0, 255))]) + valid[cut + 1:]
        if mutation == "bad utf-8":
            return kind, valid[:cut] + b"\xff\xfe" + valid[cut:]
        return kind, valid + b" ,]"
    if kind == "wrong shape":
        return kind, json.dumps(draw(json_values)).encode()
    if kind == "valid":
        return kind, valid
    if kind == "gzip valid":
        return kind, gzip.compress(valid)
    if kind == "error":
        body = {"error": draw(st.text(max_size=40) | json_values),
                "code": draw(st.sampled_from(CODES) | st.text(max_size=20) | json_values),
                "details": draw(json_values), "limit": draw(json_values),
                "current": draw(json_values)}
        return kind, json.dumps(body).encode()
    if kind == "echo key":
        return kind, json.dumps({"error": f"your key is {API_KEY}", "code": "unauthorized",
                                 "details": [{"loc": API_KEY, "message": API_KEY}]}).encode()
    return kind, b""


@dataclass
class Answer:
    status: int
    headers: dict[str, str]
    kind: str
    body: bytes
    delivery: str  # whole, chunks, break (connection lost mid-body), stall (never ends)

    def response(self) -> httpx.Response:
        body = self.body
        if self.delivery == "whole":
            stream = Chunks(body)
        elif self.delivery == "chunks":
            stream = Chunks(*(body[i:i + 7] for i in range(0, len(body), 7)))
        elif self.delivery == "break":
            stream = Chunks(body[: len(body) // 2],
                            then=httpx.RemoteProtocolError("peer closed connection"))
        else:
            stream = Chunks(body[: len(body) // 2], stall=True)
        return httpx.Response(self.status, headers=self.headers, stream=stream)

    @property
    def must_succeed(self) -> bool:
        """Well-formed enough that the client has to return the model."""
        headers = {k: v for k, v in self.headers.items() if k in ("content-encoding", "content-length")}
        plain = headers.get("content-encoding", "identity") in ("identity", "", "x-nonsense", "br")
        gzipped = headers.get("content-encoding") == "gzip"
        length = headers.get("content-length")
        return (
            200 <= self.status < 300
            and self.delivery in ("whole", "chunks")
            and ((self.kind == "valid" and plain) or (self.kind == "gzip valid" and gzipped))
            and (length is None or not length.strip().isdigit() or int(length) <= MAX_RESPONSE_BYTES)
        )


@st.composite
def answers(draw: st.DrawFn, method: Method) -> Answer:
    kind, body = draw(bodies(method))
    status = draw(st.sampled_from([200, 200, 201, 201, 204, 301, 303, 404, 429, 502, 503])
                  | st.integers(100, 599))
    delivery = draw(st.sampled_from(["whole", "whole", "whole", "chunks", "chunks", "break", "stall"]))
    return Answer(status, draw(HEADERS), kind, body, delivery)


@st.composite
def cases(draw: st.DrawFn) -> tuple[Method, Answer]:
    method = draw(st.sampled_from(METHODS))
    return method, draw(answers(method))


async def _no_sleep(seconds: float) -> None:
    await asyncio.sleep(0)


async def _call(method: Method, answer: Answer) -> tuple[Any, BaseException | None, int]:
    requests = 0

    def handler(request: httpx.Request) -> httpx.Response:
        nonlocal requests
        requests += 1
        return answer.response()

    client = VapClient(BASE_URL, API_KEY, transport=httpx.MockTransport(handler), sleep=_no_sleep,
                       request_timeout=0.02, total_timeout=1.0)
    try:
        # Far beyond anything the client may take: if this fires, the client hung.
        async with asyncio.timeout(10):
            try:
                return await method.call(client), None, requests
            except Exception as exc:  # noqa: BLE001 - the property is about what escapes
                return None, exc, requests
    finally:
        await client.aclose()


@settings(max_examples=250, deadline=None, derandomize=True, database=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(cases())
def test_every_method_returns_its_model_or_raises_an_api_error(case: tuple[Method, Answer]) -> None:
    method, answer = case
    result, error, requests = asyncio.run(_call(method, answer))
    event(f"outcome: {type(error).__name__ if error else 'returned'}")
    if error is None:
        if method.valid is None:
            assert result is None
        else:
            assert result is not None and type(result).__name__ != "dict"
        return
    assert isinstance(error, errors.ApiError), f"{type(error).__name__} escaped: {error!r}"
    assert not answer.must_succeed, f"a usable answer was refused: {error}"
    text = " ".join([str(error), repr(error), error.message,
                     *(d.loc + d.message for d in error.details),
                     str(getattr(error, "location", ""))])
    assert API_KEY not in text
    assert error.__cause__ is None and error.__context__ is None
    assert isinstance(error.maybe_applied, bool)
    if method.is_post:
        assert error.idempotency_key
        # A POST is sent again only when the server said it did not process it (429).
        assert requests == 1 or answer.status == 429
    else:
        assert error.idempotency_key is None
        assert not error.maybe_applied
