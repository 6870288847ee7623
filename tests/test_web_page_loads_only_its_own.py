"""The page `vap web` serves names no other host (textual-serve's asked a public font service for a
font, telling it the console was in use), and its headers let the browser load nothing else, frame
it nowhere, and send no Referer with the secret in it."""

from __future__ import annotations

import asyncio
import re

import aiohttp

from tests.browser import WebServer


async def get(url: str) -> tuple[int, dict[str, str], str]:
    async with aiohttp.ClientSession() as session, session.get(url) as answer:
        return answer.status, dict(answer.headers), await answer.text()


def test_the_page_names_no_other_host_and_carries_a_strict_policy() -> None:
    server = WebServer("--sandbox")
    try:
        status, headers, html = asyncio.run(get(server.url))
        static_status, static_headers, _ = asyncio.run(get(server.url + "static/js/textual.js"))
        refused_status, refused_headers, _ = asyncio.run(get(server.origin + "/"))
    finally:
        assert server.stop() == 0
    assert status == 200 and static_status == 200 and refused_status == 403
    # Every address in the page is a path on this server, but the websocket's, which is this server.
    host = server.origin.removeprefix("http://")
    assert re.findall(r"[a-z]+://[^\s\"'<>)]*", html) == [f"ws://{host}{server.url.removeprefix(server.origin)}ws"]
    links = re.findall(r"(?:src|href)=\"([^\"]*)\"", html) + re.findall(r"url\(\"([^\"]*)\"\)", html)
    assert links and all(link.startswith("/") and not link.startswith("//") for link in links), links
    assert "onclick" not in html.lower()  # an inline handler would need 'unsafe-inline'
    policy = [part.strip() for part in headers["Content-Security-Policy"].split(";")]
    assert "default-src 'self'" in policy and "frame-ancestors 'none'" in policy and "connect-src 'self'" in policy
    assert "unsafe" not in headers["Content-Security-Policy"] and "http" not in headers["Content-Security-Policy"]
    for answer in (headers, static_headers, refused_headers):
        assert answer["Referrer-Policy"] == "no-referrer"
        assert answer["X-Content-Type-Options"] == "nosniff"
