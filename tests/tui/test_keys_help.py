"""`?` lists the console's own keys first, grouped, one line per action, under the screen's name;
every dialog has `?` and its own key bar."""

from __future__ import annotations

import io

from rich.console import Console
from textual.widgets import Static

from tests.tui.console_scenes import build_console, settle, until, web_call
from vap_console.tui.screens.keys_help import KeysHelpScreen
from vap_console.tui.screens.rental import RentalScreen
from vap_console.tui.screens.webcall import WebCallScreen
from vap_console.tui.widgets.key_bar import KeyBar

SIZE = (120, 36)


def help_lines(app) -> list[str]:
    screen = app.screen
    assert isinstance(screen, KeysHelpScreen)
    console = Console(width=110, record=True, file=io.StringIO())
    console.print(screen.query_one("#keys-help VerticalScroll Static", Static).content)
    return [line.rstrip() for line in console.export_text().splitlines()]


def title(app) -> str:
    return str(app.screen.query_one(".dialog-title", Static).content)


async def test_the_screens_keys_come_first_then_everywhere_one_line_per_action() -> None:
    console = build_console(start_screen="tools")
    async with console.app.run_test(size=SIZE) as pilot:
        app = console.app
        await settle(pilot)
        await pilot.press("question_mark")
        await until(pilot, lambda: isinstance(app.screen, KeysHelpScreen))
        assert title(app) == "Keys · Tools"
        lines = help_lines(app)
        headings = [line.strip() for line in lines if line.strip() in ("This screen", "Everywhere",
                                                                        "Text fields and scrolling")]
        assert headings[:2] == ["This screen", "Everywhere"]
        text = "\n".join(lines)
        assert text.index("Create an HTTP tool") < text.index("Everywhere") < text.index("area.numbers")
        quits = [line for line in lines if "Leave the console" in line]
        assert len(quits) == 1 and "q" in quits[0] and "^c" in quits[0]


async def test_screens_are_named_as_a_person_calls_them() -> None:
    console = build_console()
    async with console.app.run_test(size=SIZE) as pilot:
        app = console.app
        await settle(pilot)
        await pilot.press("enter")
        await until(pilot, lambda: isinstance(app.screen, RentalScreen))
        await pilot.press("question_mark")
        await until(pilot, lambda: isinstance(app.screen, KeysHelpScreen))
        assert title(app) == "Keys · Rental"


async def test_a_dialog_has_question_mark_and_its_own_key_bar() -> None:
    console = build_console(start_screen="agents")
    async with console.app.run_test(size=SIZE) as pilot:
        app = console.app
        await settle(pilot)
        await web_call(pilot)
        await until(pilot, lambda: isinstance(app.screen, WebCallScreen))
        await settle(pilot)
        bar = app.screen.query_one(KeyBar).render().plain
        assert "Copy host" in bar and "Copy token" in bar and "New tool" not in bar
        await pilot.press("question_mark")
        await until(pilot, lambda: isinstance(app.screen, KeysHelpScreen))
        assert title(app) == "Keys · Web call"
        text = "\n".join(help_lines(app))
        for binding_id in ("webcall.copy_host", "webcall.copy_room", "webcall.copy_call", "webcall.copy_token"):
            assert binding_id in text


async def test_in_a_text_field_ctrl_c_is_listed_as_what_it_does() -> None:
    console = build_console(start_screen="tools")
    async with console.app.run_test(size=SIZE) as pilot:
        app = console.app
        await settle(pilot)
        await pilot.press("n")
        await settle(pilot)
        await pilot.press("f1")  # `?` would be typed into the focused field
        await until(pilot, lambda: isinstance(app.screen, KeysHelpScreen))
        assert title(app) == "Keys · New tool"
        lines = help_lines(app)
        ctrl_c = [line for line in lines if line.strip().startswith("^c")]
        assert ctrl_c and all("Leave the console" in line for line in ctrl_c)
        assert not any("Copy selected text" in line and "^c" in line for line in lines)
