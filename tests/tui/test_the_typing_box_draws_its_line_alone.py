"""The Talk screen's typing box draws a key typed by itself (issue 34, bench/talk.py's CPU goal):
only its line of text is drawn again, not its borders, and that line without a Rich Text rendered
through a console. What it draws must be what Textual's Input draws, cell for cell and style for
style, in every state a person sees: text wider than the box, wide characters, the cursor at either
end, the box without focus, after a theme is chosen."""

from __future__ import annotations

from typing import Any

import pytest
from textual.app import App, ComposeResult
from textual.strip import Strip
from textual.widgets import Input

from tests.tui.console_scenes import quiet, until
from tests.tui.test_talk_typing_and_deltas_stay_light import typed
from vap_console.tui.widgets.talk import SayBox

VALUES = ["hello", "héllo 日本語 wide 🙂 ok", "x" * 100 + "end", "日" * 40, "a[b]c $text"]


def cells(strip: Strip) -> list[tuple[str, Any]]:
    return [(char, segment.style) for segment in strip for char in segment.text]


class Typing(App[None]):
    def compose(self) -> ComposeResult:
        yield SayBox(id="say")
        yield Input(id="other")


async def drawn_as_input_draws(pilot, box: SayBox) -> list[str]:  # type: ignore[no-untyped-def]
    """Each value, the cursor at each of a few places: where the box's line differs from Input's."""
    differ = []
    for value in VALUES:
        box.value = value
        for at in sorted({0, 3, len(value) // 2, len(value)}):
            box.cursor_position = at
            await quiet(pilot)
            if cells(box.render_line(0)) != cells(Input.render_line(box, 0)):
                differ.append(f"{value[:12]!r} at {at} (scrolled {box.scroll_offset.x})")
    return differ


async def test_the_typing_box_draws_its_text_as_input_does_with_focus_and_without() -> None:
    app = Typing()
    async with app.run_test(size=(60, 12)) as pilot:
        box = app.query_one(SayBox)
        box.focus()
        assert await drawn_as_input_draws(pilot, box) == []
        app.query_one("#other", Input).focus()
        await until(pilot, lambda: not box.has_focus)
        assert await drawn_as_input_draws(pilot, box) == []


@pytest.mark.parametrize("change", ["a theme chosen", "a colour set on the box"])
async def test_the_typing_box_takes_new_colours(change: str) -> None:
    app = Typing()
    async with app.run_test(size=(60, 12)) as pilot:
        box = await typed(pilot, "hours")
        before = cells(box.render_line(0))
        if change == "a theme chosen":
            app.theme = "nord" if app.theme != "nord" else "gruvbox"
        else:
            box.styles.color = "red"
        await quiet(pilot)
        after = cells(box.render_line(0))
        assert after != before  # the new colours, not the first ones
        assert after == cells(Input.render_line(box, 0))


async def test_a_key_typed_draws_the_boxs_line_of_text_and_not_its_borders() -> None:
    app = Typing()
    async with app.run_test(size=(60, 12)) as pilot:
        box = app.query_one(SayBox)
        box.focus()
        await quiet(pilot)
        drawn: list[int] = []
        own = box._styles_cache.render_line

        def render_line(styles, y, *args, **kwargs):  # type: ignore[no-untyped-def]
            drawn.append(y)
            return own(styles, y, *args, **kwargs)

        box._styles_cache.render_line = render_line  # type: ignore[method-assign]
        await pilot.press(*"hours")
        await until(pilot, lambda: box.value == "hours")
        await quiet(pilot)
        assert drawn and set(drawn) == {1}  # the text's line, between the two border lines
        assert "hours" in app.export_screenshot()
