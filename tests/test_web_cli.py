"""`vap web` without a browser: its refusals, a busy port, the cap on consoles, Ctrl+C."""

from __future__ import annotations

import asyncio
import socket
import subprocess
import sys
import time
from pathlib import Path

import aiohttp

from tests.browser import WebServer

BIN = Path(sys.executable).parent


def vap_web(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(BIN / "vap"), "web", *args], capture_output=True, text=True, timeout=60)


def alive(pid: int) -> bool:
    try:
        state = (Path("/proc") / str(pid) / "stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def test_another_host_needs_allow_remote_one_line_exit_2() -> None:
    result = vap_web("--sandbox", "--host", "0.0.0.0")
    assert result.returncode == 2 and result.stdout == ""
    assert len(result.stderr.splitlines()) == 1 and "--allow-remote" in result.stderr


def test_a_busy_port_is_one_line_and_exit_1() -> None:
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        result = vap_web("--sandbox", "--port", str(busy.getsockname()[1]))
    assert result.returncode == 1 and result.stdout == ""
    assert len(result.stderr.splitlines()) == 1 and "in use" in result.stderr


def test_each_start_makes_a_fresh_secret() -> None:
    first, second = WebServer("--sandbox"), WebServer("--sandbox")
    try:
        assert first.url.rsplit("/", 2)[1] != second.url.rsplit("/", 2)[1]
    finally:
        assert first.stop() == 0 and second.stop() == 0


def test_past_the_cap_a_tab_is_told_and_nothing_starts_then_ctrl_c_ends_every_console() -> None:
    server = WebServer("--sandbox", "--max-consoles", "1")
    ws_url, page = server.ws_url(), {"Origin": server.origin}

    async def scenario() -> str:
        async with aiohttp.ClientSession() as session:
            first = await session.ws_connect(ws_url, headers=page)
            deadline = time.monotonic() + 60
            while len(server.children()) != 1:  # the first tab's console
                assert time.monotonic() < deadline
                await asyncio.sleep(0.05)
            second = await session.ws_connect(ws_url, headers=page)
            said = b""
            async for message in second:
                if message.type == aiohttp.WSMsgType.BINARY:
                    said += message.data
            consoles = server.children()
            assert len(consoles) == 1
            assert server.stop() == 0  # Ctrl+C while a console runs
            # Gone, not merely orphaned (an orphan would no longer count as a child).
            assert not any(alive(pid) for pid in consoles)
            await first.close()
            return said.decode()

    said = asyncio.run(scenario())
    assert "1 consoles are already open" in said and "--max-consoles" in said


def test_allow_remote_says_at_start_that_the_link_travels_in_clear_text() -> None:
    server = WebServer("--sandbox", "--allow-remote")
    assert server.stop() == 0
    said = server.stderr_text()
    assert "plain HTTP" in said and "clear text" in said
    assert "network you trust" in said and "TLS proxy" in said and "--origin" in said


def test_a_tls_proxy_origin_must_be_https_scheme_and_host_only() -> None:
    for wrong in ("http://console.example", "https://console.example/path", "https://u:p@console.example",
                  "console.example"):
        result = vap_web("--sandbox", "--origin", wrong)
        assert result.returncode == 2 and result.stdout == "", wrong
        assert len(result.stderr.splitlines()) == 1 and "--origin" in result.stderr and "https://" in result.stderr
