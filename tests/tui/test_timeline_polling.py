"""The poll schedule and loop shared by the rental screen and `vap rental watch`."""

from __future__ import annotations

import pytest

from tests.tui.test_timeline import make_rental
from vap_console.api.errors import (
    CarrierError,
    ConnectionFailed,
    NotFound,
    RateLimited,
    Unauthorized,
)
from vap_console.api.polling import (
    PollFailed,
    PollSchedule,
    RentalUpdate,
    follow_rental,
    one_line_timeline,
)


def test_fast_after_a_change_then_slower_while_waiting_up_to_the_ceiling():
    schedule = PollSchedule(fast=2, slow=10, factor=2)
    assert schedule.after_change() == 2
    assert [schedule.after_same() for _ in range(4)] == [4, 8, 10, 10]
    assert schedule.after_change() == 2


def test_offline_backs_off_exponentially_to_a_cap_and_resets_on_success():
    schedule = PollSchedule(fast=1, slow=5, offline_max=8)
    delays = [schedule.after_error(ConnectionFailed()) for _ in range(5)]
    assert delays == [1, 2, 4, 8, 8]
    assert schedule.failures == 5
    schedule.after_same()
    assert schedule.failures == 0
    assert schedule.after_error(ConnectionFailed()) == 1


def test_retry_after_is_honoured_and_capped():
    schedule = PollSchedule(fast=1, slow=5, retry_after_cap=60)
    assert schedule.after_error(RateLimited(status=429, retry_after=17)) == 17
    assert schedule.after_error(RateLimited(status=429, retry_after=86400)) == 60


def test_schedule_rejects_nonsense():
    with pytest.raises(ValueError):
        PollSchedule(fast=5, slow=1)


class Script:
    """A fetch that plays back rentals and errors in order."""

    def __init__(self, *steps):
        self.steps = list(steps)
        self.calls = 0

    async def __call__(self):
        self.calls += 1
        step = self.steps.pop(0)
        if isinstance(step, Exception):
            raise step
        return step


async def collect(fetch, **kwargs):
    slept: list[float] = []

    async def sleep(seconds):
        slept.append(seconds)

    events = [e async for e in follow_rental(fetch, sleep=sleep, **kwargs)]
    return events, slept


async def test_follows_until_active_through_errors_reporting_each_status_change():
    submitted = make_rental("kyc_submitted")
    fetch = Script(
        submitted,
        submitted,
        ConnectionFailed(),
        RateLimited(status=429, retry_after=7),
        CarrierError(status=502, code="telephony_x_error"),
        make_rental("kyc_accepted"),
        make_rental("purchasing"),
        make_rental("active"),
    )
    events, slept = await collect(fetch, schedule=PollSchedule(fast=1, slow=4, factor=2))
    updates = [e for e in events if isinstance(e, RentalUpdate)]
    failures = [e for e in events if isinstance(e, PollFailed)]
    assert [u.rental.status for u in updates] == [
        "kyc_submitted", "kyc_submitted", "kyc_accepted", "purchasing", "active",
    ]
    assert [u.status_changed for u in updates] == [False, False, True, True, True]
    assert [f.offline for f in failures] == [True, False, False]
    # unchanged → slower; offline → backoff; 429 → its Retry-After; changes → fast again
    assert slept == [1, 2, 1, 7, 4, 1, 1]
    assert updates[-1].next_delay is None
    assert fetch.calls == 8


@pytest.mark.parametrize("status", ["failed", "kyc_rejected", "released"])
async def test_stops_at_a_failed_terminal_state(status):
    fetch = Script(make_rental("kyc_submitted"), make_rental(status), make_rental("active"))
    events, _ = await collect(fetch, schedule=PollSchedule(fast=1))
    assert events[-1].rental.status == status
    assert fetch.calls == 2


async def test_unknown_status_keeps_polling_and_shows_as_is():
    fetch = Script(make_rental("escrow_hold"), make_rental("active"))
    events, _ = await collect(fetch, schedule=PollSchedule(fast=1))
    assert [e.rental.status for e in events] == ["escrow_hold", "active"]


@pytest.mark.parametrize("error", [Unauthorized(status=401), NotFound(status=404)])
async def test_errors_polling_cannot_cure_are_raised(error):
    with pytest.raises(type(error)):
        await collect(Script(make_rental("kyc_submitted"), error), schedule=PollSchedule(fast=1))


async def test_a_rental_in_hand_is_shown_before_the_first_fetch():
    fetch = Script(make_rental("active"))
    events, slept = await collect(fetch, first=make_rental("kyc_submitted"), schedule=PollSchedule(fast=3))
    assert [e.rental.status for e in events] == ["kyc_submitted", "active"]
    assert slept == [3]
    assert fetch.calls == 1


def test_one_line_timeline_uses_glyphs_and_keeps_unknown_states():
    rental = make_rental("kyc_rejected")
    assert one_line_timeline(rental) == "✔ prepaid ✔ submitted ✖ verification ○ purchase ○ active"
    odd = make_rental("kyc_submitted", states={"purchase": "queued"})
    assert "? purchase(queued)" in one_line_timeline(odd)
