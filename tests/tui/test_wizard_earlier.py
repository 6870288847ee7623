"""A second rental need not retype: end-user details from an earlier rental of the account or the
application typed earlier in this session; a number the account holds is refused at once."""

from __future__ import annotations

import pytest
from textual.widgets import Button, Input, Select

from tests.tui.console_scenes import build_console, click, quiet, settle, until
from tests.tui.test_wizard_console import numbers_loaded
from tests.tui.wizard_host import fill_documents, fill_end_user, next_step, values, wizard_of
from vap_console.tui.screens.dialog import Confirm
from vap_console.tui.screens.rental import RentalScreen
from vap_console.tui.screens.wizard import RentalWizard

SIZE = (120, 36)

pytestmark = pytest.mark.usefixtures("fast_polls")


async def open_wizard(pilot) -> RentalWizard:
    await numbers_loaded(pilot)
    await pilot.press("n")
    await until(pilot, lambda: isinstance(pilot.app.screen, RentalWizard))
    return wizard_of(pilot.app)


async def test_a_number_the_account_holds_is_refused_at_the_number_step_with_a_way_to_its_rental():
    console = build_console()
    held = next(r for r in console.account.rentals.values() if r.listing.city == "Pune")  # the active one
    async with console.app.run_test(size=SIZE) as pilot:
        wizard = await open_wizard(pilot)
        number = wizard.query_one("#number", Input)
        typed = "+91 " + held.listing.number[2:]  # with a space, as people type it
        number.value = typed
        await pilot.press("pagedown")
        await quiet(pilot)
        assert wizard.step == "number"  # not sent on to fail after the whole wizard
        error = str(wizard.query_one("#number-error").content)
        assert f"already holds +{held.listing.number}" in error and "active" in error
        assert console.app.focused is number
        await click(pilot, "#number-held")
        await until(pilot, lambda: isinstance(console.app.screen, RentalScreen))
        assert console.app.screen.rental_id == held.id
        await pilot.press("escape")
        await until(pilot, lambda: console.app.screen is wizard)
        assert number.value == typed  # nothing typed was lost on the way
        number.value = "912272401010"
        await next_step(pilot, wizard, "requirements")
        assert not wizard.query_one("#number-held", Button).display


async def test_end_user_details_come_from_an_earlier_rental_and_typed_ones_are_not_overwritten_unasked():
    console = build_console()
    earlier = next(r for r in console.account.rentals.values() if r.end_user.get("name"))
    async with console.app.run_test(size=SIZE) as pilot:
        wizard = await open_wizard(pilot)
        wizard.query_one("#number", Input).value = "912272401010"
        await next_step(pilot, wizard, "requirements")
        await next_step(pilot, wizard, "enduser")
        chooser = wizard.query_one("#eu-from", Select)
        labels = [str(prompt) for prompt, _ in chooser._options[1:]]
        mine = next(n for n, label in enumerate(labels) if earlier.end_user["name"] in label)
        wizard.query_one("#eu-city", Input).value = "Typed by hand"
        chooser.value = mine
        await until(pilot, lambda: isinstance(console.app.screen, Confirm))
        assert "City" in console.app.screen.question
        await click(pilot, "#no")  # keep mine
        await until(pilot, lambda: console.app.screen is wizard)
        assert values(wizard)["eu-city"] == "Typed by hand" and values(wizard)["eu-name"] == ""
        chooser.value = Select.NULL
        await quiet(pilot)
        chooser.value = mine
        await until(pilot, lambda: isinstance(console.app.screen, Confirm))
        await click(pilot, "#yes")
        await until(pilot, lambda: values(wizard)["eu-name"] == earlier.end_user["name"])
        assert values(wizard)["eu-city"] == earlier.end_user.get("city", "")
        await next_step(pilot, wizard, "documents")  # the details pass the step's checks


async def test_the_application_typed_earlier_in_the_session_fills_the_next_wizard(kyc_dir):
    console = build_console()
    async with console.app.run_test(size=SIZE) as pilot:
        wizard = await open_wizard(pilot)
        wizard.query_one("#number", Input).value = "912272401010"
        await next_step(pilot, wizard, "requirements")
        await next_step(pilot, wizard, "enduser")
        await fill_end_user(pilot, wizard)
        await next_step(pilot, wizard, "documents")
        await fill_documents(pilot, wizard)
        typed = values(wizard)
        await pilot.press("escape")  # leave; what was typed is asked about, then discarded here
        await until(pilot, lambda: isinstance(console.app.screen, Confirm))
        await click(pilot, "#yes")
        await until(pilot, lambda: not isinstance(console.app.screen, (Confirm, RentalWizard)))
        await settle(pilot)

        wizard = await open_wizard(pilot)
        wizard.query_one("#number", Input).value = "912272401011"
        await next_step(pilot, wizard, "requirements")
        await next_step(pilot, wizard, "enduser")
        chooser = wizard.query_one("#eu-from", Select)
        first = str(chooser._options[1][0])
        assert first.startswith("Typed earlier in this session: Acme Telecom Pvt Ltd")
        chooser.value = 0
        await until(pilot, lambda: values(wizard)["eu-name"] == "Acme Telecom Pvt Ltd")
        await next_step(pilot, wizard, "documents")
        await quiet(pilot)
        now = values(wizard)
        for key in ("doc-0-path", "doc-1-path", "doc-2-path", "doc-0-field-gstin", "doc-2-field-pan"):
            assert now[key] == typed[key], key
        assert "typed earlier in this session" in str(wizard.query_one("#doc-earlier").content)
        await next_step(pilot, wizard, "review")  # the files were checked again and pass
