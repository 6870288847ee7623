"""Columns measure display cells: CJK (two cells a character), Devanagari (marks of no width) and
emoji (two cells, some joined into one glyph) line up like ASCII, on their own and in the console."""

from __future__ import annotations

import gc

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from rich.cells import cell_len, split_graphemes
from rich.text import Text
from textual.app import App, ComposeResult

from bench._huge import Sizes, huge_bodies, seed_bodies, serving
from tests.tui.console_scenes import build_console, quiet, settle, until
from vap_console.tui.widgets.rows import Column, RowTable, cell_width, fit_cell, fit_text, make_row

# Pieces of each script: a character, a conjunct with its marks, a joined emoji, a flag.
PIECES = ["a", "Z", " ", "_", "歯", "科", "予約", "न", "मस्ते", "क्लि", "दंत‌चि", "🦷", "👩‍⚕️", "🇮🇳", "✨", "—", "₹"]
NAMES = [
    "plain_name", "ग्राहक_नाम_17", "顧客名_17", "🦷 clinic 17", "नमस्ते 東京 🇮🇳", "👩‍⚕️👩‍⚕️👩‍⚕️ doctor",
    "歯科予約受付東京歯科予約受付東京歯科予約受付", "दंत‌चिकित्सा क्लिनिक पुणे दंत‌चिकित्सा क्लिनिक पुणे", "x" * 300,
]


def cells_at(line: str) -> dict[int, str]:
    """Each grapheme of a rendered line by the cell it starts at."""
    spans, _ = split_graphemes(line)
    out: dict[int, str] = {}
    offset = 0
    for start, end, width in spans:
        out[offset] = line[start:end]
        offset += width
    return out


def separators(widths: list[int]) -> list[int]:
    """Cell offsets of the spaces between columns."""
    offsets, at = [], 0
    for width in widths[:-1]:
        at += width
        offsets.append(at)
        at += 1
    return offsets


def assert_aligned(table: RowTable, lines: int) -> None:
    width = table.scrollable_content_region.width
    widths = [w for w in table._fit(width) if w]  # 0: a column dropped for want of room
    assert sum(widths) + len(widths) - 1 <= width
    for y in range(lines):
        strip = table.render_line(y)
        line = "".join(segment.text for segment in strip)
        assert strip.cell_length == width and cell_len(line) == width, (y, line)
        starts = cells_at(line)
        for offset in separators(widths):
            # A grapheme starts right at each separator, and it is the separating space.
            assert starts.get(offset) == " ", (y, offset, line)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(PIECES), max_size=40).map("".join), st.integers(1, 30))
def test_a_cell_is_cut_or_padded_to_exactly_its_width_in_cells(value: str, width: int) -> None:
    fitted = fit_cell(value, width)
    assert cell_len(fitted) == width
    if cell_len(value) <= width:
        assert fitted.rstrip(" ") == value.rstrip(" ")
    else:
        assert fitted.endswith("…")
    styled = fit_text(Text(value, style="bold"), width)
    assert styled.cell_len == width


def test_natural_widths_are_cells_and_stop_at_a_cap() -> None:
    assert cell_width("歯科予約") == 8
    assert cell_width("नमस्ते") == 4
    assert cell_width("👩‍⚕️") == 2
    assert cell_width(Text("🇮🇳 x")) == 4
    assert cell_width("歯" * 10_000, cap=100) == 101


class TableApp(App[None]):
    def compose(self) -> ComposeResult:
        yield RowTable([Column("Name", 24), Column("Script", 14), Column("Note", 30)], id="rows")


async def test_rows_in_every_script_line_up_in_cells() -> None:
    app = TableApp()
    async with app.run_test(size=(90, 20)) as pilot:
        table = app.query_one(RowTable)
        rows = [
            make_row(f"k{i}", (name, Text(NAMES[(i + 3) % len(NAMES)][:12], style="bold"), NAMES[(i + 5) % len(NAMES)]))
            for i, name in enumerate(NAMES * 2)
        ]
        table.set_rows(rows)
        await quiet(pilot)
        assert_aligned(table, lines=min(len(rows) + 1, table.size.height))
        # Narrower: every column gives up width, and the cut cells still fill exactly their width.
        await pilot.resize_terminal(50, 20)
        await quiet(pilot)
        assert_aligned(table, lines=min(len(rows) + 1, table.size.height))
        # A row with fewer cells than columns still fills the line, no more.
        table.set_rows([make_row("short", ("歯科 only", "two"))])
        await quiet(pilot)
        strip = table.render_line(1)
        assert strip.cell_length == table.scrollable_content_region.width
        assert cell_len("".join(segment.text for segment in strip)) == strip.cell_length


@pytest.fixture
def unfreeze():
    yield
    gc.unfreeze()  # a big page froze the objects alive then; give them back to the collector


async def test_the_console_lines_up_names_in_devanagari_cjk_and_emoji(unfreeze) -> None:
    seed = await seed_bodies()
    bodies = huge_bodies(seed, Sizes(variables=300, tools=40, rentals=40, agents=40, templates=10, engines=3,
                                     descriptions=3, events=50, long=2_000))
    console = build_console(start_screen="variables", transport_wrapper=serving(bodies, latency=0.0))
    app = console.app
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        table = app.screen.query_one(RowTable)
        await until(pilot, lambda: table.total_count == 300)
        shown = [table.row_text(n)[0] for n in range(20)]
        assert any("顧客名" in s for s in shown) and any("ग्राहक" in s for s in shown) and any("🦷" in s for s in shown)
        assert_aligned(table, lines=table.size.height)
        for area in ("1", "2", "6"):  # rentals' cities, tools' names, agents' names
            await pilot.press(area)
            await settle(pilot)
            table = app.screen.query_one(RowTable)
            await until(pilot, lambda: table.total_count == 40)
            await quiet(pilot)
            assert_aligned(table, lines=table.size.height)
