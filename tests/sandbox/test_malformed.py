"""Never a 500 or a traceback: malformed requests get a 4xx in the spec's error shape.

The ASGI transport re-raises any exception the app lets out, so a crash fails the test even
before its status is looked at.
"""

from __future__ import annotations

import json
import random
import socket
from typing import Any

import httpx
import pytest

from .conftest import DOCUMENTS, PDF, auth

JSON = {"Content-Type": "application/json"}
JSON_POSTS = ["/v1/tools", "/v1/agents", "/v1/webcall", "/v1/phone-numbers"]

BAD_JSON = [
    b"", b"   ", b"{", b"}", b"null", b"[]", b'"text"', b"123", b"true", b"[" * 50_000, b'{"a":' * 50_000,
    b"\xff\xfe\x00", b'{"name": NaN}', b'{"name": Infinity}', b'{"timeoutMs": 1e400}', b"{'single': 1}",
    b'{"name": "\\ud800"}', b'{"name": "a"} trailing', "{\"name\": \"\u202eevil\u0000\"}".encode(),
    b'{"n": ' + b"9" * 5000 + b"}",
]

WRONG_TYPES: dict[str, list[Any]] = {
    "/v1/tools": [
        {"name": 5, "description": ["x"], "kind": None, "config": "x"},
        {"name": "a", "description": "d", "kind": "before_call", "config": {"url": 7, "params": "x", "headers": [1],
         "outputs": [{"name": None, "path": 3}], "llmParams": {}, "auth": "x", "timeoutMs": 1.5,
         "waitForResponse": 0, "method": ["GET"], "body": {"a": 1}, "curl": 5}},
        {"name": "a", "description": "d", "kind": "before_call", "config": {"url": "https://x", "auth": {"token": 5, "type": []}}},
        {"name": "a" * 100_000, "description": "d" * 100_000, "kind": "k" * 10_000, "config": {}},
        {"name": "🙂", "description": "\u0000", "kind": "before_call", "config": {"url": "https://x", "outputs": [{"name": "🙂", "path": ""}]}},
        {"name": "a", "description": "d", "kind": "before_call", "config": {"url": "https://x", "timeoutMs": 10**30}},
    ],
    "/v1/agents": [
        {"name": None},
        {"name": ["a"], "systemInstruction": 5, "greeting": {}, "ttsConfig": [], "source": 1, "templateSlug": 2},
        {"name": "a", "ttsConfig": {"model": None, "voice": 1, "temperature": True, "top_k": 1.5, "f0_up_key": -100}},
        {"name": "a", "ttsConfig": {"model": "muga", "voice": "ira"}, "deployed": "yes"},
        {"name": "x" * 1_000_000},
    ],
    "/v1/webcall": [{"agentId": 5}, {"agent_id": None}, {"agentId": ""}, {"agentId": ["a"]}, {"agentId": "\u0000" * 1000}],
    "/v1/phone-numbers": [{"requestedNumber": 912260001010}, {"requestedNumber": "+91abc"}, {"requestedNumber": None}],
}


def _check(response: httpx.Response, *, allowed: tuple[int, ...] = ()) -> None:
    assert response.status_code < 500 or response.status_code in allowed, response.text[:300]
    if response.status_code >= 400:
        body = response.json()
        assert isinstance(body["error"], str) and isinstance(body["code"], str)
        if body["code"] == "invalid_request":
            assert body["details"] and all({"loc", "message"} <= set(d) for d in body["details"])


@pytest.mark.parametrize("path", JSON_POSTS)
async def test_bad_json_bodies(client: httpx.AsyncClient, path: str) -> None:
    for raw in BAD_JSON:
        response = await client.post(path, content=raw, headers=JSON)
        _check(response)
        assert 400 <= response.status_code < 500, raw[:40]


@pytest.mark.parametrize("path", list(WRONG_TYPES))
async def test_wrong_types_and_odd_values(client: httpx.AsyncClient, path: str) -> None:
    for body in WRONG_TYPES[path]:
        response = await client.post(path, json=body)
        _check(response)
        assert 400 <= response.status_code < 500, body


