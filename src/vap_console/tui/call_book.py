"""The calls ledger as the console's screens use it: off the UI loop, in order.

``Ledger`` opens SQLite and fsyncs each commit; on a slow disk that is long enough to stall every
key. Every call here runs in one worker thread, in the order the screens made them, so the Calls
list that loads right after a ``record_started`` already holds the new call. A write that fails
is said in a toast; nothing is lost silently.

The public API the other screens use (a web call, Talk, an outbound call): ``record_started``, and
Talk's ``record_answer_times`` when its call ends.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime
from typing import Any, TypeVar

from vap_console.api.models.calls import CallRecord
from vap_console.ledger import Ledger

T = TypeVar("T")


class CallBook:
    def __init__(self, ledger: Ledger, report: Callable[[str], object],
                 now: Callable[[], datetime] | None = None) -> None:
        self.ledger = ledger
        self._report = report
        # The console's clock (a test's virtual one): every time written comes from it.
        self.now = now or (lambda: datetime.now(UTC))
        # The call the console placed last: the Calls list puts its cursor there when next loaded.
        self.last_started: str | None = None
        self._thread = ThreadPoolExecutor(max_workers=1, thread_name_prefix="vap-calls")
        self._pending: set[asyncio.Future[Any]] = set()

    def __repr__(self) -> str:
        return f"CallBook({self.ledger!r})"

    async def run(self, call: Callable[..., T], *args: Any) -> T:
        """A ledger read (or a write whose end matters), in the ledger's thread."""
        return await asyncio.get_running_loop().run_in_executor(self._thread, call, *args)

    def write(self, what: str, call: Callable[..., Any], *args: Any, **kwargs: Any) -> None:
        """A write that returns at once; it follows in order, and a failure is reported."""
        future = asyncio.get_running_loop().run_in_executor(self._thread, lambda: call(*args, **kwargs))
        self._pending.add(future)

        def done(finished: asyncio.Future[Any]) -> None:
            self._pending.discard(finished)
            error = finished.exception() if not finished.cancelled() else None
            if error is not None:
                self._report(f"Could not {what} in this profile's calls ledger ({self.ledger.path}): {error}")

        future.add_done_callback(done)

    def record_started(
        self,
        call_id: str,
        agent: str,
        kind: str,
        *,
        to_number: str | None = None,
        from_ref: str | None = None,
        at: datetime | None = None,
    ) -> None:
        """A call whose id is now known (web call, Talk session, outbound call): kept at once."""
        self.write(f"keep call {call_id}", self.ledger.record_started, call_id, agent, kind,
                   to_number=to_number, from_ref=from_ref, at=at or self.now())

    def record_unknown(self, agent: str, kind: str, *, idempotency_key: str | None,
                       to_number: str | None = None, from_ref: str | None = None) -> None:
        """A start whose answer was lost: kept as "outcome unknown" with its Idempotency-Key."""
        self.write("keep a call whose answer was lost", self.ledger.record_unknown, agent, kind,
                   idempotency_key=idempotency_key, to_number=to_number, from_ref=from_ref, at=self.now())

    def record_answer_times(self, call_id: str, times: list[float]) -> None:
        """The answer times of a call Talk held (ms, in order), kept on it after its start."""
        if times:
            self.write(f"keep the answer times of call {call_id}", self.ledger.record_answer_times, call_id, times)

    async def cache(self, record: CallRecord) -> None:
        await self.run(lambda: self.ledger.cache_record(record, at=self.now()))

    async def unreadable(self, call_id: str, problem: str, *, gone: bool = False) -> None:
        await self.run(lambda: self.ledger.record_unreadable(call_id, problem, at=self.now(), gone=gone))

    async def flushed(self) -> None:
        if self._pending:
            await asyncio.gather(*list(self._pending), return_exceptions=True)

    async def aclose(self) -> None:
        await self.flushed()
        self._thread.shutdown(wait=False)
