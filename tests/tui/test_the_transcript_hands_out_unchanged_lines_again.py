"""The transcript hands out the lines it handed out last time again where nothing changed under them
(``TranscriptView.render_lines``): Textual asks for every line in view at each repaint, and passing
thirty lines through its styles cache for the one a word changed cost 1.3 ms a word (bench/talk.py's
CPU goal). What the person sees must be what Textual itself draws after every kind of change: a word
arriving, a turn settling, a note, scrolling up and back, a resize, a theme."""

from __future__ import annotations

from typing import Any

from textual.geometry import Region
from textual.strip import Strip
from textual.widget import Widget

from tests.tui.console_scenes import quiet
from tests.tui.test_talk_transcript_long_call import SAID, OneTranscript, settle
from vap_console.api.conversation import Conversation, Turn
from vap_console.tui.widgets.talk import TranscriptView


def cells(lines: list[Strip]) -> list[list[tuple[str, Any]]]:
    return [[(char, segment.style) for segment in line for char in segment.text] for line in lines]


def as_textual_draws(view: TranscriptView) -> list[Strip]:
    """Every line in view drawn by Textual from nothing: its styles cache emptied first."""
    view._styles_cache.clear()
    return Widget.render_lines(view, Region(0, 0, *view.outer_size))


async def test_the_lines_handed_out_are_those_textual_draws_after_every_kind_of_change() -> None:
    app = OneTranscript()
    async with app.run_test(size=(70, 20)) as pilot:
        view = app.query_one(TranscriptView)
        talk = Conversation()
        differ: list[str] = []

        async def check(after: str) -> None:
            await quiet(pilot)
            full = Region(0, 0, *view.outer_size)
            handed = view.render_lines(full)
            if cells(handed) != cells(as_textual_draws(view)):
                differ.append(after)
            view.render_lines(full)  # what is kept now is drawn from nothing: the next check starts clean

        for n in range(12):
            settle(talk, view, f"turn {n} {SAID[: 10 * n]}", role="user" if n % 2 else "assistant")
        await check("turns settled")
        words = SAID.split()
        for count in range(1, len(words) + 1, 3):
            view.show_live(Turn("assistant", " ".join(words[:count])))
            await check(f"a word arriving ({count})")
        view.note("The service reported an error.", key="e")
        await check("a note")
        view.note("The service reported another error.", key="e")
        await check("the note updated in place")
        settle(talk, view, SAID)
        view.show_live(None)
        await check("the turn settled")
        view.scroll_to(y=0, animate=False)
        await check("scrolled to the top")
        view.scroll_end(animate=False)
        await check("back at the end")
        await pilot.resize_terminal(50, 16)
        await check("a smaller terminal")
        app.theme = "nord" if app.theme != "nord" else "gruvbox"
        await check("a theme")
        assert differ == []


async def test_a_word_arriving_passes_only_its_own_lines_through_the_styles_cache() -> None:
    from tests.tui.test_talk_typing_and_deltas_stay_light import Talkish
    from vap_console.tui.widgets.talk import SayBox

    app = Talkish()  # the typing box has the focus, as on the Talk screen
    async with app.run_test(size=(120, 36)) as pilot:
        view = app.query_one(TranscriptView)
        app.query_one(SayBox).focus()
        talk = Conversation()
        for n in range(20):  # more than the view shows: scrolled to the newest line
            settle(talk, view, f"turn {n}")
        view.show_live(Turn("assistant", "We"))
        await quiet(pilot)
        view.show_live(Turn("assistant", "We are"))  # the first word after the view was laid out
        await quiet(pilot)
        assert view.scroll_y > 0
        passed: list[int] = []
        own = view._styles_cache.render

        def render(*args, **kwargs):  # type: ignore[no-untyped-def]
            lines = own(*args, **kwargs)
            passed.append(len(lines))
            return lines

        view._styles_cache.render = render  # type: ignore[method-assign]
        view.show_live(Turn("assistant", "We are open"))
        await quiet(pilot)
        assert passed and sum(passed) <= 2  # the turn's one line (and its gap), not the view's 33