async def test_wrong_content_types(client: httpx.AsyncClient) -> None:
    cases = [
        ("/v1/tools", {"Content-Type": "text/plain"}, b'{"name": "a"}'),
        ("/v1/tools", {"Content-Type": "multipart/form-data; boundary=x"}, b"--x--"),
        ("/v1/agents", {"Content-Type": "application/x-www-form-urlencoded"}, b"name=a"),
        ("/v1/phone-numbers", {"Content-Type": "application/x-www-form-urlencoded"}, b"data=%7B%7D"),
        ("/v1/phone-numbers", {"Content-Type": "image/png"}, PDF),
        ("/v1/webcall", {"Content-Type": "application/json; charset=latin-1"}, '{"agentId": "é"}'.encode("latin-1")),
    ]
    for path, headers, content in cases:
        response = await client.post(path, content=content, headers=headers)
        _check(response)
        assert 400 <= response.status_code < 500, (path, headers)


def _multipart(boundary: str, parts: list[tuple[str, str | None, bytes]]) -> bytes:
    out = b""
    for name, filename, data in parts:
        disposition = f'form-data; name="{name}"' + (f'; filename="{filename}"' if filename else "")
        out += f"--{boundary}\r\nContent-Disposition: {disposition}\r\n\r\n".encode() + data + b"\r\n"
    return out + f"--{boundary}--\r\n".encode()


async def test_broken_multipart(client: httpx.AsyncClient) -> None:
    good_data = json.dumps({"requestedNumber": "+914082959021", "endUser": {"name": "A"}, "documents": DOCUMENTS}).encode()
    mp = "multipart/form-data; boundary=b0"
    cases = [
        ("multipart/form-data", b"--b0\r\n"),  # no boundary parameter
        (mp, b"--b0\r\nContent-Disposition: form-data; name=\"data\"\r\n\r\n{"),  # cut off
        (mp, b"garbage without boundaries"),
        (mp, _multipart("b0", [])),  # no data
        (mp, _multipart("b0", [("data", "d.json", good_data)])),  # data sent as a file
        (mp, _multipart("b0", [("data", None, b"not json")])),
        (mp, _multipart("b0", [("data", None, b"[1, 2]")])),
        (mp, _multipart("b0", [("data", None, good_data)])),  # documents but no files
        (mp, _multipart("b0", [("data", None, good_data), ("files", None, b"%PDF- as text")] * 1)),
        (mp, _multipart("b0", [("data", None, good_data)] + [("files", f"{i}.pdf", PDF) for i in range(40)])),
        (mp, _multipart("b0", [("x", None, b"y")] * 200)),
        (mp, _multipart("b0", [("data", None, "\udcff".encode("utf-8", "surrogateescape"))])),
        ("multipart/mixed; boundary=b0", _multipart("b0", [("data", None, good_data)])),
    ]
    for content_type, content in cases:
        response = await client.post("/v1/phone-numbers", content=content, headers={"Content-Type": content_type})
        _check(response)
        assert 400 <= response.status_code < 500, content[:80]


async def test_odd_file_names(client: httpx.AsyncClient) -> None:
    good_data = json.dumps({"requestedNumber": "+914082959021", "endUser": {"name": "A"}, "documents": DOCUMENTS}).encode()
    for name in [b"\xff\xfe.pdf", "é🙂.pdf".encode(), b"a\x00b.pdf", b"", b"x" * 5000, b"..\\..\\boot.ini"]:
        parts = [("data", None, good_data)] + [("files", "@", PDF)] * 3
        content = _multipart("b0", parts).replace(b'filename="@"', b'filename="' + name + b'"')
        response = await client.post(
            "/v1/phone-numbers", content=content, headers={"Content-Type": "multipart/form-data; boundary=b0"},
        )
        _check(response)


async def test_odd_paths_queries_and_headers(client: httpx.AsyncClient) -> None:
    for path in [
        "/v1/tools/%00", "/v1/phone-numbers/..%2F..%2Fetc%2Fpasswd", "/v1//tools", "/V1/TOOLS",
        "/v1/agents/%F0%9F%98%80", "/v1/phone-numbers/" + "a" * 10_000, "/", "/v1", "/v1/phone-numbers/%ED%A0%80",
        "/v1/tools/", "/v1/variables/", "/v1/agents/templates/",
    ]:
        for method in ("GET", "DELETE", "POST"):
            response = await client.request(method, path, json={})
            _check(response)
            assert 400 <= response.status_code < 500, (method, path, response.status_code)
    for params in [{"numberType": "x" * 1000}, {"pattern": "\u0000"}, {"city": "🙂"}, {"countryIso": "ZZ"}]:
        _check(await client.get("/v1/phone-numbers/available", params=params))
        _check(await client.get("/v1/phone-numbers/requirements", params=params))
    _check(await client.post("/v1/agents", json={"name": "a"}, headers={"Idempotency-Key": "k" * 300}))
    weird_auth = {"Authorization": "Bearer sk_sandbox_agent\u00e9".encode("latin-1")}
    _check(await client.get("/v1/voices", headers=weird_auth))


