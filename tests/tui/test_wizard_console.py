"""The wizard and the rental screen inside the real console (make_app), on the sandbox."""

from __future__ import annotations

from collections import Counter

import httpx
import pytest
from textual.command import CommandPalette
from textual.widgets import Input

from tests.e2e.documents import make_kyc_set
from tests.tui.console_scenes import build_console, palette_first_match
from tests.tui.wizard_host import (
    confirm_rent,
    follow_to,
    rent_on_sandbox,
    rental_shown,
    to_review,
    until,
    wizard_of,
)
from vap_console.credentials import LocalIndex
from vap_console.tui.screens.numbers import NumbersScreen
from vap_console.tui.screens.wizard import RentalWizard
from vap_console.tui.widgets.rows import RowTable

SIZE = (120, 36)

pytestmark = pytest.mark.usefixtures("fast_polls")


async def numbers_loaded(pilot) -> None:
    await until(pilot, lambda: isinstance(pilot.app.screen, NumbersScreen)
                and pilot.app.screen.query_one(RowTable).row_count > 0)


async def test_n_on_numbers_opens_the_wizard_and_a_rental_goes_live(tmp_path, kyc_dir):
    console = build_console(index_dir=tmp_path / "index")
    app = console.app
    async with app.run_test(size=SIZE) as pilot:
        await numbers_loaded(pilot)
        rows_before = app.screen.query_one(RowTable).row_count
        await pilot.press("n")
        await until(pilot, lambda: isinstance(app.screen, RentalWizard))
        wizard = wizard_of(app)
        await to_review(pilot, wizard)
        await confirm_rent(pilot, wizard)
        screen = await rental_shown(pilot, app)
        await follow_to(pilot, app, "active", clock=console.clock)
        assert screen.rental.status == "active"
        assert LocalIndex("sandbox", data_dir=tmp_path / "index").ids("rentals") == [screen.rental_id]
        await pilot.press("escape")
        await until(pilot, lambda: isinstance(app.screen, NumbersScreen)
                    and app.screen.query_one(RowTable).row_count == rows_before + 1)


async def test_the_command_palette_offers_the_wizard():
    console = build_console()
    app = console.app
    async with app.run_test(size=SIZE) as pilot:
        await numbers_loaded(pilot)
        await pilot.press("ctrl+p")
        await until(pilot, lambda: isinstance(app.screen, CommandPalette))
        await pilot.press(*"rent a number")
        await until(pilot, lambda: "rent a number" in (palette_first_match(app) or "").lower())
        await pilot.press("enter")
        await until(pilot, lambda: isinstance(app.screen, RentalWizard))
        assert app.screen.query_one("#pattern", Input).has_focus


async def test_enter_on_a_rental_opens_its_live_timeline():
    console = build_console()
    app = console.app
    async with app.run_test(size=SIZE) as pilot:
        await numbers_loaded(pilot)
        table = app.screen.query_one(RowTable)
        table.focus()
        await pilot.press("enter")
        screen = await rental_shown(pilot, app)
        assert screen.timeline.render().plain.startswith(
            screen.rental.e164 or screen.rental.number or screen.rental.requested_number)


class CountGets(httpx.AsyncBaseTransport):
    """Passes every request through; counts the GETs of each path."""

    def __init__(self, inner: httpx.AsyncBaseTransport) -> None:
        self.inner = inner
        self.gets: Counter[str] = Counter()

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        if request.method == "GET":
            self.gets[request.url.path] += 1
        return await self.inner.handle_async_request(request)


async def test_remembered_rentals_resume_on_the_next_start(tmp_path, kyc_dir):
    counters: list[CountGets] = []
    console = build_console(index_dir=tmp_path / "index",
                            transport_wrapper=lambda inner: counters.append(CountGets(inner)) or counters[-1])
    pending_id = await rent_on_sandbox(console.sandbox, console.api_key, "912272401010",
                                       make_kyc_set(kyc_dir))
    # Created by this profile in an earlier run, still waiting for the carrier.
    LocalIndex("sandbox", data_dir=tmp_path / "index").add("rentals", pending_id)
    app = console.app
    toasts: list[str] = []
    app.notify = lambda message, **kw: toasts.append(message)  # type: ignore[method-assign]
    async with app.run_test(size=SIZE) as pilot:
        await numbers_loaded(pilot)
        # Polled three times: the second answer (still waiting, like the first) has been compared
        # with the first by the time the third is asked for.
        await until(pilot, lambda: counters[0].gets[f"/v1/phone-numbers/{pending_id}"] >= 3)
        assert toasts == []
        console.clock.advance(3600)
        await until(pilot, lambda: any(t.startswith("+912272401010: active") for t in toasts))
