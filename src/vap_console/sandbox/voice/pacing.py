"""Waiting on the sandbox clock: what paces the agent socket's audio and times its calls.

Every wait is for an instant of the sandbox clock, not a duration, so 50 frames a second do not
drift however late one of them is woken. On a ``SystemClock`` an instant is a timer of the event
loop, scaled by the clock's ``speed`` (``vap sandbox serve --speed 10`` plays audio ten times
faster). On a ``VirtualClock`` nothing passes until a test advances the clock: then every wait
whose instant has come is woken at once, so a test runs a two-minute call in no real time, and
``waiting()`` tells it what the sandbox is waiting for (a frame, the next minute's charge).
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
from dataclasses import dataclass, field
from datetime import datetime

from vap_console.sandbox.clock import Clock, SystemClock, VirtualClock


@dataclass(eq=False)
class _Wait:
    at: datetime
    label: str
    loop: asyncio.AbstractEventLoop
    future: asyncio.Future[None]
    timer: asyncio.TimerHandle | None = field(default=None)


def _resolve(future: asyncio.Future[None]) -> None:
    if not future.done():
        future.set_result(None)


class Pacer:
    """Sleeps until instants of one sandbox clock; ``wake(label)`` ends a sleep early."""

    def __init__(self, clock: Clock) -> None:
        self.clock = clock
        self._waits: list[_Wait] = []
        # Guards _waits: a VirtualClock wakes sleepers from the test's thread.
        self._lock = threading.Lock()
        self._virtual = isinstance(clock, VirtualClock)
        self._speed = clock.speed if isinstance(clock, SystemClock) else 1.0
        if isinstance(clock, VirtualClock):
            clock.on_advance(self._advanced)

    def now(self) -> datetime:
        return self.clock.now()

    async def sleep_until(self, at: datetime, label: str) -> None:
        """Return when the sandbox clock reaches ``at`` (at once if it has), or on ``wake(label)``."""
        loop = asyncio.get_running_loop()
        wait = _Wait(at, label, loop, loop.create_future())
        with self._lock:
            self._waits.append(wait)
        try:
            # Checked after registering: an advance in between either shows here or wakes the wait.
            remaining = (at - self.clock.now()).total_seconds()
            if remaining <= 0:
                _resolve(wait.future)
            elif not self._virtual:
                wait.timer = loop.call_later(remaining / self._speed, _resolve, wait.future)
            await wait.future
        finally:
            if wait.timer is not None:
                wait.timer.cancel()
            with self._lock:
                if wait in self._waits:
                    self._waits.remove(wait)

    def wake(self, label: str) -> None:
        """End every sleep under ``label`` now (on the loop that sleeps)."""
        with self._lock:
            woken = [w for w in self._waits if w.label == label]
        for wait in woken:
            _resolve(wait.future)

    def waiting(self) -> list[tuple[str, datetime]]:
        """(label, instant) of every sleep under way: for tests, which advance a VirtualClock to them."""
        with self._lock:
            return sorted(((w.label, w.at) for w in self._waits), key=lambda pair: pair[1])

    def _advanced(self, now: datetime) -> None:
        with self._lock:
            due = [w for w in self._waits if w.at <= now]
        for wait in due:
            with contextlib.suppress(RuntimeError):  # its loop has closed: the server stopped
                wait.loop.call_soon_threadsafe(_resolve, wait.future)
