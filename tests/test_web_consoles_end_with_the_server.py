"""A console `vap web` started ends with the server, even when the server is killed (SIGKILL gives
it no chance to stop anything): an orphaned console would go on holding the profile's key. Its
sandbox child ends too."""

from __future__ import annotations

import asyncio
import signal
import time
from pathlib import Path

import aiohttp

from tests.browser import WebServer

DEADLINE = 30.0


def alive(pid: int) -> bool:
    try:
        state = (Path("/proc") / str(pid) / "stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def children_of(pid: int) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1]) == pid:
                    found.append(int(entry.name))
            except OSError:
                continue
    return found


def test_sigkill_of_the_server_ends_its_consoles_and_their_sandboxes() -> None:
    server = WebServer("--sandbox")

    async def scenario() -> list[int]:  # the console and its sandbox, once the server is killed
        async with aiohttp.ClientSession() as session:
            ws = await session.ws_connect(server.ws_url(), headers={"Origin": server.origin})
            said, deadline = b"", time.monotonic() + 60
            while b"Chennai" not in said:  # the console is up, on its sandbox
                message = await ws.receive(timeout=max(0.1, deadline - time.monotonic()))
                said += message.data if message.type == aiohttp.WSMsgType.BINARY else b""
            [console] = server.children()
            # it knows it is served to a browser (it then acts on its one profile only)
            assert b"\0VAP_IN_BROWSER=1\0" in b"\0" + (Path("/proc") / str(console) / "environ").read_bytes()
            sandboxes = children_of(console)
            assert sandboxes, "the console's sandbox child"
            server.proc.send_signal(signal.SIGKILL)
            server.proc.wait()
            return [console, *sandboxes]

    processes = asyncio.run(scenario())
    deadline = time.monotonic() + DEADLINE
    while any(alive(pid) for pid in processes) and time.monotonic() < deadline:
        time.sleep(0.05)
    left = [pid for pid in processes if alive(pid)]
    assert left == [], f"still running {DEADLINE:g} s after the server was killed: {left}"
