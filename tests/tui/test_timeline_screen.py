"""The rental screen: live timeline on the sandbox's virtual clock, faults, remembered rentals."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.e2e.documents import make_kyc_set
from tests.tui.wizard_host import (
    Host,
    answer_after_now,
    quiet,
    rent_async,
    rent_now,
    rental_screen,
    rental_shown,
    until,
)
from vap_console.credentials import LocalIndex
from vap_console.sandbox.clock import VirtualClock
from vap_console.sandbox.server import start_in_thread

NORMAL, REJECTED, PURCHASE_FAILS = "912272401010", "912260000002", "912273100003"

pytestmark = pytest.mark.usefixtures("fast_polls")


@pytest.fixture
def docs(tmp_path) -> dict[str, Path]:
    return make_kyc_set(tmp_path / "kyc")


@pytest.fixture
def host(tmp_path):
    def make(key: str = "sk_sandbox_agent", **kwargs) -> Host:
        return Host(key=key, clock=VirtualClock(), index=LocalIndex("test", data_dir=tmp_path / "data"),
                    docs_dir=tmp_path, open_wizard=False, **kwargs)

    return make


async def test_timeline_goes_through_every_state_and_stops_polling(host, docs):
    app = host()
    rental_id = await rent_async(app, NORMAL, docs)
    app.open_rental = rental_id
    async with app.run_test(size=(120, 36)) as pilot:
        screen = await rental_shown(pilot, app)
        seen = [screen.rental.status]
        for _ in range(60):  # the rental settles 20 s after it was created
            app.clock.advance(1)
            await answer_after_now(pilot, app, screen)  # every second is seen: no state skipped
            if screen.rental.status != seen[-1]:
                seen.append(screen.rental.status)
            if not screen.polling:
                break
        assert seen == ["kyc_submitted", "kyc_accepted", "purchasing", "active"]
        text = screen.timeline.render().plain
        assert "+912272401010  active" in text and text.count("✔") == 5
        gets = app.spy.gets
        await quiet(pilot)  # a poller still running would never let the app settle
        assert app.spy.gets == gets  # stopped at the terminal state
        assert app.bells == 3


async def test_offline_shows_retrying_then_resumes(host, docs):
    app = host()
    rental_id = await rent_async(app, NORMAL, docs)
    app.open_rental = rental_id
    async with app.run_test(size=(120, 36)) as pilot:
        screen = await rental_shown(pilot, app)
        app.spy.down = True
        await until(pilot, lambda: (screen.timeline.connection or "").startswith("offline — retrying in"))
        app.clock.advance(60)
        app.spy.down = False
        await until(pilot, lambda: screen.rental.status == "active")
        assert screen.timeline.connection is None
        assert "offline" not in screen.timeline.render().plain


@pytest.mark.parametrize(("number", "final"), [(NORMAL, "active"), (REJECTED, "kyc_rejected"),
                                               (PURCHASE_FAILS, "failed")])
async def test_latency_drops_and_502s_while_polling_end_in_the_right_state(host, docs, number, final):
    clock = VirtualClock()
    with start_in_thread(clock=clock, faults="latency=10,error_rate=0.3,drop_rate=0.2,seed=5") as served:
        app = host(served_url=served.base_url)
        app.clock = clock
        app.sandbox = served.app
        rental_id = await rent_async(app, number, docs)
        app.open_rental = rental_id
        async with app.run_test(size=(120, 36)) as pilot:
            screen = await rental_shown(pilot, app)
            clock.advance(120)
            await until(pilot, lambda: not screen.polling)
            assert screen.rental.status == final
            assert "✖" in screen.timeline.render().plain or final == "active"


async def test_remembered_rentals_are_followed_from_the_start(host, docs):
    app = host(resume=True)
    first = await rent_async(app, NORMAL, docs)
    second = await rent_async(app, REJECTED, docs)
    app.local_index.index.add("rentals", first)
    app.local_index.index.add("rentals", second)
    async with app.run_test(size=(120, 36)) as pilot:
        # Both followed from their first answer (still waiting) before the clock moves on: the
        # second poll of each is only sent once the first answer has been taken in.
        await until(pilot, lambda: all(app.spy.get_paths[f"/v1/phone-numbers/{rental_id}"] >= 2
                                       for rental_id in (first, second)))
        app.clock.advance(120)
        await until(pilot, lambda: any("kyc_rejected" in t for t in app.toasts)
                    and any(": active" in t for t in app.toasts))
        assert app.bells == 2


async def test_an_unknown_rental_stops_with_the_error(host):
    app = host(open_rental="00000000-0000-4000-8000-000000000000")
    async with app.run_test(size=(120, 36)) as pilot:
        await until(pilot, lambda: rental_screen(app) and not rental_screen(app).polling)
        screen = rental_screen(app)
        assert "stopped: not_found" in screen.timeline.render().plain or "not_found" in (screen.timeline.connection or "")


# --- snapshots of the rental screen in each state, on the virtual clock ---

STATES = {
    "funding": ("sk_sandbox_short", NORMAL, 0),
    "kyc_submitted": ("sk_sandbox_agent", NORMAL, 0),
    "kyc_accepted": ("sk_sandbox_agent", NORMAL, 9),
    "purchasing": ("sk_sandbox_agent", NORMAL, 12),
    "active": ("sk_sandbox_agent", NORMAL, 60),
    "kyc_rejected": ("sk_sandbox_agent", REJECTED, 60),
    "failed": ("sk_sandbox_agent", PURCHASE_FAILS, 60),
}


@pytest.mark.parametrize("state", list(STATES))
def test_snapshot_rental_screen(snap_compare, host, docs, state):
    key, number, seconds = STATES[state]
    app = host(key)
    app.open_rental = rent_now(app, number, docs)
    app.clock.advance(seconds)

    async def settled(pilot) -> None:
        screen = await rental_shown(pilot, app)
        assert screen.rental.status == state
        screen.timeline.connection = None

    assert snap_compare(app, terminal_size=(120, 36), run_before=settled)
