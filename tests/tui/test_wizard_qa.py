"""QA defects in the rental wizard, each driven as the user met it (Pilot on the sandbox)."""

from __future__ import annotations

import pytest
from rich.console import Console
from textual.widgets import Input

from tests.tui.console_scenes import build_console, click
from tests.tui.wizard_host import (
    confirm_rent,
    follow_to,
    next_step,
    pick_from_search,
    quiet,
    rental_shown,
    set_value,
    to_documents,
    to_review,
    until,
    wizard_of,
)
from vap_console.tui.screens.dialog import Confirm
from vap_console.tui.screens.keys_help import KeysHelpScreen
from vap_console.tui.screens.numbers import NumbersScreen
from vap_console.tui.screens.wizard import RentalWizard
from vap_console.tui.widgets.rows import RowTable

pytestmark = pytest.mark.usefixtures("fast_polls")


def on_screen(wizard, widget_id: str) -> bool:
    """The widget is inside the visible part of the step it belongs to."""
    step = wizard.query_one(f"#step-{wizard.step}")
    return step.region.contains_region(wizard.query_one(f"#{widget_id}").region)


# --- defect 1: the Documents step scrolls to what is focused and to the first problem ---


@pytest.mark.parametrize("size", [(120, 36), (100, 30)])
async def test_documents_step_scrolls_to_the_focused_field_and_the_first_problem(make_host, size):
    app = make_host()
    async with app.run_test(size=size) as pilot:
        wizard = wizard_of(app)
        await to_documents(pilot, wizard)
        assert not on_screen(wizard, "doc-2-field-pan")  # the third document starts below the edge
        set_value(wizard, "doc-0-field-gstin", "29ABCDE1234F1ZW")
        set_value(wizard, "doc-0-path", "kyc/incorporation.pdf")
        set_value(wizard, "doc-1-path", "kyc/electricity-bill.pdf")
        await quiet(pilot)
        # Next with the signatory's PAN and file missing: it names the first and shows it.
        await pilot.press("pagedown")
        await until(pilot, lambda: on_screen(wizard, "doc-2-field-pan")
                    and on_screen(wizard, "doc-2-field-pan-error"))
        assert wizard.step == "documents"
        assert app.screen.focused is wizard.query_one("#doc-2-field-pan", Input)
        message = str(wizard.banner.message)
        assert "Authorised signatory's ID" in message and "PAN: required" in message
        # Tab from the top walks down the documents, each field scrolled into view as it is focused.
        # (Focus scrolls smoothly: wait for the scroll to end rather than for a fixed time.)
        wizard.query_one("#doc-0-field-gstin", Input).focus()
        await until(pilot, lambda: on_screen(wizard, "doc-0-field-gstin"))
        for _ in range(5):
            await pilot.press("tab")
            await until(pilot, lambda: on_screen(wizard, app.screen.focused.id))
        pan = wizard.query_one("#doc-2-field-pan", Input)
        await until(pilot, lambda: app.screen.focused is pan)  # five fields down: the PAN
        await pilot.press(*"ABCDE1234F")
        await until(pilot, lambda: pan.value == "ABCDE1234F")
        # With the PAN typed, the next problem named is the missing file.
        await pilot.press("pagedown")
        await until(pilot, lambda: on_screen(wizard, "doc-2-path") and on_screen(wizard, "doc-2-path-error"))
        assert app.screen.focused is wizard.query_one("#doc-2-path", Input)
        assert "file: a file is required" in str(wizard.banner.message)


# --- defect 2: quitting the console with unsent wizard input asks first ---


async def open_console_wizard(pilot, app) -> RentalWizard:
    await until(pilot, lambda: isinstance(app.screen, NumbersScreen)
                and app.screen.query_one(RowTable).row_count > 0)
    await pilot.press("n")
    await until(pilot, lambda: isinstance(app.screen, RentalWizard))
    return wizard_of(app)


