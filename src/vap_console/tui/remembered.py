"""The local index of remembered ids, as the console's screens use it: off the UI loop.

``LocalIndex`` reads and rewrites a JSON file, takes a file lock and fsyncs on every change; on
a slow disk or a network home that is long enough to stall every key. Here every call runs in
one worker thread, in the order the screens made them, so a list that reloads right after an
``add`` still sees the new id. A write that fails is said in a toast; nothing is lost silently.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from vap_console.credentials import LocalIndex


class Remembered:
    def __init__(self, index: LocalIndex, report: Callable[[str], object]) -> None:
        self.index = index
        self._report = report
        self._thread = ThreadPoolExecutor(max_workers=1, thread_name_prefix="vap-index")
        self._pending: set[asyncio.Future[Any]] = set()

    @property
    def profile(self) -> str:
        return self.index.profile

    def __repr__(self) -> str:
        return f"Remembered({self.index!r})"

    def _run(self, call: Callable[..., Any], *args: Any) -> asyncio.Future[Any]:
        return asyncio.get_running_loop().run_in_executor(self._thread, call, *args)

    async def ids(self, kind: str) -> list[str]:
        return await self._run(self.index.ids, kind)

    def add(self, kind: str, resource_id: str) -> None:
        """Remember an id; returns at once, the write follows in order."""
        self._write("remember", self.index.add, kind, resource_id)

    def remove(self, kind: str, resource_id: str) -> None:
        self._write("forget", self.index.remove, kind, resource_id)

    def _write(self, verb: str, call: Callable[[str, str], bool], kind: str, resource_id: str) -> None:
        future = self._run(call, kind, resource_id)
        self._pending.add(future)

        def done(finished: asyncio.Future[Any]) -> None:
            self._pending.discard(finished)
            error = finished.exception() if not finished.cancelled() else None
            if error is not None:
                self._report(f"Could not {verb} {kind} {resource_id} in this profile's local index "
                             f"({self.index.path}): {error}")

        future.add_done_callback(done)

    async def flushed(self) -> None:
        """Wait for every write made so far (the console waits before it exits)."""
        if self._pending:
            await asyncio.gather(*self._pending, return_exceptions=True)

    async def aclose(self) -> None:
        await self.flushed()
        self._thread.shutdown(wait=False)
