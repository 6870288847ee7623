"""The new-tool form checks as you type and on leaving a field, never changes a value silently,
asks before creating a tool with unknown placeholders and says what lies below the fold."""

from __future__ import annotations

import pytest
from textual.widgets import Input, Static

from tests.tui.console_scenes import build_console, settle, until
from tests.tui.test_console import field_error, open_tool_form
from vap_console.tui.screens.dialog import Confirm
from vap_console.tui.screens.tool_form import ToolFormScreen

SIZE = (120, 36)


async def test_a_message_appears_on_leaving_a_field_and_goes_as_soon_as_it_is_right() -> None:
    console = build_console(start_screen="tools")
    async with console.app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        form = await open_tool_form(pilot)
        await pilot.press(*"9lookup")
        assert field_error(console.app, "name") == ""  # not while first typing
        await pilot.press("tab")
        await settle(pilot)
        assert "must start with a letter" in field_error(console.app, "name")
        form.query_one("#f-name", Input).focus()
        await pilot.press("home", "delete")
        await settle(pilot)
        assert field_error(console.app, "name") == ""  # right now: the message is gone at once


async def test_a_timeout_in_seconds_is_read_as_milliseconds_and_shown_so() -> None:
    console = build_console(start_screen="tools")
    async with console.app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        form = await open_tool_form(pilot)
        box = form.query_one("#f-config-timeoutMs", Input)
        box.focus()
        await pilot.press(*"12.5s")
        await settle(pilot)
        assert box.value == "12.5s" and box.border_subtitle == "= 12,500 ms"
        for name, value in (("f-name", "slow_lookup"), ("f-description", "Slow"),
                            ("f-config-url", "https://crm.example/slow")):
            form.query_one(f"#{name}", Input).value = value
        await pilot.press("ctrl+s")
        await until(pilot, lambda: not isinstance(console.app.screen, ToolFormScreen))
        created = next(t for t in console.account.tools.values() if t.name == "slow_lookup")
        assert created.config["timeoutMs"] == 12_500


async def test_a_timeout_that_is_not_whole_milliseconds_is_refused_with_the_reason() -> None:
    console = build_console(start_screen="tools")
    async with console.app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        form = await open_tool_form(pilot)
        form.query_one("#f-config-timeoutMs", Input).focus()
        await pilot.press(*"12.5", "tab")
        await settle(pilot)
        assert form.query_one("#f-config-timeoutMs", Input).value == "12.5"  # kept as typed
        assert "12.5 ms: a timeout is whole milliseconds" in field_error(console.app, "config.timeoutMs")


async def test_unknown_placeholders_are_asked_about_before_the_tool_is_created() -> None:
    console = build_console(start_screen="tools")
    async with console.app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        before = len(console.account.tools)
        form = await open_tool_form(pilot)
        for name, value in (("f-name", "ask_me"), ("f-description", "Asks"),
                            ("f-config-url", "https://x.example/{call_id}/{nope}")):
            form.query_one(f"#{name}", Input).value = value
        await settle(pilot)
        warning = str(form.query_one("#placeholders", Static).render())
        assert "⚠ unknown: {nope}" in warning and "{call_id}" not in warning.split("unknown:")[1]
        await pilot.press("ctrl+s")
        await until(pilot, lambda: isinstance(console.app.screen, Confirm))
        body = str(console.app.screen.query_one(".dialog-body", Static).render())
        assert "{nope}" in body and "{call_id}" not in body.split("documents")[0]
        await pilot.press("n")
        await settle(pilot)
        assert console.app.screen is form and len(console.account.tools) == before


async def test_a_long_form_says_what_lies_below_until_it_is_scrolled_there() -> None:
    console = build_console(start_screen="tools")
    async with console.app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        form = await open_tool_form(pilot)
        await settle(pilot)
        note = form.query_one("#more-below", Static)
        assert note.display and "Auth token" in str(note.render()) and "Outputs" in str(note.render())
        form.query_one("#f-config-outputs").focus()
        await settle(pilot)
        await until(pilot, lambda: not note.display)


@pytest.mark.parametrize("size", [SIZE, (80, 24)])
async def test_the_count_of_fields_to_fix_follows_them_as_they_are_put_right(size) -> None:
    # "2 fields need fixing" stayed up, saying 2, after both were right.
    from vap_console.tui.widgets.banner import Banner

    console = build_console(start_screen="tools")
    async with console.app.run_test(size=size) as pilot:
        await settle(pilot)
        form = await open_tool_form(pilot)
        form.query_one("#f-config-url", Input).value = "https://crm.example/x"
        await pilot.press("ctrl+s")
        await settle(pilot)
        banner = form.query_one(Banner)
        assert banner.message == "2 fields need fixing before the tool can be created."
        form.query_one("#f-name", Input).value = "lookup_order"
        await settle(pilot)
        assert banner.message == "1 field needs fixing before the tool can be created."
        form.query_one("#f-description", Input).value = "Looks an order up"
        await settle(pilot)
        assert banner.message == ""
