"""What a newcomer to the rental wizard reads: identifiers checked as the docs say, counts in
good English, numbers in E.164, the review without empty search filters."""

from __future__ import annotations

import pytest
from textual.widgets import DataTable, Input

from tests.tui.wizard_host import (
    click,
    fill_documents,
    fill_end_user,
    next_step,
    pick_from_search,
    quiet,
    set_value,
    to_review,
    until,
    wizard_of,
)
from vap_console.tui.screens.wizard.rules import gstin_check_character

pytestmark = pytest.mark.usefixtures("fast_polls")


@pytest.mark.parametrize("gstin", ["27AAPFU0939F1ZV", "29AAGCB7383J1Z4", "07AAACB2894G1ZP"])
def test_the_gstin_check_character_of_real_registrations(gstin: str) -> None:
    assert gstin_check_character(gstin[:14]) == gstin[14]


async def test_a_gstin_with_a_wrong_check_character_is_refused_on_its_field(make_host):
    app = make_host()
    async with app.run_test(size=(120, 36)) as pilot:
        wizard = wizard_of(app)
        set_value(wizard, "number", "912272401010")
        await next_step(pilot, wizard, "requirements")
        await next_step(pilot, wizard, "enduser")
        await fill_end_user(pilot, wizard)
        await next_step(pilot, wizard, "documents")
        await fill_documents(pilot, wizard)
        set_value(wizard, "doc-0-field-gstin", "27ABCDE1234F1ZX")
        await quiet(pilot)
        error = str(wizard.query_one("#doc-0-field-gstin-error").content)
        assert "check character is X" in error and "must be" in error
        await pilot.press("pagedown")
        await quiet(pilot)
        assert wizard.step == "documents"  # not sent on
        set_value(wizard, "doc-0-field-gstin", "27ABCDE1234F1Z" + gstin_check_character("27ABCDE1234F1Z"))
        await next_step(pilot, wizard, "review")


async def test_one_number_found_is_said_in_the_singular(make_host):
    app = make_host()
    async with app.run_test(size=(120, 36)) as pilot:
        wizard = wizard_of(app)
        await pick_from_search(pilot, wizard, "", city="Pune")
        table = wizard.query_one("#results", DataTable)
        only = str(next(iter(table.rows)).value)
        set_value(wizard, "pattern", only)
        set_value(wizard, "city", "")
        await click(pilot, "#search")
        await until(pilot, lambda: table.row_count == 1)
        assert str(wizard.query_one("#search-status").content).startswith("1 number found")


async def test_the_review_shows_e164_and_only_the_search_filters_that_were_used(make_host):
    app = make_host()
    async with app.run_test(size=(120, 36)) as pilot:
        wizard = wizard_of(app)
        await to_review(pilot, wizard, city="Pune")
        review = str(wizard.query_one("#review").content)
        number_line = review.splitlines()[0]
        assert number_line.startswith("Number  +91")
        assert "found in Pune" in review and "pattern" not in review and "—" not in review.splitlines()[1]


async def test_a_typed_number_has_no_search_line_in_the_review(make_host):
    app = make_host()
    async with app.run_test(size=(120, 36)) as pilot:
        wizard = wizard_of(app)
        await to_review(pilot, wizard, number="912272401010")
        review = str(wizard.query_one("#review").content)
        assert review.splitlines()[0] == "Number  +912272401010" and "found" not in review


async def test_the_examples_the_number_step_shows_are_numbers_the_sandbox_stocks(make_host):
    # A newcomer on `make demo` types what the placeholders suggest: the digits find numbers, and
    # the example number goes on to the requirements (4567 and +918045670001 found nothing).
    app = make_host()
    async with app.run_test(size=(120, 36)) as pilot:
        wizard = wizard_of(app)
        pattern = wizard.query_one("#pattern", Input)
        number = wizard.query_one("#number", Input)
        digits = pattern.placeholder.removeprefix("e.g. ")
        example = number.placeholder.rsplit("e.g. ", 1)[1]
        await pick_from_search(pilot, wizard, digits)
        found = [str(row.value) for row in wizard.query_one("#results", DataTable).rows]
        assert found and all(digits in n for n in found)
        set_value(wizard, "number", example)
        await next_step(pilot, wizard, "requirements")


@pytest.mark.parametrize("size", [(120, 36), (80, 24)])
async def test_the_fix_banner_follows_the_marked_fields_and_goes_when_none_is_left(make_host, size):
    # "Fix before going on: …" went on naming a field already put right.
    from tests.tui.wizard_host import fill_end_user

    app = make_host()
    async with app.run_test(size=size) as pilot:
        wizard = wizard_of(app)
        set_value(wizard, "number", "912272401010")
        await next_step(pilot, wizard, "requirements")
        await next_step(pilot, wizard, "enduser")
        await fill_end_user(pilot, wizard)
        set_value(wizard, "eu-email", "not an email")
        set_value(wizard, "eu-name", "")
        await quiet(pilot)
        await pilot.press("pagedown")
        await quiet(pilot)
        assert wizard.step == "enduser"
        assert wizard.banner.message.startswith("Fix before going on: ")
        assert "(and 1 more marked below)" in wizard.banner.message
        set_value(wizard, "eu-email", "ops@acme.example")
        await until(pilot, lambda: "more marked" not in wizard.banner.message)
        assert wizard.banner.message.startswith("Fix before going on: ")
        set_value(wizard, "eu-name", "Acme Telecom Pvt Ltd")
        await until(pilot, lambda: wizard.banner.message == "")
        assert wizard.step == "enduser"
