"""Every screen and dialog over a hostile server: server text shows literally, never as markup,
an action link or terminal control, and odd but valid data displays instead of crashing."""

from __future__ import annotations

import httpx
import pytest
from textual.events import Paste
from textual.pilot import Pilot

from tests.tui.console_scenes import build_console, click, quiet, until
from tests.tui.hostile import LINK, LITERALS, MARKUP, Hostile, assert_drawn_safely
from tests.tui.wizard_host import next_step, set_value
from vap_console.tui.app import VapApp
from vap_console.tui.screens.dialog import Confirm
from vap_console.tui.screens.rental import RentalScreen
from vap_console.tui.widgets.banner import Banner
from vap_console.tui.widgets.rows import RowTable

SIZE = (120, 36)
AREAS = {"1": "numbers", "2": "tools", "3": "variables", "4": "voices", "5": "templates", "6": "agents"}


def hostile_console(**options):  # (Console, Hostile)
    made: list[Hostile] = []

    def wrap(inner: httpx.AsyncBaseTransport) -> Hostile:
        made.append(Hostile(inner))
        return made[0]

    console = build_console(transport_wrapper=wrap, **options)
    return console, made[0]


# Polling a rental goes on while its status is one the console does not know: not awaited.
FOLLOWING = {"rental-poll", "rental-resume"}


async def shown(pilot: Pilot, where: str, following: set[str] = FOLLOWING) -> str:
    """Wait until every request but the follow-ups (the rental's, by default) has its answer
    drawn; check the screen."""
    app = pilot.app
    for _ in range(3):
        await until(pilot, lambda: not [w for w in app.workers if w.is_running and w.group not in following])
        await quiet(pilot, workers=False)  # every answer's messages taken in, however slow the machine
    assert app.is_running and app._exception is None, f"{where}: the console stopped"
    return assert_drawn_safely(app, where)


@pytest.mark.slow
async def test_every_area_and_its_detail_show_server_text_literally() -> None:
    console, _ = hostile_console()
    seen: list[str] = []
    async with console.app.run_test(size=SIZE) as pilot:
        for key, area in AREAS.items():
            await pilot.press(key)
            seen.append(await shown(pilot, area))
            rows = pilot.app.screen.query_one(RowTable)
            assert rows.total_count > 0, f"{area}: the hostile rows did not display"
            for n in range(min(rows.total_count, 12)):
                rows.cursor = n  # each row's detail pane in turn
                seen.append(await shown(pilot, f"{area} row {n}"))
    drawn = "".join(seen)
    for literal in LITERALS:
        assert literal in drawn, f"{literal!r} is not shown as typed"
    assert "Devanagari" not in drawn and "नमस्ते" in drawn and "電話番号" in drawn


async def test_dialogs_quote_server_text_literally() -> None:
    console, _ = hostile_console()
    async with console.app.run_test(size=SIZE) as pilot:
        app = pilot.app
        await shown(pilot, "numbers")
        await pilot.press("enter")
        await until(pilot, lambda: isinstance(app.screen, RentalScreen))
        await shown(pilot, "rental timeline")
        await pilot.press("escape")

        await pilot.press("2")
        await shown(pilot, "tools")
        table = app.screen.query_one(RowTable)
        table.move_to_key(next(k for k in table.keys if not k.startswith("default-")))
        await pilot.press("d")
        await until(pilot, lambda: isinstance(app.screen, Confirm))
        await shown(pilot, "delete tool confirm")
        await pilot.press("escape")
        await pilot.press("n")
        await shown(pilot, "new tool form")
        await pilot.press("escape")

        await pilot.press("5")
        await shown(pilot, "templates")
        await pilot.press("a")
        await shown(pilot, "create agent dialog")
        await pilot.press("escape")

        await pilot.press("6")
        await shown(pilot, "agents")
        await pilot.press("w")
        text = await shown(pilot, "web call confirm")
        assert "Start a billed web call with" in text
        await pilot.press("y")
        text = await shown(pilot, "web call dialog")
        assert "Web call with" in text
        await pilot.press("escape")
        await pilot.press("d")
        await shown(pilot, "delete agent confirm")
        await pilot.press("escape")

        await pilot.press("question_mark")
        await shown(pilot, "keys help")
        await pilot.press("escape")
        await pilot.press("ctrl+p")
        await shown(pilot, "command palette")
        await pilot.press("escape")
        assert app.is_running


async def test_error_states_banners_and_toasts_quote_the_server_literally() -> None:
    console, hostile = hostile_console(start_screen="tools")
    async with console.app.run_test(size=SIZE) as pilot:
        app = pilot.app
        hostile.error = 500
        await pilot.press("r")
        text = await shown(pilot, "tools list error")
        assert "no route for [/v1/x]" in text and LINK in text

        hostile.error, hostile.spare = 422, {"/v1/tools"}
        await pilot.press("r")
        await shown(pilot, "tools again")
        table = app.screen.query_one(RowTable)
        table.move_to_key(next(k for k in table.keys if not k.startswith("default-")))
        await pilot.press("d")
        await until(pilot, lambda: isinstance(app.screen, Confirm))
        await pilot.press("y")
        text = await shown(pilot, "delete failed banner")
        banner = app.screen.query_one(Banner)
        assert "no route for [/v1/x]" in banner.message and "[name]" in banner.message
        assert "field [name] is required" in text

        app.notify(f"{MARKUP} \x1b]52;c;ZXZpbA==\x07", title=LINK)
        text = await shown(pilot, "toast")
        assert MARKUP in text and LINK in text
        assert isinstance(app, VapApp) and app.is_running


async def test_pasted_control_sequences_show_as_visible_escapes() -> None:
    console, _ = hostile_console(start_screen="tools")
    async with console.app.run_test(size=SIZE) as pilot:
        await shown(pilot, "tools")
        await pilot.press("slash")
        pilot.app.post_message(Paste("ops\x1b]52;c;ZXZpbA==\x07 [b]x"))
        text = await shown(pilot, "filter after paste")
        assert "ops␛]52;c;ZXZpbA==␇ [b]x" in text


async def test_the_wizard_quotes_requirements_and_search_results_literally() -> None:
    console, _ = hostile_console()
    async with console.app.run_test(size=SIZE) as pilot:
        await shown(pilot, "numbers")
        await pilot.press("n")
        await shown(pilot, "wizard")
        wizard = pilot.app.screen
        await click(pilot, "#search")
        await shown(pilot, "search results")
        set_value(wizard, "number", "912272401010")
        await next_step(pilot, wizard, "requirements")
        await shown(pilot, "requirements")
        await next_step(pilot, wizard, "enduser")
        await shown(pilot, "end user")
        set_value(wizard, "eu-name", "Acme [/] Ltd")
        await next_step(pilot, wizard, "documents")
        await shown(pilot, "documents")
