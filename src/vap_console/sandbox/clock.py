"""Time as the sandbox sees it.

Rental progress is computed from the clock on every request rather than by timers, so a
``VirtualClock`` that a test advances makes every answer (and every screenshot) deterministic,
and ``SystemClock(speed=10)`` makes a rental go live ten times sooner.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Protocol, runtime_checkable

# A fixed instant the seed and virtual clocks count from: a Monday morning in India's business day.
EPOCH = datetime(2026, 11, 2, 9, 0, tzinfo=UTC)


@runtime_checkable
class Clock(Protocol):
    def now(self) -> datetime:
        """The current instant, timezone-aware UTC."""
        ...


class SystemClock:
    """Wall-clock time from ``start`` (default: the real now), running ``speed`` times faster."""

    def __init__(self, speed: float = 1.0, start: datetime | None = None) -> None:
        if not speed > 0:
            raise ValueError("speed must be greater than 0")
        self.speed = speed
        self.start = (start or datetime.now(UTC)).astimezone(UTC)
        self._t0 = time.monotonic()

    def now(self) -> datetime:
        return self.start + timedelta(seconds=(time.monotonic() - self._t0) * self.speed)


class VirtualClock:
    """A clock that moves only when told to; thread-safe so a test can advance a served sandbox."""

    def __init__(self, start: datetime = EPOCH) -> None:
        self.start = start.astimezone(UTC)
        self._now = self.start
        self._lock = threading.Lock()
        self._watchers: list[Callable[[datetime], None]] = []

    def now(self) -> datetime:
        with self._lock:
            return self._now

    def advance(self, seconds: float) -> datetime:
        if seconds < 0:
            raise ValueError("a virtual clock does not go backwards")
        with self._lock:
            self._now += timedelta(seconds=seconds)
            now = self._now
            watchers = list(self._watchers)
        for watcher in watchers:
            watcher(now)
        return now

    def on_advance(self, watcher: Callable[[datetime], None]) -> None:
        """Call ``watcher(now)`` after every advance, on the advancing thread: what wakes the
        sandbox's paced streams (sandbox/voice/pacing.py) when a test moves the clock."""
        with self._lock:
            self._watchers.append(watcher)


def clock_origin(clock: Clock) -> datetime:
    """The instant the seed is laid out from: the clock's start when it has one."""
    start = getattr(clock, "start", None)
    return start if isinstance(start, datetime) else clock.now()


def iso(moment: datetime | None) -> str | None:
    """ISO 8601 in UTC with a Z, millisecond precision: the wire form of every timestamp."""
    if moment is None:
        return None
    return moment.astimezone(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")
