"""How often to ask for a rental's progress, and the loop that asks.

Shared by the console's timeline (inside a Textual worker) and by ``vap rental watch``, so both
poll the same way: fast while the rental is moving, slower and slower while it waits, at least
Retry-After when the server asks for it, and a growing backoff while the server cannot be reached.
Textual-free: the sleep and the fetch are injected.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field
from datetime import datetime

from vap_console.api.errors import (
    ApiError,
    ForbiddenScope,
    NotFound,
    RateLimited,
    TransportError,
    Unauthorized,
)
from vap_console.api.models import Rental, RentalStatus, StepState

# Errors that polling again will not cure: the caller has to act.
FATAL_ERRORS: tuple[type[ApiError], ...] = (Unauthorized, ForbiddenScope, NotFound)

GLYPHS = {
    StepState.DONE: "✔",
    StepState.ACTIVE: "●",
    StepState.PENDING: "○",
    StepState.FAILED: "✖",
}
UNKNOWN_GLYPH = "?"


def step_glyph(state: str) -> str:
    return GLYPHS.get(state, UNKNOWN_GLYPH)


def one_line_timeline(rental: Rental) -> str:
    """``✔ prepaid ✔ submitted ● verification ○ purchase ○ active``; unknown states kept visible."""
    parts = []
    for step in rental.timeline:
        glyph = step_glyph(step.state)
        suffix = "" if step.state in GLYPHS else f"({step.state})"
        parts.append(f"{glyph} {step.key}{suffix}")
    return " ".join(parts)


def failure_reason(rental: Rental) -> str | None:
    """Why a rental stopped, in the server's words: rejection reason, carrier error, release."""
    if rental.compliance and rental.compliance.rejection_reason:
        return rental.compliance.rejection_reason
    if rental.last_error:
        return rental.last_error
    if rental.release_reason:
        return f"released: {rental.release_reason}"
    return None


@dataclass(frozen=True)
class Refund:
    """Money a rental gave back: its amount (nanos, None when the event does not say) and when."""

    amount_nanos: int | None
    currency: str | None
    at: datetime | None


def refund_of(rental: Rental) -> Refund | None:
    """The refund the rental's events report (a ``…refunded`` event), or None.

    The spec leaves events free-form; the sandbox logs ``rental.refunded`` with ``amountNanos``.
    A rental that failed and reports no refund is said to be so, never assumed refunded.
    """
    for event in reversed(rental.events):
        kind = event.get("type")
        if isinstance(kind, str) and "refund" in kind:
            amount = event.get("amountNanos")
            at = event.get("at")
            when = None
            if isinstance(at, str):
                try:
                    when = datetime.fromisoformat(at.replace("Z", "+00:00"))
                except ValueError:
                    when = None
            return Refund(amount if isinstance(amount, int) and not isinstance(amount, bool) else None,
                          event.get("currency") if isinstance(event.get("currency"), str) else rental.currency,
                          when)
    return None


def fingerprint(rental: Rental) -> tuple[object, ...]:
    """What counts as "the rental changed" for the schedule: status and every step."""
    return (
        rental.status,
        rental.updated_at,
        rental.last_error,
        tuple((s.key, s.state, s.at, s.detail) for s in rental.timeline),
    )


@dataclass
class PollSchedule:
    """Delays between polls. Each ``after_*`` call returns the next delay in seconds.

    fast: the delay after the rental changed (and the first delay).
    slow: the longest delay while nothing changes; the delay grows by ``factor`` up to it.
    offline_max: the longest delay while the server cannot be reached.
    retry_after_cap: a Retry-After beyond this is capped, so a bad header cannot park us for hours.
    """

    fast: float = 2.0
    slow: float = 30.0
    factor: float = 1.5
    offline_max: float = 60.0
    retry_after_cap: float = 300.0
    _delay: float = field(default=0.0, init=False)
    _failures: int = field(default=0, init=False)

    def __post_init__(self) -> None:
        if self.fast <= 0 or self.slow < self.fast or self.factor < 1:
            raise ValueError("PollSchedule needs 0 < fast <= slow and factor >= 1")
        self._delay = self.fast

    @property
    def failures(self) -> int:
        """Consecutive failed polls; 0 once a poll succeeds."""
        return self._failures

    def after_change(self) -> float:
        self._failures = 0
        self._delay = self.fast
        return self._delay

    def after_same(self) -> float:
        self._failures = 0
        self._delay = min(self.slow, self._delay * self.factor)
        return self._delay

    def after_error(self, error: BaseException) -> float:
        self._failures += 1
        retry_after = getattr(error, "retry_after", None)
        if isinstance(error, RateLimited) or retry_after is not None:
            wait = min(float(retry_after or self.fast), self.retry_after_cap)
            return float(max(wait, self.fast))
        backoff = self.fast * (2 ** (self._failures - 1))
        return float(min(self.offline_max, max(backoff, self.fast)))


@dataclass(frozen=True)
class RentalUpdate:
    """A successful poll. ``status_changed`` is False on the first poll (nothing to compare)."""

    rental: Rental
    changed: bool
    status_changed: bool
    previous_status: str | None
    next_delay: float | None  # None when the rental is terminal and polling stops


@dataclass(frozen=True)
class PollFailed:
    """A poll that failed in a way that polling again may cure (offline, 429, 5xx)."""

    error: ApiError
    next_delay: float
    offline: bool  # the server could not be reached at all (as opposed to answering an error)


PollEvent = RentalUpdate | PollFailed


def is_fatal(error: BaseException) -> bool:
    return isinstance(error, FATAL_ERRORS)


async def follow_rental(
    fetch: Callable[[], Awaitable[Rental]],
    *,
    schedule: PollSchedule | None = None,
    sleep: Callable[[float], Awaitable[object]] = asyncio.sleep,
    first: Rental | None = None,
) -> AsyncIterator[PollEvent]:
    """Poll until the rental reaches a terminal status, yielding each outcome.

    ``first`` is a rental already in hand (the POST's 201): it is yielded first without a fetch.
    Fatal errors (401, 403 scope, 404) are raised; anything else is yielded as PollFailed and
    retried after the schedule's delay.
    """
    schedule = schedule or PollSchedule()
    last: tuple[object, ...] | None = None
    last_status: str | None = None
    pending_first = first
    while True:
        try:
            rental = pending_first if pending_first is not None else await fetch()
        except ApiError as error:
            if is_fatal(error):
                raise
            delay = schedule.after_error(error)
            yield PollFailed(error=error, next_delay=delay, offline=isinstance(error, TransportError))
            await sleep(delay)
            continue
        pending_first = None
        mark = fingerprint(rental)
        changed = mark != last
        status_changed = last_status is not None and rental.status != last_status
        previous = last_status
        last, last_status = mark, rental.status
        if rental.status in RentalStatus.TERMINAL:
            yield RentalUpdate(rental, changed, status_changed, previous, None)
            return
        delay = schedule.after_change() if changed else schedule.after_same()
        yield RentalUpdate(rental, changed, status_changed, previous, delay)
        await sleep(delay)
