"""A stand-in for GET /v1/voices that answers by key like spec sections 5 and 7, driven through
the real VapClient over an in-process transport (no sockets, no sandbox needed)."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import httpx

from vap_console.api.client import VapClient

GOOD_KEY = "sk_test_good_key_ABCD"
NOSCOPE_KEY = "sk_test_noscope_key_0403"
REVOKED_KEY = "sk_revoked_key_0401"
FRESH_PREFIX = "sk_good_"  # fresh_key() makes these: unique, so a scan finds only real leaks
VOICES = {"defaultModel": "mulberry", "models": []}


def spec_server(request: httpx.Request) -> httpx.Response:
    assert request.url.path.endswith("/v1/voices")
    key = request.headers.get("authorization", "").removeprefix("Bearer ")
    if key == GOOD_KEY or key.startswith(FRESH_PREFIX):
        return httpx.Response(200, json=VOICES)
    if key == NOSCOPE_KEY:
        return httpx.Response(403, json={"error": "Key lacks scope", "code": "forbidden_scope"})
    return httpx.Response(401, json={"error": "Invalid API key", "code": "unauthorized"})


async def verify_async(base_url: str, key: str) -> None:
    transport = httpx.MockTransport(spec_server)
    async with VapClient(base_url, key, transport=transport, max_retries=0) as client:
        await client.list_voices()


def fresh_key() -> str:
    """A key accepted by spec_server and seen nowhere before this test run."""
    import secrets

    return FRESH_PREFIX + secrets.token_hex(12)


@contextmanager
def voices_server() -> Iterator[str]:
    """spec_server's answers over real HTTP on a free loopback port, for `vap` run as a process."""

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # the stdlib's name
            request = httpx.Request("GET", f"http://127.0.0.1{self.path}", headers=dict(self.headers))
            response = spec_server(request)
            body = response.content
            self.send_response(response.status_code)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, format: str, *args: object) -> None:  # noqa: A002 - the stdlib's signature
            pass  # quiet: the test output is scanned for keys

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