async def test_ctrl_c_with_unsent_wizard_input_asks_before_quitting():
    app = build_console().app
    exits: list[object] = []
    app.exit = lambda *a, **k: exits.append(a)  # type: ignore[method-assign]
    async with app.run_test(size=(120, 36)) as pilot:
        wizard = await open_console_wizard(pilot, app)
        await click(pilot, "#number")
        await pilot.press(*"912272401010")
        await pilot.press("ctrl+c")
        await until(pilot, lambda: isinstance(app.screen, Confirm))
        assert exits == []
        assert "has not been sent" in str(app.screen.query_one("#confirm-text").content)
        await click(pilot, "#no")  # Stay
        await until(pilot, lambda: app.screen is wizard)
        assert wizard.query_one("#number", Input).value == "912272401010"
        assert exits == []
        # Asked again; a second ctrl+c while asked means it.
        await pilot.press("ctrl+c")
        await until(pilot, lambda: isinstance(app.screen, Confirm))
        assert exits == []
        await pilot.press("ctrl+c")
        await until(pilot, lambda: exits)


async def test_ctrl_c_in_an_untouched_wizard_quits_at_once():
    app = build_console().app
    exits: list[object] = []
    app.exit = lambda *a, **k: exits.append(a)  # type: ignore[method-assign]
    async with app.run_test(size=(120, 36)) as pilot:
        await open_console_wizard(pilot, app)
        await pilot.press("ctrl+c")
        await until(pilot, lambda: exits)
        assert not isinstance(app.screen, Confirm)


# --- defect 10: the wizard's keys can be found ---


async def test_question_mark_in_a_field_shows_the_wizards_keys_and_enter_on_the_number_goes_on(make_host):
    app = make_host()
    async with app.run_test(size=(120, 36)) as pilot:
        wizard = wizard_of(app)
        assert "? keys" in str(wizard.query_one("#wizard-keys").content)
        await click(pilot, "#number")
        await pilot.press(*"912272401010", "?")
        await until(pilot, lambda: isinstance(app.screen, KeysHelpScreen))
        table = app.screen.query_one("#keys-help VerticalScroll Static").content
        console = Console(width=110, record=True)
        console.print(table)
        shown = console.export_text()
        for key, does in (("pgdn", "go to the next one"), ("pgup", "previous step"), ("esc", "Leave the wizard")):
            assert any(line.strip().startswith(key) and does in line for line in shown.splitlines()), shown
        assert "Delete character left" not in shown  # the field's editing keys are not the wizard's
        await pilot.press("escape")
        await until(pilot, lambda: app.screen is wizard)
        number = wizard.query_one("#number", Input)
        assert number.value == "912272401010" and app.screen.focused is number
        await pilot.press("enter")
        await until(pilot, lambda: wizard.step == "requirements")


# --- defect 19: a short wallet is told what really happens ---


async def test_short_wallet_confirm_and_rental_say_it_waits_for_auto_pay(make_host):
    app = make_host("sk_sandbox_short")
    async with app.run_test(size=(120, 36)) as pilot:
        wizard = wizard_of(app)
        await to_review(pilot, wizard)
        review = str(wizard.query_one("#review").content)
        assert "wallet now" not in review and "until auto-pay tops the wallet up" in review
        await pilot.press("pagedown")
        await until(pilot, lambda: isinstance(app.screen, Confirm))
        question = str(app.screen.query_one("#confirm-text").content)
        assert "wallet now" not in question
        assert "₹1,000.00" in question and "until auto-pay tops the wallet up" in question
        await click(pilot, "#yes")
        screen = await rental_shown(pilot, app)
        assert screen.rental.status == "funding"
        fields = str(screen.query_one("#rental-fields").content)
        assert "Prepaid" in fields and "nothing taken yet: waiting for auto-pay" in fields
        assert any("waits for auto-pay to top the wallet up" in toast for toast in app.toasts)


# --- defect 11: a substitute bought for a number taken meanwhile is said so ---


