"""The console on a huge server, as a person notices it: 50,000 variables counted and browsed, keys
answered while the rows are built, and detail panes that show long values and long lists capped,
with the rest counted. (How fast is bench/scale.py's business: nothing here is timed.)"""

from __future__ import annotations

import gc
import io
import json
import re

import pytest
from rich.console import Console
from textual import events
from textual.widgets import Input, Static

from bench._huge import Sizes, huge_bodies, long_text, seed_bodies, serving, short_name
from tests.tui.console_scenes import build_console, settle, until
from vap_console.tui.screens.variables import VariablesScreen
from vap_console.tui.widgets.rows import RowTable

SIZE = (120, 36)
SMALL = {
    "variables": 30, "tools": 30, "rentals": 30, "agents": 30, "templates": 10, "engines": 3, "descriptions": 30,
    "events": 2_000,
}


@pytest.fixture(autouse=True)
def unfreeze():
    yield
    gc.unfreeze()  # a big page froze the objects alive then; give them back to the collector


@pytest.fixture(scope="module")
def seed() -> dict[str, bytes]:
    import asyncio

    return asyncio.run(seed_bodies())


def plain(widget: Static, width: int = 200) -> str:
    console = Console(width=width, record=True, file=io.StringIO())
    console.print(widget.content)
    return console.export_text()


def table(app) -> RowTable:
    return app.screen.query_one(RowTable)


def count_text(app) -> str:
    return plain(app.screen.query_one("#list-count", Static)).strip()


async def open_on(seed: dict[str, bytes], area: str, **sizes: int):
    bodies = huge_bodies(seed, Sizes(**{**SMALL, **sizes}))
    console = build_console(start_screen=area, transport_wrapper=serving(bodies, latency=0.0))
    return console, bodies


async def move_to(pilot, key: str) -> None:
    rows = table(pilot.app)
    for _ in range(rows.row_count):
        if rows.cursor_key == key:
            return
        at = rows.cursor
        await pilot.press("down")
        await until(pilot, lambda: rows.cursor != at)  # one row at a time: no overshoot
    raise AssertionError(f"no row {key}")


async def show_row(pilot, key: str) -> None:
    """Once the list's 30 rows are in: the cursor on row ``key``, its detail drawn."""
    await settle(pilot)
    await until(pilot, lambda: table(pilot.app).total_count == 30)
    await move_to(pilot, key)
    await settle(pilot)


def hidden_counts(text: str) -> list[int]:
    """The numbers of every "… N more characters" marker in ``text``."""
    return [int(n.replace(",", "")) for n in re.findall(r"…\s+([\d,]+)\s+more\s+characters", text)]


@pytest.mark.slow
async def test_fifty_thousand_variables_are_counted_browsed_and_filtered(seed) -> None:
    console, _ = await open_on(seed, "variables", variables=50_000)
    app = console.app
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await until(pilot, lambda: count_text(app) == "50000 variables", timeout=60)
        rows = table(app)
        first = rows.cursor_key
        await pilot.press("down", "down", "down")
        await until(pilot, lambda: rows.cursor == 3)
        assert rows.cursor_key != first
        await pilot.press("end")
        await settle(pilot)
        assert rows.cursor == 49_999
        assert rows.cursor_key == "20000000-0000-4000-8000-000000049999"
        assert "{" + short_name(49_999) + "}" in plain(app.screen.query_one("#detail", Static))
        await pilot.press("pageup", "up")
        await until(pilot, lambda: rows.cursor < 49_999)
        await pilot.press("slash", *"caller_4999")
        await settle(pilot)
        matching = sum("caller_4999" in short_name(i) for i in range(50_000))
        assert matching == 1  # caller_49995: the other names of 49990–49999 are in other scripts
        assert count_text(app) == f"{matching} of 50000 variables match “caller_4999”"
        assert rows.cursor_key == "20000000-0000-4000-8000-000000049995"


