"""Snapshots at 120×36 of every wizard step and its error states, on the sandbox's virtual clock."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.widgets import Input

from tests.tui.wizard_host import (
    answer,
    confirm_rent,
    fill_documents,
    next_step,
    pick_from_search,
    quiet,
    set_value,
    to_documents,
    to_review,
    until,
    wizard_of,
)
from vap_console.tui.screens.dialog import Confirm

SIZE = (120, 36)


async def settle(pilot) -> None:
    # A blinking cursor, a button still showing its press (0.2 s) or hovered by where the last
    # click left the mouse would make the picture depend on the moment it is taken.
    for screen in pilot.app.screen_stack:
        for widget in screen.query(Input):
            widget.cursor_blink = False
    # The mouse rests on the top line, whose tooltip would show in the picture whenever taking
    # it outlasts Textual's half-second delay (a busy machine): no tooltip comes up.
    pilot.app.TOOLTIP_DELAY = 3600
    await pilot.hover(offset=(0, 0))
    await until(pilot, lambda: not pilot.app.screen.query("Button.-active"))
    # Buttons mounted with a banner, a focus that moves a message later: wait until two frames in
    # a row draw the same picture.
    previous = None
    for _ in range(100):
        await quiet(pilot)  # every message handled: Pilot.pause() can return with some queued
        await pilot.wait_for_scheduled_animations()
        current = pilot.app.export_screenshot()
        if current == previous:
            return
        previous = current
    raise AssertionError("the screen never settled")


# --- each step ---


def test_snapshot_step_number_with_search_results(snap_compare, make_host):
    async def run(pilot):
        await pick_from_search(pilot, wizard_of(pilot.app), "", city="Mumbai")
        await settle(pilot)

    assert snap_compare(make_host(), terminal_size=SIZE, run_before=run)


def test_snapshot_step_requirements(snap_compare, make_host):
    async def run(pilot):
        wizard = wizard_of(pilot.app)
        await pick_from_search(pilot, wizard, "1010")
        await next_step(pilot, wizard, "requirements")
        await settle(pilot)

    assert snap_compare(make_host(), terminal_size=SIZE, run_before=run)


def test_snapshot_step_end_user_with_errors(snap_compare, make_host):
    async def run(pilot):
        wizard = wizard_of(pilot.app)
        set_value(wizard, "number", "912272401010")
        await next_step(pilot, wizard, "requirements")
        await next_step(pilot, wizard, "enduser")
        set_value(wizard, "eu-email", "ops@acme")
        await pilot.press("pagedown")
        await settle(pilot)

    assert snap_compare(make_host(), terminal_size=SIZE, run_before=run)


def test_snapshot_step_documents_with_a_bad_file(snap_compare, make_host):
    async def run(pilot):
        wizard = wizard_of(pilot.app)
        Path("kyc/notes.pdf").write_text("not a pdf at all")
        await to_documents(pilot, wizard)
        await fill_documents(pilot, wizard)
        set_value(wizard, "doc-1-path", "kyc/notes.pdf")
        await settle(pilot)

    assert snap_compare(make_host(), terminal_size=SIZE, run_before=run)


def test_snapshot_step_review(snap_compare, make_host):
    async def run(pilot):
        await to_review(pilot, wizard_of(pilot.app), pattern="1010")
        await settle(pilot)

    assert snap_compare(make_host(), terminal_size=SIZE, run_before=run)


def test_snapshot_confirm_names_the_wallet_charge(snap_compare, make_host):
    async def run(pilot):
        wizard = wizard_of(pilot.app)
        await to_review(pilot, wizard)
        await pilot.press("pagedown")
        await until(pilot, lambda: isinstance(pilot.app.screen, Confirm))
        await settle(pilot)

    assert snap_compare(make_host(), terminal_size=SIZE, run_before=run)


def test_snapshot_submit_waiting_out_a_429(snap_compare, make_host):
    app = make_host()
    limited = answer(429, {"error": "Too many requests", "code": "rate_limited"}, {"Retry-After": "30"})
    app.spy.plan.extend([limited, limited, limited])

    async def run(pilot):
        wizard = wizard_of(pilot.app)
        await to_review(pilot, wizard)
        await confirm_rent(pilot, wizard)
        await until(pilot, lambda: "Sending again in" in str(wizard.query_one("#submit-status").content))
        wizard._stop_countdown()  # freeze the countdown for the picture
        await settle(pilot)

    assert snap_compare(app, terminal_size=SIZE, run_before=run)


def test_snapshot_verified_kyc_review(snap_compare, make_host):
    async def run(pilot):
        await to_review(pilot, wizard_of(pilot.app))
        await settle(pilot)

    assert snap_compare(make_host("sk_sandbox_verified"), terminal_size=SIZE, run_before=run)


# --- error states ---


def test_snapshot_error_ineligible(snap_compare, make_host):
    async def run(pilot):
        wizard = wizard_of(pilot.app)
        set_value(wizard, "number", "912272401010")
        await next_step(pilot, wizard, "requirements")
        await settle(pilot)

    assert snap_compare(make_host("sk_sandbox_ineligible"), terminal_size=SIZE, run_before=run)


@pytest.mark.parametrize(("key", "pattern"), [("sk_sandbox_noautopay", "1010"), ("sk_sandbox_agent", "0005")])
def test_snapshot_error_on_submit(snap_compare, make_host, key, pattern):
    async def run(pilot):
        wizard = wizard_of(pilot.app)
        await to_review(pilot, wizard, pattern=pattern)
        await confirm_rent(pilot, wizard)
        await until(pilot, lambda: wizard.banner.message)
        await settle(pilot)

    assert snap_compare(make_host(key), terminal_size=SIZE, run_before=run)


def test_snapshot_error_422_lands_on_the_number(snap_compare, make_host):
    async def run(pilot):
        wizard = wizard_of(pilot.app)
        await to_review(pilot, wizard, number="+14155550100")
        await confirm_rent(pilot, wizard)
        await until(pilot, lambda: wizard.step == "number" and wizard.banner.message)
        await settle(pilot)

    assert snap_compare(make_host(), terminal_size=SIZE, run_before=run)


def test_snapshot_error_not_configured(snap_compare, make_host):
    async def run(pilot):
        wizard = wizard_of(pilot.app)
        set_value(wizard, "number", "912272401010")
        await next_step(pilot, wizard, "requirements")
        await until(pilot, lambda: wizard.banner.message)
        await settle(pilot)

    assert snap_compare(make_host("sk_sandbox_notelephony"), terminal_size=SIZE, run_before=run)


def test_snapshot_documents_on_a_server_without_the_extensions(snap_compare, make_host):
    from tests.tui.test_wizard import without_extensions

    app = make_host()
    app.spy.inner = without_extensions(app.spy.inner)

    async def run(pilot):
        wizard = wizard_of(pilot.app)
        await to_documents(pilot, wizard)
        set_value(wizard, "doc-0-type", "business_registration")
        set_value(wizard, "doc-0-data", "gstin=29ABCDE1234F1ZW")
        set_value(wizard, "doc-0-path", "kyc/incorporation.pdf")
        await settle(pilot)

    assert snap_compare(app, terminal_size=SIZE, run_before=run)
