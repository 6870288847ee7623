"""The wizard's reads that fail (the number search, the requirements) reach the console's one
failure handler: the message in the wizard's banner with a Retry that asks again, nothing typed
lost; a deployment without telephony stops the wizard instead."""

from __future__ import annotations

from textual.widgets import DataTable, Input

from tests.tui.wizard_host import click, next_step, pick_from_search, quiet, set_value, until, wizard_of


async def test_a_failed_search_says_so_in_the_banner_and_retry_searches_again(make_host) -> None:
    app = make_host()
    async with app.run_test(size=(120, 36)) as pilot:
        wizard = wizard_of(app)
        set_value(wizard, "pattern", "1010")
        app.spy.down = True
        await click(pilot, "#search")
        await until(pilot, lambda: wizard.banner.message)
        assert "Searching" not in str(wizard.query_one("#search-status").content)
        assert wizard.query_one("#pattern", Input).value == "1010"  # what was typed stays
        app.spy.down = False
        await click(pilot, "#banner-retry")
        table = wizard.query_one("#results", DataTable)
        await until(pilot, lambda: table.row_count > 0)
        assert all("1010" in str(row.value) for row in table.rows)


async def test_failed_requirements_say_so_and_retry_loads_them(make_host) -> None:
    app = make_host()
    async with app.run_test(size=(120, 36)) as pilot:
        wizard = wizard_of(app)
        await pick_from_search(pilot, wizard, "1010")
        app.spy.down = True
        await next_step(pilot, wizard, "requirements")
        await until(pilot, lambda: wizard.banner.message)
        assert "could not be loaded" in str(wizard.query_one("#requirements").content)
        app.spy.down = False
        await click(pilot, "#banner-retry")
        await until(pilot, lambda: "GSTIN" in str(wizard.query_one("#requirements").content))
        assert wizard.query_one("#number", Input).value == "912272401010"


async def test_a_deployment_without_telephony_stops_the_wizard_not_a_retry(make_host) -> None:
    app = make_host(key="sk_sandbox_notelephony")
    async with app.run_test(size=(120, 36)) as pilot:
        wizard = wizard_of(app)
        await click(pilot, "#search")
        await until(pilot, lambda: "Rentals are unavailable" in wizard.banner.message)
        await quiet(pilot)
        assert "telephony_not_configured" in wizard.banner.message
        assert not wizard.query_one("#banner-retry").display  # nothing to retry on this deployment
        assert app.spy.posts == []  # nothing sent, nothing charged
