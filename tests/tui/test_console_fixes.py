"""QA's defects on the console, each as the person who found it would check it again."""

from __future__ import annotations

import io

from rich.console import Console
from textual.widgets import Button, Static

from tests.tui.console_scenes import build_console, settle
from vap_console.tui.screens.agents import AgentsScreen
from vap_console.tui.screens.confirm import ConfirmScreen
from vap_console.tui.screens.webcall import WebCallScreen
from vap_console.tui.widgets.banner import Banner
from vap_console.tui.widgets.rows import RowTable

SIZE = (120, 36)


def plain(widget: Static, width: int = 200) -> str:
    console = Console(width=width, record=True, file=io.StringIO())
    console.print(widget.content)
    return console.export_text()


def table(app) -> RowTable:  # noqa: ANN001
    return app.screen.query_one(RowTable)


def agent_id(console, prefix: str) -> str:  # noqa: ANN001
    return next(a.id for a in console.account.agents.values() if a.name.startswith(prefix))


# --- 3: banners clear, Retry repeats the request that failed ---


async def test_a_banner_clears_when_the_next_action_works_and_retry_repeats_the_failed_one() -> None:
    console = build_console(start_screen="agents")
    async with console.app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        banner = console.app.screen.query_one(Banner)
        table(console.app).move_to_key(agent_id(console, "Meera"))
        await pilot.press("w")
        await settle(pilot)
        assert "agent_not_deployed" in banner.message
        # Retry pressed with Kabir highlighted still asks for Meera's call (and fails the same way).
        table(console.app).move_to_key(agent_id(console, "Kabir"))
        await settle(pilot)
        await pilot.click("#banner-retry")
        await settle(pilot)
        assert isinstance(console.app.screen, AgentsScreen)
        assert console.account.webcalls == []
        assert "agent_not_deployed" in banner.message
        # Kabir's call works: the old banner goes.
        await pilot.press("w")
        await settle(pilot)
        assert isinstance(console.app.screen, WebCallScreen)
        assert console.account.webcalls[-1]["agentId"] == agent_id(console, "Kabir")
        await pilot.press("escape")
        await settle(pilot)
        assert banner.message == ""


async def test_escape_clears_a_banner() -> None:
    console = build_console(start_screen="agents")
    async with console.app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        table(console.app).move_to_key(agent_id(console, "Meera"))
        await pilot.press("w")
        await settle(pilot)
        banner = console.app.screen.query_one(Banner)
        assert "agent_not_deployed" in banner.message
        await pilot.press("escape")
        await settle(pilot)
        assert banner.message == ""
        assert not banner.query_one("#banner-retry", Button).region


async def test_the_builtin_note_does_not_stay_above_the_next_confirm() -> None:
    console = build_console(start_screen="tools")
    async with console.app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        tools = console.app.screen
        await pilot.press("d")  # end_call, built-in
        await settle(pilot)
        assert "cannot be edited or deleted" in tools.query_one(Banner).message
        custom = next(t.id for t in console.account.tools.values() if not t.id.startswith("default-"))
        table(console.app).move_to_key(custom)
        await pilot.press("d")
        await settle(pilot)
        assert isinstance(console.app.screen, ConfirmScreen)
        assert tools.query_one(Banner).message == ""
