"""`vap web` answers only to the address it serves, and opens a console only for its own page.

A page on another name that resolves to 127.0.0.1 (DNS rebinding) sends that name as Host; a page
on another site that opens the websocket (cross-site websocket) sends its own Origin. Both get 403
and no console starts, even with the secret in the path."""

from __future__ import annotations

import asyncio

import aiohttp
import pytest

from tests.browser import WebServer
from tests.net import free_port


@pytest.fixture(scope="module")
def server():
    started = WebServer("--sandbox")
    yield started
    assert started.stop() == 0


def port_of(server: WebServer) -> int:
    return int(server.origin.rsplit(":", 1)[1])


async def status(url: str, headers: dict[str, str]) -> int:
    async with aiohttp.ClientSession() as session, session.get(url, headers=headers) as answer:
        return answer.status


async def websocket_status(server: WebServer, headers: dict[str, str]) -> int:
    return await ws_status(server.ws_url(), headers)


def test_the_page_answers_to_each_loopback_name_of_its_port(server: WebServer) -> None:
    port = port_of(server)
    for host in (f"127.0.0.1:{port}", f"localhost:{port}", f"[::1]:{port}", f"LOCALHOST:{port}"):
        assert asyncio.run(status(server.url, {"Host": host})) == 200, host


def test_another_host_name_gets_403_for_the_page_and_the_websocket(server: WebServer) -> None:
    port = port_of(server)
    for host in (f"rebind.example:{port}", f"127.0.0.1:{port + 1}", "127.0.0.1", f"127.0.0.2:{port}"):
        assert asyncio.run(status(server.url, {"Host": host})) == 403, host
        assert asyncio.run(status(server.url + "static/js/textual.js", {"Host": host})) == 403, host
        # even with the Origin that would match that Host
        assert asyncio.run(websocket_status(server, {"Host": host, "Origin": f"http://{host}"})) == 403, host
    assert server.children() == []


def test_a_websocket_from_another_origin_or_none_gets_403_and_starts_nothing(server: WebServer) -> None:
    port = port_of(server)
    for origin in (None, "null", "http://evil.example", f"http://localhost:{port}", f"https://127.0.0.1:{port}",
                   f"http://127.0.0.1:{port + 1}"):
        headers = {} if origin is None else {"Origin": origin}
        assert asyncio.run(websocket_status(server, headers)) == 403, origin
    assert server.children() == []


def test_the_page_s_own_origin_opens_a_console(server: WebServer) -> None:
    assert asyncio.run(websocket_status(server, {"Origin": server.origin})) == 101


def test_behind_a_tls_proxy_its_https_origin_is_the_page_s_own() -> None:
    port = free_port()
    proxied = WebServer("--sandbox", "--port", str(port), "--origin", "https://Console.example")
    try:
        assert proxied.url.startswith("https://console.example/")
        direct = f"http://127.0.0.1:{port}" + proxied.url.removeprefix("https://console.example")
        through = {"Host": "console.example"}
        assert asyncio.run(status(direct, through)) == 200
        html = asyncio.run(text(direct, through))
        assert 'data-session-websocket-url="wss://console.example/' in html
        ws_url = direct.replace("http://", "ws://") + "ws"
        assert asyncio.run(ws_status(ws_url, {**through, "Origin": "https://console.example"})) == 101
        for origin in ("http://console.example", "https://console.example:8443", "https://evil.example"):
            assert asyncio.run(ws_status(ws_url, {**through, "Origin": origin})) == 403, origin
        # the loopback address it listens on still works directly
        assert asyncio.run(status(direct, {})) == 200
    finally:
        assert proxied.stop() == 0


async def text(url: str, headers: dict[str, str]) -> str:
    async with aiohttp.ClientSession() as session, session.get(url, headers=headers) as answer:
        return await answer.text()


async def ws_status(url: str, headers: dict[str, str]) -> int:
    async with aiohttp.ClientSession() as session:
        try:
            ws = await session.ws_connect(url, headers=headers)
        except aiohttp.WSServerHandshakeError as refused:
            return refused.status
        await ws.close()
        return 101


def test_the_addresses_served_are_those_of_the_host_it_listens_on() -> None:
    from socket import gethostname

    from vap_console.web import served_hosts

    loopback = {"127.0.0.1:8000", "localhost:8000", "[::1]:8000"}
    assert served_hosts("127.0.0.1", 8000) == loopback
    assert served_hosts("::1", 8000) == loopback
    assert served_hosts("127.0.0.5", 8000) == loopback | {"127.0.0.5:8000"}
    # --allow-remote on one address: that address only (and bare on port 80, as browsers send it)
    assert served_hosts("192.0.2.7", 8000) == {"192.0.2.7:8000"}
    assert served_hosts("192.0.2.7", 80) == {"192.0.2.7:80", "192.0.2.7"}
    # every address: the machine's name, which the printed link uses, and loopback
    assert {f"{gethostname().lower()}:8000"} | loopback <= served_hosts("0.0.0.0", 8000)