@pytest.mark.slow
async def test_a_key_pressed_while_fifty_thousand_rows_are_built_is_answered_before_they_are_done(seed) -> None:
    console, _ = await open_on(seed, "numbers", variables=50_000)
    app = console.app
    built: list[int] = []
    answered_at: list[int] = []
    original = VariablesScreen.row_of

    def row_of(self, v):
        built.append(1)
        if len(built) == 100:
            # The person presses / (filter) while the rows are being built.
            key = events.Key("slash", "/")
            app.post_message(key)
        return original(self, v)

    def filter_opened() -> bool:
        box = app.screen.query("#filter")
        opened = bool(box) and box.first(Input).display
        if opened and not answered_at:
            answered_at.append(len(built))
        return opened

    VariablesScreen.row_of = row_of  # type: ignore[method-assign]
    try:
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot)
            await pilot.press("3")
            await until(pilot, filter_opened, timeout=60)
            await until(pilot, lambda: table(app).total_count == 50_000, timeout=60)
            # Answered in the build's spare time, not after it: the rows were not all built yet.
            assert answered_at[0] < 50_000
    finally:
        VariablesScreen.row_of = original  # type: ignore[method-assign]


async def test_a_ten_thousand_character_description_shows_capped_with_the_rest_counted(seed) -> None:
    console, bodies = await open_on(seed, "tools")
    tool = next(t for t in json.loads(bodies["tools"])["items"] if t["id"].endswith("000000000001"))
    description = tool["description"]
    assert len(description) == 10_000 and description == long_text(1, 10_000)
    app = console.app
    async with app.run_test(size=SIZE) as pilot:
        await show_row(pilot, tool["id"])
        detail = plain(app.screen.query_one("#detail", Static))
        more = hidden_counts(detail)
        assert more, detail
        assert 8_000 < more[0] < 10_000
        assert description[:40] in detail and description[-40:] not in detail


async def test_a_voice_engine_with_thirty_long_style_descriptions_shows_the_first_and_counts_the_rest(seed) -> None:
    console, _ = await open_on(seed, "voices")
    app = console.app
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await until(pilot, lambda: table(app).total_count == 3)
        await pilot.press("down")  # engine_001: thirty descriptions of 10,000 characters
        await settle(pilot)
        detail = plain(app.screen.query_one("#detail", Static))
        assert "… 22 more style descriptions" in detail
        assert len(hidden_counts(detail)) == 8
        assert len(detail) < 20_000


async def test_a_rental_with_two_thousand_events_shows_the_first_and_last_and_counts_the_rest(seed) -> None:
    console, bodies = await open_on(seed, "numbers")
    rental = json.loads(bodies["numbers"])["items"][5]
    count = len(rental["events"])
    assert count > 2_000
    app = console.app
    async with app.run_test(size=SIZE) as pilot:
        await show_row(pilot, rental["id"])
        detail = " ".join(plain(app.screen.query_one("#detail", Static)).split())
        assert f"Events ({count})" in detail
        assert f"… {count - 40:,} more entries" in detail
        assert "event 0 " in detail and "event 1999 " in detail and "event 1000 " not in detail
        # The latest event (a 10,000-character note) shows its start, capped.
        assert " ".join(rental["events"][-1]["note"][:30].split()) in detail


async def test_a_long_detail_scrolls_with_the_keys_and_starts_at_the_top_for_the_next_row(seed) -> None:
    console, bodies = await open_on(seed, "agents")
    long_agent = json.loads(bodies["agents"])["items"][1]  # 10,000-character name, greeting, instruction
    app = console.app
    async with app.run_test(size=SIZE) as pilot:
        await show_row(pilot, long_agent["id"])
        detail = app.screen.query_one("#detail", Static)
        await pilot.press("tab")
        await until(pilot, lambda: app.focused is detail)
        await pilot.press("pagedown", "pagedown")
        await settle(pilot)
        assert detail.scroll_y > 0
        await pilot.press("shift+tab", "down")
        await settle(pilot)
        assert table(app).cursor_key != long_agent["id"] and detail.scroll_y == 0


