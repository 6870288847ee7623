"""One gesture, one answer: a double click or a doubled Enter closes a dialog, never the screen
beneath it (random input found a double click on the palette's background stopping the console)."""

from __future__ import annotations

from textual import events
from textual.command import CommandList, CommandPalette

from tests.tui.console_scenes import build_console, settle, until
from tests.tui.wizard_host import wizard_of
from vap_console.tui.screens.dialog import Confirm
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
