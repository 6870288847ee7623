"""A stand-in for GET /v1/voices that answers by key like spec sections 5 and 7, driven through
the real VapClient over an in-process transport (no sockets, no sandbox needed)."""

from __future__ import annotations

import httpx

from vap_console.api.client import VapClient

GOOD_KEY = "sk_test_good_key_ABCD"
NOSCOPE_KEY = "sk_test_noscope_key_0403"
REVOKED_KEY = "sk_revoked_key_0401"
VOICES = {"defaultModel": "mulberry", "models": []}


def spec_server(request: httpx.Request) -> httpx.Response:
    assert request.url.path.endswith("/v1/voices")
    key = request.headers.get("authorization", "").removeprefix("Bearer ")
    if key == GOOD_KEY:
        return httpx.Response(200, json=VOICES)
    if key == NOSCOPE_KEY:
        return httpx.Response(403, json={"error": "Key lacks scope", "code": "forbidden_scope"})
    return httpx.Response(401, json={"error": "Invalid API key", "code": "unauthorized"})


async def verify_async(base_url: str, key: str) -> None:
    transport = httpx.MockTransport(spec_server)
    async with VapClient(base_url, key, transport=transport, max_retries=0) as client:
        await client.list_voices()
