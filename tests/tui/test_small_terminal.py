"""The console in an 80×24 terminal, the smallest common one, and in a 200×50 one.

Snapshots of every scene of console_scenes.py (every screen, its empty and error states, every
dialog) at 80×24, and what a person would notice: the whole number and its city in a Numbers
row, buttons on screen, a top line and a key bar that shorten instead of stopping mid-word; at
200×50, the room used (a wider detail pane, every column whole).
"""

from __future__ import annotations

import pytest
from rich.cells import cell_len
from textual.widgets import Button, Static

from tests.credentials.backends import MemoryKeyring
from tests.credentials.fake_api import verify_async
from tests.tui.console_scenes import SCENES, build_console, laid_out, settle, until
from vap_console.credentials import KeyStore
from vap_console.tui.screens.login import LoginApp
from vap_console.tui.screens.webcall import WebCallConfirm
from vap_console.tui.widgets.key_bar import KeyBar
from vap_console.tui.widgets.rows import RowTable
from vap_console.tui.widgets.status_bar import StatusBar

SMALL = (80, 24)
LARGE = (200, 50)


@pytest.mark.parametrize("name", sorted(SCENES))
def test_snapshot_scene_80x24(name: str, snap_compare) -> None:
    scene = SCENES[name]
    assert snap_compare(scene.build().app, terminal_size=SMALL, run_before=scene.run)


def test_snapshot_login_80x24(snap_compare) -> None:
    app = LoginApp(KeyStore(backend=MemoryKeyring()), profile="default",
                   reason="No profile yet: enter a name, the API's base URL and an API key.",
                   verify=verify_async)
    assert snap_compare(app, terminal_size=SMALL)


def lines_of(table: RowTable) -> list[str]:
    return [table.render_line(y).text for y in range(table.row_count + 1)]


def bar_entries(app) -> list[str]:
    """What the key bar shows, entry by entry (`key description`)."""
    bar = app.screen.query_one(KeyBar)
    text = bar.render().plain
    return [text[start:end].strip().lstrip("▏").strip() for start, end, _ in bar._spans]


def assert_bar_whole(app, width: int) -> None:
    """Every entry of the key bar is a key and whole words from its description, and `?` is there."""
    bar = app.screen.query_one(KeyBar)
    shown, palette = bar._keys()
    allowed = {f"{k.display} {k.description}".strip() for k in [*shown, *([palette] if palette else [])]}
    allowed |= {f"{k.display} {k.short}".strip() for k in shown}
    entries = bar_entries(app)
    assert entries and all(entry in allowed for entry in entries), (entries, allowed)
    assert any(entry.split(" ", 1)[0] in ("?", "f1") for entry in entries), entries
    assert cell_len(bar.render().plain.rstrip()) <= width


async def test_numbers_at_80x24_shows_whole_numbers_city_rent_and_renewal() -> None:
    console = build_console()
    async with console.app.run_test(size=SMALL) as pilot:
        await settle(pilot)
        table = console.app.screen.query_one(RowTable)
        assert table.shown_columns() == ["Status", "Number", "Type", "Ctry", "City", "Rent/mo", "Renews"]
        lines = lines_of(table)
        rentals = [console.app.screen.items[key] for key in table.keys]
        for line, rental in zip(lines[1:], rentals):
            number = rental.e164 or rental.requested_number
            assert f"+{number.lstrip('+')}" in line, line
            assert rental.city in line and "…" not in line, line
        # The detail pane is below the list, as wide as the list.
        pane, detail = console.app.screen.query_one("#list-pane"), console.app.screen.query_one("#detail-pane")
        assert detail.region.y >= pane.region.bottom and detail.region.width == pane.region.width


async def test_variables_at_80x24_show_every_name_whole() -> None:
    console = build_console(start_screen="variables")
    async with console.app.run_test(size=SMALL) as pilot:
        await settle(pilot)
        table = console.app.screen.query_one(RowTable)
        names = [table.row_text(n)[0] for n in range(table.row_count)]
        for name, line in zip(names, lines_of(table)[1:]):
            assert line.startswith(name + " "), line  # never `order_st…` twice
        assert len(set(names)) == len(names)


async def test_a_narrow_list_drops_its_least_important_columns_first() -> None:
    console = build_console()
    async with console.app.run_test(size=SMALL) as pilot:
        await settle(pilot)
        table = console.app.screen.query_one(RowTable)
        # Ctry first, then Renews, Type, Rent and City; Status and Number stay.
        assert table.shown_columns(62) == ["Status", "Number", "Type", "City", "Rent/mo", "Renews"]
        assert table.shown_columns(60) == ["Status", "Number", "Type", "City", "Rent/mo"]
        assert table.shown_columns(48) == ["Status", "Number", "City", "Rent/mo"]
        assert table.shown_columns(40) == ["Status", "Number", "City"]
        assert table.shown_columns(30) == ["Status", "Number"]
        # Whatever is dropped, the number is whole.
        for width in (30, 40, 48, 60, 62):
            line = table._strip(table._rows[table._visible[0]].cells, table.rich_style, width).text
            assert "+912285502345" in line


