"""Holding the runs of a conversation test: every conversation ``repeat`` times, side by side up to
``--parallel`` and never more than the account's free call slots (``GET /v1/agent/limits``).

A run whose call is refused because every slot is taken (429 to register-call, or the socket's
``concurrency_limit_exceeded``) was not billed: it waits until the limits show a slot free and
starts again, instead of failing. Each run keeps its checks, its answer times (``Turn.answer_ms``)
and what its call record says was charged.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from vap_console.api import errors
from vap_console.api.figures import answer_times
from vap_console.scripting.agent_tests import Check, Script, TestFile, judge

if TYPE_CHECKING:
    from vap_console.api.client import VapClient
    from vap_console.scripting.dialogue import CallStarted

# How long a run waits for a free call slot before it is reported as not held.
SLOT_WAIT = 600.0
# Polling the limits while waiting: from the first step, doubling, to the last.
SLOT_POLL_FIRST, SLOT_POLL_MOST = 0.05, 2.0
# Refusals for want of a slot while the limits showed one free (another caller took it, or the
# service refuses for another reason under that code): this many in a row and the run is failed.
UNEXPLAINED_REFUSALS = 3
# A call record may be written a moment after the call ends: how long to wait for its final charge.
RECORD_WAIT = 5.0


@dataclass(frozen=True)
class Job:
    """One run of one conversation against one agent."""

    test_file: TestFile
    script: Script
    agent: str
    run: int  # 1-based
    runs: int

    @property
    def label(self) -> str:
        return self.script.name if self.runs == 1 else f"{self.script.name} [run {self.run}/{self.runs}]"


@dataclass
class RunResult:
    job: Job
    checks: list[Check]
    answer_ms: list[float]
    credits: float | None
    call_id: str | None = None

    @property
    def passed(self) -> bool:
        return all(c.ok for c in self.checks)


def _is_slot_refusal(error: BaseException | None) -> bool:
    return isinstance(error, errors.ConcurrencyLimitExceeded)


class Slots:
    """The account's call slots as the pool sees them: how wide to run, and waiting for one."""

    def __init__(self, client: VapClient, *, wait: float = SLOT_WAIT) -> None:
        self.client = client
        self.wait = wait

    async def free(self) -> int | None:
        """Slots free now; None where the server does not say (the pool then trusts --parallel)."""
        try:
            limits = await self.client.agent_limits()
        except errors.ApiError:
            return None
        return max(0, limits.concurrency_limit - limits.active_requests)

    async def width(self, parallel: int) -> int:
        free = await self.free()
        return max(1, min(parallel, free)) if free is not None else max(1, parallel)

    async def until_free(self) -> bool | None:
        """Wait until a slot is free: True when none was at first (the refusal is explained), None
        when one was free at once, False when ``wait`` seconds passed without one."""
        deadline = time.monotonic() + self.wait
        step = SLOT_POLL_FIRST
        waited = False
        while time.monotonic() < deadline:
            free = await self.free()
            if free is None or free > 0:
                return True if waited else None
            waited = True
            await asyncio.sleep(min(step, max(0.0, deadline - time.monotonic())))
            step = min(step * 2, SLOT_POLL_MOST)
        return False


async def hold(client: VapClient, job: Job, slots: Slots, on_call_started: CallStarted | None) -> RunResult:
    """One run held and judged; a call that could not be held fails its checks with the reason."""
    from vap_console.scripting.base import describe
    from vap_console.scripting.dialogue import converse

    script = job.script
    unexplained = 0

    async def again() -> bool:
        """After a refusal for want of a slot (nothing billed): whether to start the run again."""
        nonlocal unexplained
        free = await slots.until_free()
        unexplained = unexplained + 1 if free is None else 0
        if free is None:  # a slot was free already: back off a little, and not for ever
            await asyncio.sleep(SLOT_POLL_FIRST * 2 ** unexplained)
        return free is not False and unexplained < UNEXPLAINED_REFUSALS

    while True:
        try:
            run = await converse(client, job.agent, [t.say for t in script.turns], on_call_started=on_call_started,
                                 turn_timeout=job.test_file.timeout_ms / 1000)
        except errors.ApiError as error:
            if _is_slot_refusal(error) and await again():
                continue
            return RunResult(job, _relabel(judge(script, None, describe(error)[0], None), job), [], None)
        talk = run.conversation
        if _is_slot_refusal(talk.failure) and not talk.started and await again():
            continue  # refused before session.created: nothing billed, so it is started again
        break
    failure = describe(talk.failure)[0] if talk.failure is not None else None
    tools = None
    if script.asks_tools and talk.call_id:
        with contextlib.suppress(errors.ApiError):
            tools = await client.tools_called(talk.call_id)
    charged = await _credits(client, talk.call_id) if talk.started else 0.0
    checks = _relabel(judge(script, run, failure, tools), job)
    return RunResult(job, checks, answer_times(talk.turns), charged, talk.call_id)


async def _credits(client: VapClient, call_id: str | None) -> float | None:
    """What the call record says the call was charged (None: it does not say)."""
    if not call_id:
        return None
    deadline = time.monotonic() + RECORD_WAIT
    while True:
        try:
            record = await client.get_call(call_id)
        except errors.ApiError:
            return None
        if record.ended or time.monotonic() >= deadline:
            return record.credits_charged
        await asyncio.sleep(0.25)


def _relabel(checks: list[Check], job: Job) -> list[Check]:
    if job.runs > 1:
        for check in checks:
            check.conversation = job.label
    return checks


def jobs_of(loaded: list[tuple[TestFile, str, list[tuple[Script, int]]]]) -> list[Job]:
    """Every run to hold, round by round (each conversation's first run, then the second …), so
    a run cut short still has a figure for every conversation it reached."""
    every: list[Job] = []
    most = max((runs for _, _, scripts in loaded for _, runs in scripts), default=0)
    for round_ in range(1, most + 1):
        for test_file, agent, scripts in loaded:
            every += [Job(test_file, script, agent, round_, runs) for script, runs in scripts if round_ <= runs]
    return every


async def run_all(client: VapClient, jobs: list[Job], *, parallel: int, slots: Slots,
                  on_call_started: CallStarted | None, on_result: Callable[[RunResult], Any]) -> list[RunResult]:
    """Hold every job, at most ``parallel`` (and the free slots) at a time; results in job order."""
    width = await slots.width(parallel)
    results: list[RunResult | None] = [None] * len(jobs)
    queue: asyncio.Queue[int] = asyncio.Queue()
    for i in range(len(jobs)):
        queue.put_nowait(i)

    async def worker() -> None:
        while True:
            try:
                i = queue.get_nowait()
            except asyncio.QueueEmpty:
                return
            result = await hold(client, jobs[i], slots, on_call_started)
            results[i] = result
            on_result(result)

    await asyncio.gather(*(worker() for _ in range(min(width, len(jobs)) or 1)))
    missing = [jobs[i].label for i, r in enumerate(results) if r is None]
    if missing:  # a worker cannot end without its jobs; said rather than reported as held
        raise RuntimeError(f"runs not held: {', '.join(missing)}")
    return [r for r in results if r is not None]