def _mutate(rng: random.Random, value: Any, depth: int = 0) -> Any:
    junk = [None, 0, -1, 1.5, True, "", "x" * rng.choice([1, 65, 1001, 50_000]), [], {}, ["a"], {"a": 1},
            "\u202e\u0000🙂", 10**40]
    if isinstance(value, dict) and value and depth < 4 and rng.random() < 0.7:
        key = rng.choice(list(value))
        copy = dict(value)
        if rng.random() < 0.15:
            del copy[key]
        else:
            copy[key] = _mutate(rng, value[key], depth + 1)
        return copy
    if isinstance(value, list) and value and depth < 4 and rng.random() < 0.7:
        i = rng.randrange(len(value))
        return value[:i] + [_mutate(rng, value[i], depth + 1)] + value[i + 1:]
    return rng.choice(junk)


async def test_fuzzed_bodies_never_crash(client: httpx.AsyncClient) -> None:
    rng = random.Random(20261102)
    seeds = {
        "/v1/tools": {"name": "fz", "description": "d", "kind": "during_call", "config": {
            "method": "POST", "url": "https://x.example", "params": [{"name": "a", "value": "b"}],
            "auth": {"type": "bearer", "token": "t"}, "outputs": [{"name": "v", "path": "p"}],
            "llmParams": [{"name": "x"}], "timeoutMs": 100}},
        "/v1/agents": {"name": "A", "systemInstruction": "Hi {x}", "ttsConfig": {"model": "mulberry", "voice": "ira",
                       "temperature": 0.5}, "source": "template", "templateSlug": "lead-qualifier"},
    }
    for _ in range(250):
        path = rng.choice(list(seeds))
        body = _mutate(rng, seeds[path])
        response = await client.post(path, json=body)
        _check(response)
        assert response.status_code in (201, 409, 422), (body, response.text[:200])
    rental = {"requestedNumber": "+914082959021", "searchFilters": {"city": "Hyderabad"},
              "endUser": {"name": "A", "email": "a@b.c"}, "documents": DOCUMENTS}
    for _ in range(150):
        body = _mutate(rng, rental)
        files = [("files", (f"{i}.pdf", PDF)) for i in range(3)]
        response = await client.post("/v1/phone-numbers", data={"data": json.dumps(body)}, files=files)
        _check(response)
        assert response.status_code in (201, 422), (body, response.text[:200])


def test_raw_garbage_over_a_real_socket(live_sandbox) -> None:
    """Bytes no HTTP client would send: the server answers 4xx or closes, never 500."""
    host, port = live_sandbox.host, live_sandbox.port
    for raw in [
        b"GET /v1/voices HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer \xff\xfe\r\n\r\n",
        b"GET /v1/\xff\xfe HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer sk_sandbox_agent\r\n\r\n",
        b"POST /v1/tools HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer sk_sandbox_agent\r\n"
        b"Content-Type: application/json\r\nContent-Length: 5\r\n\r\n{\"a\":",
        b"GARBAGE\r\n\r\n",
    ]:
        with socket.create_connection((host, port), timeout=5) as sock:
            sock.sendall(raw)
            sock.shutdown(socket.SHUT_WR)
            answer = b""
            while chunk := sock.recv(65536):
                answer += chunk
        if answer:
            status = int(answer.split(b" ", 2)[1])
            assert 400 <= status < 500, answer[:200]
    assert httpx.get(f"{live_sandbox.base_url}/v1/voices", headers=auth(), timeout=5).status_code == 200


@pytest.mark.parametrize("path", [*JSON_POSTS, "/v1/tts", "/v1/tts/ws-connect", "/v1/calls", "/v1/sip-trunks"])
async def test_a_body_that_is_json_but_no_object_is_refused_naming_the_body(client: httpx.AsyncClient, path: str) -> None:
    for raw in (b"[]", b'"text"', b"123", b"null"):
        response = await client.post(path, content=raw, headers=JSON)
        _check(response)
        assert response.status_code == 422, (path, raw, response.text)
        details = response.json().get("details") or response.json().get("error", {}).get("details")
        assert {"loc": "body", "message": "must be a JSON object"} in details, (path, raw, response.text)