@pytest.mark.parametrize("start", ["numbers", "tools", "variables", "voices", "templates", "agents"])
async def test_top_line_and_key_bar_shorten_instead_of_clipping(start: str) -> None:
    console = build_console(start_screen=start)
    async with console.app.run_test(size=SMALL) as pilot:
        await settle(pilot)
        top = console.app.screen.query_one(StatusBar)
        text = top.render().plain
        assert cell_len(text) <= top.content_size.width
        assert "● online" in text and "sandbox" in text and "sandbox.test" in text
        assert_bar_whole(console.app, SMALL[0])


async def test_the_new_tool_form_at_80x24_shows_method_and_keeps_create_and_cancel_on_screen() -> None:
    console = build_console(start_screen="tools")
    async with console.app.run_test(size=SMALL) as pilot:
        await settle(pilot)
        await pilot.press("n")
        await until(pilot, lambda: laid_out(console.app, "#cancel"))
        app = console.app
        for selector in ("#create", "#cancel", "#f-config-method", "#f-kind"):
            assert laid_out(app, selector), selector
        # Wait for response is further down: Tab reaches it and it scrolls into view, the
        # buttons still on screen.
        box = app.screen.query_one("#f-config-waitForResponse")
        box.focus()
        await until(pilot, lambda: laid_out(app, "#f-config-waitForResponse"))
        assert laid_out(app, "#create") and laid_out(app, "#cancel")
        assert_bar_whole(app, SMALL[0])


async def test_the_web_call_dialog_at_80x24_has_close_on_screen() -> None:
    console = build_console(start_screen="agents")
    async with console.app.run_test(size=SMALL) as pilot:
        await settle(pilot)
        await pilot.press("w")
        # A web call is billed: it is confirmed first (its own 80x24 check is the scene's snapshot).
        await until(pilot, lambda: isinstance(console.app.screen, WebCallConfirm))
        await settle(pilot)
        assert_bar_whole(console.app, SMALL[0])
        await pilot.press("y")
        await until(pilot, lambda: laid_out(console.app, "#close"))
        for key in ("host", "room", "call", "token"):
            assert laid_out(console.app, f"#copy-{key}")
        assert_bar_whole(console.app, SMALL[0])
        await pilot.click("#close")
        await until(pilot, lambda: not console.app.screen.query("#webcall"))


@pytest.mark.parametrize(("start", "key", "buttons"), [
    ("agents", "d", ("#yes", "#no")),
    ("agents", "a", ("#ok", "#cancel")),
    ("numbers", "a", ("#ok", "#cancel")),
    ("templates", "a", ("#create", "#cancel")),
])
async def test_every_dialog_keeps_its_buttons_on_screen_at_80x24(start: str, key: str, buttons: tuple[str, ...]) -> None:
    console = build_console(start_screen=start)
    async with console.app.run_test(size=SMALL) as pilot:
        await settle(pilot)
        await pilot.press(key)
        for button in buttons:
            await until(pilot, lambda: laid_out(console.app, button))
            assert isinstance(console.app.screen.query_one(button), Button)


async def test_the_rental_screen_at_80x24_shows_the_timeline_and_keys() -> None:
    console = build_console()
    async with console.app.run_test(size=SMALL) as pilot:
        await settle(pilot)
        await SCENES["rental"].steps(pilot)
        await settle(pilot)
        assert_bar_whole(console.app, SMALL[0])
        assert "+912089411010  active" in console.app.screen.query_one("#timeline").render().plain


async def test_200x50_uses_the_room() -> None:
    widths = {}
    for size in ((120, 36), LARGE):
        console = build_console(start_screen="tools")
        async with console.app.run_test(size=size) as pilot:
            await settle(pilot)
            screen = console.app.screen
            table = screen.query_one(RowTable)
            widths[size] = screen.query_one("#detail-pane").outer_size.width
            if size == LARGE:
                # Side by side, every column and every URL whole, the top line whole.
                assert screen.query_one("#detail-pane").region.y == screen.query_one("#list-pane").region.y
                assert table.shown_columns() == [c.label for c in table.columns]
                urls = [t.config["url"].removeprefix("https://") for t in (console.account.tools[k] for k in table.keys)]
                for line, url in zip(lines_of(table)[1:], urls):
                    assert url in line
                # The key 7 opens Profiles: written as the area it names, it does not read as a count of profiles.
                assert "1–8 areas · 7 Profiles · ? keys" in screen.query_one(StatusBar).render().plain
                detail = screen.query_one("#detail", Static)
                assert detail.content_region.width >= 70
    assert widths[LARGE] > widths[(120, 36)] + 30


async def test_numbers_at_200x50_shows_every_column_whole() -> None:
    console = build_console()
    async with console.app.run_test(size=LARGE) as pilot:
        await settle(pilot)
        table = console.app.screen.query_one(RowTable)
        assert table.shown_columns() == [c.label for c in table.columns]
        assert all("…" not in line for line in lines_of(table))
