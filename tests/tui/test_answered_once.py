"""One gesture, one answer: a double click or a doubled Enter closes a dialog, never the screen
beneath it (random input found a double click on the palette's background stopping the console).
And a dialog answered by its worker while another screen is open over it (its keys, the palette)
closes, with what is over it, instead of that screen closing in its place."""

from __future__ import annotations

import asyncio

import httpx
import pytest
from textual import events
from textual.command import CommandList, CommandPalette

from tests.tui.console_scenes import build_console, settle, until
from tests.tui.wizard_host import wizard_of
from vap_console.tui.screens.agent_dialog import CreateAgentScreen
from vap_console.tui.screens.dialog import Confirm
from vap_console.tui.screens.keys_help import KeysHelpScreen
from vap_console.tui.screens.wizard import RentalWizard

SIZE = (100, 30)


def double_click(app, x: int, y: int) -> None:
    """What a terminal sends for a double click: two presses and releases, delivered at once
    (through the driver's own path, which tracks held buttons)."""
    for kind in (events.MouseMove, events.MouseDown, events.MouseUp, events.MouseDown, events.MouseUp):
        button = 0 if kind is events.MouseMove else 1
        app._driver.process_message(kind(None, x, y, 0, 0, button, False, False, False, screen_x=x, screen_y=y))


def background_point(palette: CommandPalette) -> tuple[int, int]:
    """A cell where a click lands on the palette itself: its dimmed background."""
    for y in range(SIZE[1] - 1, -1, -1):
        for x in range(SIZE[0]):
            if palette.get_widget_at(x, y)[0] is palette:
                return x, y
    raise AssertionError("the palette has no background to click on")


async def test_a_double_click_on_the_palettes_background_closes_only_the_palette() -> None:
    console = build_console(start_screen="variables")
    async with console.app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        beneath = console.app.screen
        await pilot.press("ctrl+p")
        await until(pilot, lambda: isinstance(console.app.screen, CommandPalette))
        double_click(console.app, *background_point(console.app.screen))
        await until(pilot, lambda: not isinstance(console.app.screen, CommandPalette))
        await settle(pilot)
        assert console.app.is_running and console.app.screen is beneath


async def test_a_double_click_on_a_command_runs_it_once() -> None:
    console = build_console(start_screen="variables")
    async with console.app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        ran: list[str] = []
        switch = console.app.action_area

        async def counted(mode: str) -> None:
            ran.append(mode)
            await switch(mode)

        console.app.action_area = counted  # type: ignore[method-assign]
        await pilot.press("ctrl+p", *"voices")
        await until(pilot, lambda: isinstance(console.app.screen, CommandPalette)
                    and console.app.screen.query_one(CommandList).option_count > 0)
        await settle(pilot)
        option = console.app.screen.query_one(CommandList)
        double_click(console.app, option.region.x + 2, option.region.y + 1)
        await until(pilot, lambda: not isinstance(console.app.screen, CommandPalette))
        await settle(pilot)
        assert console.app.is_running and ran == ["voices"], ran


async def test_two_answers_to_a_wizard_question_leave_the_wizard_open() -> None:
    console = build_console()
    async with console.app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("n")
        await until(pilot, lambda: isinstance(console.app.screen, RentalWizard))
        wizard = wizard_of(console.app)
        question = Confirm("A question over the wizard.", title="Anything?", yes="Yes")
        await console.app.push_screen(question)
        await settle(pilot)
        question.dismiss(False)
        question.dismiss(False)  # the second answer of a doubled key
        await settle(pilot)
        assert console.app.screen is wizard


class HoldAgentCreate(httpx.AsyncBaseTransport):
    """POST /v1/agents waits until the test lets it through: the create dialog's worker ends when
    the test says, with another screen opened over the dialog meanwhile."""

    def __init__(self, inner: httpx.AsyncBaseTransport) -> None:
        self.inner = inner
        self.held = asyncio.Event()
        self.gate = asyncio.Event()

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        if request.method == "POST" and request.url.path == "/v1/agents":
            self.held.set()
            await self.gate.wait()
        return await self.inner.handle_async_request(request)


@pytest.mark.parametrize(("key", "over"), [("f1", KeysHelpScreen), ("ctrl+p", CommandPalette)])
async def test_a_dialog_answered_under_another_screen_closes_and_escape_then_is_harmless(key, over) -> None:
    held: list[HoldAgentCreate] = []
    console = build_console(start_screen="templates", transport_wrapper=lambda inner: held.append(
        HoldAgentCreate(inner)) or held[0])
    app = console.app
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        templates = app.screen
        await pilot.press("a")
        await until(pilot, lambda: isinstance(app.screen, CreateAgentScreen))
        await settle(pilot)
        await pilot.press(*"Front desk 2", "enter")  # the agent is being created…
        await until(pilot, lambda: held[0].held.is_set())
        await pilot.press(key)  # …when the person opens the keys, or the palette, over the dialog
        await until(pilot, lambda: isinstance(app.screen, over))
        held[0].gate.set()  # the agent is created: the dialog answers
        await until(pilot, lambda: app.screen is templates)
        await settle(pilot)
        assert [type(s) for s in app.screen_stack] == [type(templates)]
        assert any(t.name == "Front desk 2" for t in console.account.agents.values())
        await pilot.press("escape")  # it answered again when it stayed up: the console stopped
        await settle(pilot)
        assert app._exception is None and app.is_running and app.screen is templates
