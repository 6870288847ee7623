"""The stylesheet is parsed again only when it changes: opening an area for the first time used to
re-parse every rule of every widget (200-320 ms of the UI thread each time, most of the first
switch to an area), yet a change of theme must still restyle what is on screen."""

from __future__ import annotations

import pytest
from textual.css.stylesheet import Stylesheet

from tests.tui.console_scenes import build_console, settle, until

SIZE = (120, 36)


@pytest.fixture
def reparses(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    calls: list[int] = []
    original = Stylesheet.reparse

    def counted(self: Stylesheet) -> None:
        calls.append(1)
        original(self)

    monkeypatch.setattr(Stylesheet, "reparse", counted)
    return calls


async def test_opening_each_area_the_first_time_parses_no_css_again(reparses: list[int]) -> None:
    console = build_console()
    async with console.app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        reparses.clear()
        for key, screen in zip("23456", ("Tools", "Variables", "Voices", "Templates", "Agents"),
                               strict=True):
            await pilot.press(key)
            await until(pilot, lambda s=screen: type(pilot.app.screen).__name__ == f"{s}Screen")
            await settle(pilot)
        assert reparses == []


async def test_a_theme_change_still_restyles_the_screen(reparses: list[int]) -> None:
    console = build_console()
    async with console.app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        before = pilot.app.screen.styles.background
        reparses.clear()
        pilot.app.theme = "textual-light" if pilot.app.current_theme.dark else "textual-dark"
        await until(pilot, lambda: pilot.app.screen.styles.background != before)
        assert reparses, "a new theme's variables are applied by parsing the CSS again"
        await pilot.press("2")
        await until(pilot, lambda: type(pilot.app.screen).__name__ == "ToolsScreen")
        await settle(pilot)
        # The area opened after the change has the new theme's colours too.
        assert pilot.app.screen.styles.background != before