async def test_scenario_0004_says_the_requested_number_was_taken_and_a_substitute_bought(make_host):
    app = make_host()
    async with app.run_test(size=(120, 36)) as pilot:
        wizard = wizard_of(app)
        await to_review(pilot, wizard, pattern="", city="Mumbai", ending="0004")
        requested = wizard.query_one("#number", Input).value
        await confirm_rent(pilot, wizard)
        screen = await rental_shown(pilot, app)
        await follow_to(pilot, app, "active", step_seconds=2, limit=60)
        assert screen.rental.status == "active"
        fields = str(screen.query_one("#rental-fields").content)
        bought = screen.rental.e164
        assert bought and not bought.endswith(requested[-4:])
        assert f"Requested     +{requested} — taken meanwhile; the number above was bought instead" in fields
        assert any(f"{requested} was taken meanwhile; {bought} was bought instead" in toast
                   for toast in app.toasts)


# --- defect 18: bad values are refused where the rule is known ---


async def test_search_digits_number_form_and_document_identifiers_are_checked(make_host):
    app = make_host()
    async with app.run_test(size=(120, 36)) as pilot:
        wizard = wizard_of(app)
        await click(pilot, "#pattern")
        await pilot.press(*"45ab", "enter")
        await quiet(pilot)
        assert "Digits it contains: digits only" in str(wizard.query_one("#pattern-error").content)
        assert not wizard.query_one("#results").display  # no search was sent
        assert "Searching" not in str(wizard.query_one("#search-status").content)
        set_value(wizard, "pattern", "")
        # Typed with spacing: the field shows (and the wizard sends) the number without it.
        set_value(wizard, "number", "91 22 7240 1010")
        await next_step(pilot, wizard, "requirements")
        assert wizard.query_one("#number", Input).value == "912272401010"
        assert "Number +912272401010" in str(wizard.query_one("#requirements").content)
        await next_step(pilot, wizard, "enduser")
        set_value(wizard, "eu-name", "Acme Telecom Pvt Ltd")
        await next_step(pilot, wizard, "documents")
        set_value(wizard, "doc-0-field-gstin", "abc")
        set_value(wizard, "doc-2-field-pan", "ABCDE12345")
        await quiet(pilot)
        assert "GSTIN: 15 characters, not 3" in str(wizard.query_one("#doc-0-field-gstin-error").content)
        assert "PAN: 5 letters, 4 digits, 1 letter" in str(wizard.query_one("#doc-2-field-pan-error").content)
        set_value(wizard, "doc-0-path", "kyc/incorporation.pdf")
        set_value(wizard, "doc-1-path", "kyc/electricity-bill.pdf")
        set_value(wizard, "doc-2-path", "kyc/pan-card.png")
        await pilot.press("pagedown")
        await quiet(pilot)
        assert wizard.step == "documents" and "GSTIN: 15 characters" in str(wizard.banner.message)
        # Lower case is accepted and sent in capitals.
        set_value(wizard, "doc-0-field-gstin", "29abcde1234f1zw")
        set_value(wizard, "doc-2-field-pan", "abcde1234f")
        await next_step(pilot, wizard, "review")
        review = str(wizard.query_one("#review").content)
        assert "gstin: 29ABCDE1234F1ZW" in review and "pan: ABCDE1234F" in review
        assert app.spy.posts == []


async def test_requirements_name_the_picked_number_with_its_e164_and_city(make_host):
    app = make_host()
    async with app.run_test(size=(120, 36)) as pilot:
        wizard = wizard_of(app)
        await pick_from_search(pilot, wizard, "1010")
        await next_step(pilot, wizard, "requirements")
        assert "Number +912272401010, Mumbai" in str(wizard.query_one("#requirements").content)


# --- defect 13: the 402 message says each thing once ---


async def test_no_autopay_message_says_what_to_do_once(make_host):
    app = make_host("sk_sandbox_noautopay")
    async with app.run_test(size=(120, 36)) as pilot:
        wizard = wizard_of(app)
        await to_review(pilot, wizard)
        await confirm_rent(pilot, wizard)
        await until(pilot, lambda: wizard.banner.message)
        message = str(wizard.banner.message).lower()
        assert "telephony_autopay_required" in message and "press retry" in message
        assert message.count("dashboard") == 1, message
        assert message.count("set up") + message.count("set one up") + message.count("set a mandate") == 1, message
