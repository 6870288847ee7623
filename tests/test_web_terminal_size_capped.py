"""A tab's terminal size is capped on every resize, not only the first: a page (or a script on the
websocket) asking for 100000×100000 grew one console past 1 GB in 12 s."""

from __future__ import annotations

import asyncio
import re
import time
from pathlib import Path

import aiohttp

from tests.browser import WebServer
from vap_console.web import MAX_COLUMNS, MAX_ROWS

CURSOR_TO = re.compile(rb"\x1b\[(\d+);(\d+)H")
# A console at the cap holds ~70 MB; at 100000×100000 it passed 1 GB.
MEMORY_BOUND_MB = 300


def resident_mb(pid: int) -> int:
    for line in (Path("/proc") / str(pid) / "status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) // 1024
    raise AssertionError(f"no VmRSS for {pid}")


async def next_whole_screen(ws: aiohttp.ClientWebSocketResponse, deadline: float) -> list[tuple[int, int]]:
    """The cursor moves of the next frame that draws the screen from its first row to the last.
    Each frame reaches the page as one message (one write of the console's)."""
    while True:
        message = await ws.receive(timeout=max(0.1, deadline - time.monotonic()))
        assert message.type in (aiohttp.WSMsgType.BINARY, aiohttp.WSMsgType.TEXT), message
        if message.type == aiohttp.WSMsgType.BINARY:
            moves = [(int(row), int(column)) for row, column in CURSOR_TO.findall(message.data)]
            if moves and min(row for row, _ in moves) == 1 and max(row for row, _ in moves) > 24:
                return moves


def test_a_huge_resize_after_start_is_capped_and_memory_stays_small() -> None:
    server = WebServer("--sandbox")

    async def scenario() -> tuple[list[tuple[int, int]], int]:
        async with aiohttp.ClientSession() as session:
            ws = await session.ws_connect(server.ws_url(80, 24), headers={"Origin": server.origin},
                                          max_msg_size=64 * 1024 * 1024)
            deadline = time.monotonic() + 60
            said = b""
            while b"Chennai" not in said:  # the console is up, its first rows drawn
                message = await ws.receive(timeout=max(0.1, deadline - time.monotonic()))
                said += message.data if message.type == aiohttp.WSMsgType.BINARY else b""
            await ws.send_json(["resize", {"width": 100000, "height": 100000}])
            moves = await next_whole_screen(ws, time.monotonic() + 60)
            [console] = server.children()
            memory = resident_mb(console)
            await ws.close()
            return moves, memory

    try:
        moves, memory = asyncio.run(scenario())
    finally:
        assert server.stop() == 0
    assert max(row for row, _ in moves) == MAX_ROWS
    assert max(column for _, column in moves) <= MAX_COLUMNS
    assert memory < MEMORY_BOUND_MB, f"{memory} MB"