async def test_a_ten_thousand_character_failure_shows_capped_in_the_pane_timeline_and_whole_on_the_rental_screen(
        seed) -> None:
    from vap_console.tui.screens.rental import RentalScreen
    from vap_console.tui.widgets.timeline import Timeline

    console, bodies = await open_on(seed, "numbers")
    rental = json.loads(bodies["numbers"])["items"][7]  # failed; its last error is 10,000 characters
    reason = rental["lastError"]
    assert rental["status"] == "failed" and len(reason) == 10_000
    app = console.app
    async with app.run_test(size=SIZE) as pilot:
        await show_row(pilot, rental["id"])
        detail = plain(app.screen.query_one("#detail", Static))
        timeline = detail[:detail.index("All fields")]  # the number, then the timeline
        assert " ".join(reason[:30].split()) in " ".join(timeline.split())
        more = hidden_counts(timeline)
        assert more and 8_000 < more[0] < 10_000, timeline
        assert " ".join(reason[-40:].split()) not in " ".join(detail.split())
        # Enter opens the rental's own screen: the reason whole.
        await pilot.press("enter")
        await until(pilot, lambda: isinstance(app.screen, RentalScreen))
        whole = app.screen.query_one(Timeline).render().plain
        assert " ".join(reason[-40:].split()) in " ".join(whole.split())
        assert "more characters" not in whole


async def test_a_reloaded_big_page_frees_the_page_it_replaced(seed) -> None:
    import weakref

    console, _ = await open_on(seed, "variables", variables=2_000)  # big enough to be freed in slices
    app = console.app
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await until(pilot, lambda: count_text(app) == "2000 variables")
        screen = app.screen
        before = screen.items
        old = weakref.ref(next(iter(before.values())))
        del before
        await pilot.press("r")
        await until(pilot, lambda: old() is None)
        await settle(pilot)
        assert count_text(app) == "2000 variables" and table(app).total_count == 2_000


async def test_keys_pressed_faster_than_details_draw_end_on_the_detail_of_the_last_row(seed) -> None:
    console, bodies = await open_on(seed, "agents")
    agents = json.loads(bodies["agents"])["items"]
    app = console.app
    drawn: list[str] = []
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await until(pilot, lambda: table(app).total_count == 30)
        screen = app.screen
        original = screen.render_detail

        def render_detail(agent):
            drawn.append(agent.id)
            return original(agent)

        screen.render_detail = render_detail
        # Six downs at once, as a held key sends them: the rows move six times, the details of the
        # rows passed on the way need not be drawn.
        for _ in range(6):
            app.post_message(events.Key("down", None))
        await until(pilot, lambda: table(app).cursor == 6)
        await settle(pilot)
        assert table(app).cursor_key == agents[6]["id"]
        assert drawn[-1] == agents[6]["id"] and len(drawn) < 6, drawn
        assert " ".join(short_name(6).split()) in " ".join(plain(screen.query_one("#detail", Static)).split())


async def test_a_long_detail_drawn_part_by_part_ends_as_long_as_drawn_whole_and_its_end_is_reachable(seed) -> None:
    console, bodies = await open_on(seed, "numbers")
    rental = json.loads(bodies["numbers"])["items"][5]  # 2,000 events, long notes: far taller than the pane
    app = console.app
    async with app.run_test(size=SIZE) as pilot:
        await show_row(pilot, rental["id"])
        detail = app.screen.query_one("#detail", Static)
        width = detail.scrollable_content_region.width
        options = app.console.options.update(width=width, height=None, highlight=False)
        whole = app.console.render_lines(detail.content, options, pad=False, new_lines=False)
        # The view drew what it showed first and the rest in spare time: its scroll size is the whole.
        assert detail.virtual_size.height == len(whole)
        await pilot.press("tab")
        await until(pilot, lambda: app.focused is detail)
        await pilot.press("end")
        await settle(pilot)
        assert detail.scroll_y == detail.max_scroll_y > 0
        last = "".join(segment.text for segment in whole[-1]).strip()
        shown = "".join(segment.text for segment in detail.render_line(detail.scrollable_content_region.height - 1))
        assert last and last in shown
