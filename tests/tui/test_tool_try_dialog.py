"""`x` on Tools: the Try dialog calls a real webhook on loopback as the platform would, shows the
status, the time against the timeout and each output → variable with ✔/✘, names a placeholder
nothing fills before sending, keeps what was typed after a failure, works by mouse, copies."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from textual.pilot import Pilot
from textual.widgets import Button, Input, Static

from tests.tui.console_scenes import (
    BASE_URL,
    SIZE,
    Console,
    build_console,
    click,
    open_tool_try,
    settle,
    until,
)
from tests.webhook import Webhook, tool_document
from vap_console.api import VapClient
from vap_console.api.models import ToolCreate
from vap_console.sandbox.keys import DEFAULT_KEY
from vap_console.tui.screens.tool_try_dialog import ToolTryDialog
from vap_console.tui.widgets.field_error import FieldError

SECRET = "whsec-1a2b3c4d5e6f-7788"


@pytest.fixture
def hook() -> Iterator[Webhook]:
    with Webhook() as server:
        yield server


async def add_tool(console: Console, name: str, url: str, **config: Any) -> None:
    async with VapClient(BASE_URL, DEFAULT_KEY, transport=httpx.ASGITransport(app=console.sandbox)) as client:
        await client.create_tool(ToolCreate.model_validate(tool_document(name, url, **config)))


async def open_try(pilot: Pilot, name: str) -> ToolTryDialog:
    dialog = await open_tool_try(pilot, name)
    assert isinstance(dialog, ToolTryDialog)
    return dialog


def shown(dialog: ToolTryDialog, selector: str) -> str:
    return str(dialog.query_one(selector, Static).render())


def answered(dialog: ToolTryDialog) -> bool:
    return "Answer" in shown(dialog, "#try-result")


async def tried(pilot: Pilot, name: str) -> str:
    """The Try dialog of ``name`` opened and sent: what it shows of the answer."""
    dialog = await open_try(pilot, name)
    await pilot.press("ctrl+s")
    await until(pilot, lambda: answered(dialog))
    return shown(dialog, "#try-result")


async def test_an_argument_typed_goes_out_and_the_outputs_are_checked(hook: Webhook) -> None:
    console = build_console(start_screen="tools")
    await add_tool(console, "aa_lookup", hook.url + "/ok/{doctor}",
                   params=[{"name": "city", "value": "{city}"}],
                   llmParams=[{"name": "doctor", "type": "string"}],
                   outputs=[{"name": "patient_name", "path": "data.name"},
                            {"name": "patient_plan", "path": "data.plan"}])
    async with console.app.run_test(size=SIZE) as pilot:
        dialog = await open_try(pilot, "aa_lookup")
        await pilot.press(*"Mehta")
        # The request as it will go, before anything is sent: the argument and the variable filled.
        await until(pilot, lambda: "/ok/Mehta?city=Pune" in shown(dialog, "#try-request"))
        assert not hook.arrived
        await pilot.press("ctrl+s")
        await until(pilot, lambda: answered(dialog))
        [got] = hook.arrived
        assert (got.path, got.query) == ("/ok/Mehta", "city=Pune")
        result = shown(dialog, "#try-result")
        assert "200 OK" in result and "ms of 10,000 ms (timeoutMs)" in result
        assert "✔ patient_name ← data.name  = Asha Rao" in result
        assert "✘ patient_plan ← data.plan  = missing" in result
        assert "the contract does not hold" in result


async def test_a_placeholder_nothing_fills_is_named_and_nothing_is_sent(hook: Webhook) -> None:
    console = build_console(start_screen="tools")
    await add_tool(console, "aa_orders", hook.url + "/ok/{order_ref}", llmParams=[{"name": "doctor"}],
                   body='{"shop": "{shop_code}"}', method="POST")
    async with console.app.run_test(size=SIZE) as pilot:
        dialog = await open_try(pilot, "aa_orders")
        # {shop_code} is neither an argument nor a variable: it gets a field of its own.
        assert "{shop_code} (placeholder)" in str(dialog.query_one("#try-open-1", Input).border_title)
        await pilot.press("ctrl+s")
        await settle(pilot)
        problem = dialog.query_one("#try-problem", FieldError).message
        assert "nothing fills {order_ref} (url), {shop_code} (body)" in problem
        assert not hook.arrived and not answered(dialog)


async def test_a_failing_webhook_keeps_what_was_typed_and_send_works_by_mouse(hook: Webhook) -> None:
    console = build_console(start_screen="tools")
    copied: list[str] = []
    console.app.copy_to_clipboard = copied.append  # type: ignore[method-assign]
    await add_tool(console, "aa_broken", hook.url + "/status/503?d={doctor}", llmParams=[{"name": "doctor"}],
                   auth={"type": "bearer", "token": "stored"}, outputs=[{"name": "p_name", "path": "data.name"}])
    async with console.app.run_test(size=SIZE) as pilot:
        dialog = await open_try(pilot, "aa_broken")
        dialog.query_one("#try-arg-0", Input).value = "Mehta"
        dialog.query_one("#try-secret", Input).value = SECRET
        await settle(pilot)
        assert SECRET not in shown(dialog, "#try-request") and "…7788" in shown(dialog, "#try-request")
        await click(pilot, "#try-send")
        await until(pilot, lambda: answered(dialog))
        assert hook.arrived[0].headers["authorization"] == f"Bearer {SECRET}"
        result = shown(dialog, "#try-result")
        assert "503" in result and "✘ p_name ← data.name  = missing" in result
        assert dialog.query_one("#try-arg-0", Input).value == "Mehta"
        assert dialog.query_one("#try-secret", Input).value == SECRET
        # Sent again as it stands, with one more click: nothing to type again.
        assert not dialog.query_one("#try-send", Button).disabled
        await pilot.press("c")
        await until(pilot, lambda: bool(copied))
        assert "503" in copied[0] and "p_name" in copied[0] and SECRET not in copied[0]


async def test_without_a_secret_the_dialog_says_it_goes_without_auth(hook: Webhook) -> None:
    console = build_console(start_screen="tools")
    await add_tool(console, "aa_keyed", hook.url + "/echo-secret",
                   auth={"type": "api_key", "headerName": "X-Shop-Key", "token": "stored"})
    async with console.app.run_test(size=SIZE) as pilot:
        dialog = await open_try(pilot, "aa_keyed")
        assert "api_key: no secret typed, sent without auth" in shown(dialog, "#try-request")
        await click(pilot, "#try-send")
        await until(pilot, lambda: answered(dialog))
        assert "x-shop-key" not in hook.arrived[0].headers
        assert "200 OK" in shown(dialog, "#try-result")


async def test_a_slow_webhook_is_drawn_against_its_timeout_and_its_text_shown_literally(hook: Webhook) -> None:
    console = build_console(start_screen="tools")
    await add_tool(console, "aa_slow", hook.url + "/slow", timeoutMs=300)
    await add_tool(console, "ab_hostile", hook.url + "/hostile", outputs=[{"name": "h_name", "path": "data.name"}])
    async with console.app.run_test(size=SIZE) as pilot:
        result = await tried(pilot, "aa_slow")
        assert "no complete answer within 300 ms (timeoutMs)" in result
        assert "█" * 24 + "  " in result and "ms of 300 ms (timeoutMs)" in result  # the whole bar: all used
        await pilot.press("escape")
        await until(pilot, lambda: not isinstance(pilot.app.screen, ToolTryDialog))
        result = await tried(pilot, "ab_hostile")
        assert "✔ h_name ← data.name" in result
        assert not any(ch in result for ch in "\x1b\x07\x00\x9b")


@pytest.mark.parametrize("route", ["/huge", "/huge-declared"])
async def test_an_answer_over_the_read_cap_is_said_to_be_not_read_whole(hook: Webhook, route: str) -> None:
    # Found by hand: a 5 MB JSON answer read "not JSON", and "cut for showing; c copies" followed
    # a body of which nothing was read (its Content-Length alone was over the cap).
    console = build_console(start_screen="tools")
    await add_tool(console, "huge", hook.url + route)
    async with console.app.run_test(size=SIZE) as pilot:
        result = await tried(pilot, "huge")
        assert "bytes, not read as JSON, over the 1,048,576-byte read cap: not read whole" in result
        assert "not JSON" not in result
        # The first 16 KiB that were read are shown and can be copied; of nothing read, nothing is said.
        assert ("cut for showing" in result) == (route == "/huge")


async def test_at_80x24_the_answer_is_scrolled_into_view_with_the_buttons(hook: Webhook) -> None:
    console = build_console(start_screen="tools")
    await add_tool(console, "aa_small", hook.url + "/ok/{doctor}?s={slot}&r={room}&w={ward}",
                   llmParams=[{"name": "doctor"}, {"name": "slot"}, {"name": "room"}],
                   auth={"type": "basic", "username": "desk", "password": "x"},
                   outputs=[{"name": "s_name", "path": "data.name"}, {"name": "s_tier", "path": "data.tier"}])
    async with console.app.run_test(size=(80, 24)) as pilot:
        dialog = await open_try(pilot, "aa_small")
        await pilot.press(*"Mehta")
        await pilot.press("tab", *"10", "tab", *"4", "tab", *"B")
        await click(pilot, "#try-send")
        await until(pilot, lambda: answered(dialog))
        await settle(pilot)
        screen_region = dialog.region
        for selector in ("#try-send", "#try-copy", "#try-close"):
            assert screen_region.contains_region(dialog.query_one(selector).region), selector
        # The answer's first lines (status, time, verdict) sit above the buttons, not under them.
        box = dialog.query_one("#tool-try")
        result = dialog.query_one("#try-result")
        buttons = dialog.query_one(".dialog-buttons")
        await until(pilot, lambda: box.region.y < result.region.y and result.region.y + 3 <= buttons.region.y)
