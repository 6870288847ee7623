"""The Tools list and detail say what a person needs: URLs get the room an always-empty column
took, built-in tools are marked, auth "none" names no header, the server's performed action is
explained."""

from __future__ import annotations

from textual.widgets import Static

from tests.tui.console_scenes import build_console, settle, until
from tests.tui.test_console_fixes import plain, shown_rows, table

SIZE = (120, 36)


async def test_urls_get_the_room_and_built_in_tools_are_marked_on_their_name() -> None:
    console = build_console(start_screen="tools")
    async with console.app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        rows = table(console.app)
        header = rows.render_line(0).text
        assert "Built-in" not in header
        tools = [console.account.tools[key] for key in rows.keys]
        for line, tool in zip(shown_rows(console.app), tools):
            url = tool.config["url"].removeprefix("https://")
            assert url[:30] in line, (url, line)  # was cut at 25 columns
            assert (f"{tool.name}°" in line) == tool.id.startswith("default-")
        count = plain(console.app.screen.query_one("#list-count", Static))
        assert "° built-in" in count


async def test_auth_none_names_no_header_and_the_performed_action_is_explained() -> None:
    console = build_console(start_screen="tools")
    async with console.app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        rows = table(console.app)
        builtin = next(key for key in rows.keys if key.startswith("default-"))
        rows.move_to_key(builtin)
        detail = console.app.screen.query_one("#detail", Static)
        await until(pilot, lambda: "performed action" in plain(detail))
        text = " ".join(plain(detail, width=300).split())
        assert "auth none (no credentials sent)" in text and "X-API-Key" not in text
        assert "end_call: set by the server" in text
