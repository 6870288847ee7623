"""Talk stays light while the agent talks (issue 34, bench/talk.py's goals): typing a key and a
transcript delta each cost a redraw of what changed, never a layout of the whole screen (each
layout of the Talk screen cost tens of milliseconds of CPU, and a key typed made one), and a delta
that adds no line draws only the lines of the turn arriving, not every line in view."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from types import SimpleNamespace
from typing import Any

from textual.app import App, ComposeResult
from textual.widget import Widget
from textual.widgets import Input

from tests.tui.console_scenes import quiet, until
from tests.tui.test_talk_transcript_long_call import settle
from vap_console.api.conversation import Conversation, Turn
from vap_console.tui.widgets.talk import SayBox, TranscriptView

SAID = "please tell me everything about the opening times on weekends and whether i can bring my child along"


class Talkish(App[None]):
    """The transcript and the typing box as the Talk screen stacks them."""

    def compose(self) -> ComposeResult:
        yield TranscriptView()
        yield SayBox(id="say")


async def typed(pilot, text: str) -> SayBox:  # type: ignore[no-untyped-def]
    """``text`` typed into the focused box, and everything it set off handled."""
    box = pilot.app.query_one(SayBox)
    box.focus()
    await pilot.press(*text)
    await until(pilot, lambda: box.value == text)
    await quiet(pilot)
    return box


def drawn_of(*widgets: Widget) -> list[str]:
    """Each time one of ``widgets`` is drawn (any of its lines), its class's name."""
    drawn: list[str] = []
    for widget in widgets:
        own, kind = widget.render_lines, type(widget).__name__

        def render_lines(crop, own=own, name=kind):  # type: ignore[no-untyped-def]
            drawn.append(name)
            return own(crop)

        widget.render_lines = render_lines  # type: ignore[method-assign]
    return drawn


@asynccontextmanager
async def greeted_call() -> AsyncIterator[tuple[Any, Any, Any]]:
    """The console on a sandbox call at 120×36, the greeting heard: (console, pilot, Talk screen)."""
    from tests.tui.talk_console import talk_console

    with talk_console() as console:
        async with console.app.run_test(size=(120, 36)) as pilot:
            screen = await console.talking(pilot)
            await console.greeted(pilot)
            await quiet(pilot, workers=False)  # the call's worker runs on
            yield console, pilot, screen


def counting_layouts(app: App[None]) -> list[int]:
    laid: list[int] = []
    screen = app.screen
    own = screen._refresh_layout

    def refresh_layout(*args: object, **kwargs: object) -> None:
        laid.append(1)
        own(*args, **kwargs)  # type: ignore[arg-type]

    screen._refresh_layout = refresh_layout  # type: ignore[method-assign]
    return laid


async def test_keys_typed_and_lines_added_lay_nothing_out() -> None:
    app = Talkish()
    async with app.run_test(size=(80, 24)) as pilot:
        view = app.query_one(TranscriptView)
        talk = Conversation()
        for n in range(30):  # more lines than the view shows: the scroll bar is there already
            settle(talk, view, f"turn {n}")
        app.query_one(SayBox).focus()
        await quiet(pilot)
        laid = counting_layouts(app)
        await pilot.press(*"opening hours")
        words = SAID.split()
        for n in range(1, len(words) + 1):  # the turn arriving, a word a delta: it grows by lines
            view.show_live(Turn("assistant", " ".join(words[:n])))
            await pilot.pause()
        await until(pilot, lambda: app.query_one(Input).value == "opening hours")
        await quiet(pilot)
        assert laid == []
        # Still following the newest line, all of it on screen.
        assert view.scroll_y == view.max_scroll_y and "child along" in "".join(
            view.render_line(y).text for y in range(view.scrollable_content_region.height))


async def test_a_delta_that_adds_no_line_draws_only_the_turn_arriving() -> None:
    app = Talkish()
    async with app.run_test(size=(120, 36)) as pilot:
        view = app.query_one(TranscriptView)
        talk = Conversation()
        for n in range(10):
            settle(talk, view, f"turn {n}")
        view.show_live(Turn("assistant", "We"))
        await quiet(pilot)
        drawn: list[int] = []
        own = TranscriptView.render_line

        def render_line(self: TranscriptView, y: int):  # type: ignore[no-untyped-def]
            drawn.append(y)
            return own(self, y)

        TranscriptView.render_line = render_line  # type: ignore[method-assign]
        try:
            view.show_live(Turn("assistant", "We open"))
            await quiet(pilot)
        finally:
            TranscriptView.render_line = own  # type: ignore[method-assign]
        # The turn arriving is one line (and its gap) after ten turns of two: only those redrawn.
        assert drawn and set(drawn) <= {20, 21}


async def test_the_answers_first_words_are_drawn_at_once_after_it_started() -> None:
    # session.created, agent_start_talking and the greeting's first word and audio come a moment
    # apart: each is drawn as it comes. The screen waited out a tenth of a second after every
    # redraw, so the first word of every answer came late (bench/talk.py: delta p99 100-130 ms).
    from tests.tui.talk_console import talk_console
    from vap_console.tui.screens.talk import TalkScreen

    waits: list[float] = []
    own = TalkScreen.set_timer

    def set_timer(self: TalkScreen, delay: float, callback=None, **options):  # type: ignore[no-untyped-def]
        if callback == self._redraw:
            waits.append(delay)
        return own(self, delay, callback, **options)

    TalkScreen.set_timer = set_timer  # type: ignore[method-assign]
    try:
        with talk_console() as console:
            async with console.app.run_test(size=(120, 36)) as pilot:
                screen = await console.talking(pilot)
                await until(pilot, lambda: screen.transcript.lines[-1].startswith("Agent: Namaste"))
    finally:
        TalkScreen.set_timer = own  # type: ignore[method-assign]
    assert waits == []


async def test_a_key_typed_wakes_no_message_loop_but_the_boxs_for_the_key() -> None:
    # Input.Changed bubbled from the box to its row, the screen and the app: four message loops
    # woken for each key, none of which reads it (the Talk screen reads the box on Enter). Stopped
    # at the box, it still took a turn of the box's own loop per key: it is not sent at all.
    heard: list[str] = []

    class Listening(Talkish):
        def on_input_changed(self, event: Input.Changed) -> None:
            heard.append(event.value)

    app = Listening()
    async with app.run_test(size=(80, 24)) as pilot:
        box = app.query_one(SayBox)
        queued: list[str] = []
        own = box._message_queue.put_nowait

        def put_nowait(message):  # type: ignore[no-untyped-def]
            queued.append(type(message).__name__)
            own(message)

        box._message_queue.put_nowait = put_nowait  # type: ignore[method-assign]
        await typed(pilot, "hours")
    assert heard == []
    assert "Changed" not in queued and queued.count("Key") == 5


async def test_a_key_typed_in_talk_repaints_only_the_typing_box() -> None:
    # Textual repaints a region by drawing every widget whose container overlaps it, each of its
    # lines. With the transcript, the status line and the key bar straight on the screen, a key
    # typed drew them all again, and the Hang up button beside the box too; each in a box of its
    # own, none of them is drawn.
    from textual.widgets import Button

    from vap_console.tui.widgets.key_bar import KeyBar
    from vap_console.tui.widgets.status_bar import StatusBar

    async with greeted_call() as (_console, pilot, screen):
        drawn = drawn_of(screen.transcript, screen.query_one(KeyBar), screen.query_one(StatusBar),
                         screen.query_one("#hang-up", Button))
        await pilot.press(*"hours")
        await until(pilot, lambda: screen.query_one(SayBox).value == "hours")
        await quiet(pilot, workers=False)
        assert drawn == []
        assert "hours" in pilot.app.export_screenshot()  # the keys themselves were drawn


async def test_the_typing_box_keeps_a_steady_cursor_while_the_person_listens() -> None:
    # A blinking cursor was the one thing that changed on the screen between the agent's words: a
    # wake and a repaint twice a second for as long as the call lasted. The cursor shows, and
    # stays still until something changes.
    app = Talkish()
    async with app.run_test(size=(80, 24)) as pilot:
        box = await typed(pilot, "hi")
        assert box._cursor_visible and box.has_focus
        assert box._blink_timer is not None and not box._blink_timer._active.is_set()  # nothing to wake it


async def test_a_line_the_person_said_over_and_over_is_wrapped_once() -> None:
    # A server flooding the person's transcripts while the agent talks brought twenty new held
    # lines to each redraw, each wrapped anew (~15 ms a redraw, ten a second): Esc waited behind
    # them. The same words said again are drawn from the first one's lines.
    from textual.visual import Visual

    app = Talkish()
    async with app.run_test(size=(80, 24)) as pilot:
        view = app.query_one(TranscriptView)
        view.show_live(Turn("assistant", "Let me tell you"))
        await quiet(pilot)
        wrapped: list[str] = []
        own = Visual.to_strips

        def to_strips(widget, visual, *args, **kwargs):  # type: ignore[no-untyped-def]
            wrapped.append(str(visual))
            return own(widget, visual, *args, **kwargs)

        Visual.to_strips = staticmethod(to_strips)  # type: ignore[method-assign]
        try:
            for _ in range(3):  # three redraws, each with twenty new lines heard
                view.show_live(Turn("assistant", "Let me tell you"), [Turn("user", "hello?") for _ in range(20)])
            view.show_live(Turn("assistant", "Let me tell you"), [Turn("user", "and another")])
            settled = SimpleNamespace(turns=[Turn("user", "hello?") for _ in range(150)])
            view.show_turns(settled, 150)  # settled as they came: 150 in one redraw
        finally:
            Visual.to_strips = own  # type: ignore[method-assign]
        assert sum("hello?  ⧗" in text for text in wrapped) == 1  # held
        assert sum(text.endswith("hello?") for text in wrapped) == 1  # settled
        assert sum("and another" in text for text in wrapped) == 1  # other words still get lines of their own
        assert view.lines.count("You: hello?") == 150
        # The last redraw's held line is the one shown waiting, after the settled ones.
        assert "and another" in view.lines[-1] and not any("hello?  ⧗" in line for line in view.lines)


async def test_what_the_console_made_before_a_call_is_out_of_the_collectors_sight() -> None:
    # A full garbage collection during a call walked every object alive (the console, the lists
    # under the Talk screen): 16-22 ms on the UI loop at a time, as words arrived. Once the call
    # has started, what was made before it is frozen out of the collector's passes.
    import gc

    from tests.tui.talk_console import talk_console

    with talk_console() as console:
        async with console.app.run_test(size=(120, 36)) as pilot:
            from vap_console.tui.widgets.rows import RowTable

            await until(pilot, lambda: console.app.screen.query(RowTable)
                        and console.app.screen.query_one(RowTable).row_count)
            await quiet(pilot)
            before = gc.get_freeze_count()
            screen = await console.talking(pilot)
            await until(pilot, lambda: screen.talk.started)
            assert gc.get_freeze_count() > before


async def test_the_billed_time_ticking_draws_no_other_part_of_the_top_line() -> None:
    # The billed time changes every second of the call. With the top line's parts side by side in
    # one row, each tick drew the title, the speaking state, the answer times and the slots again
    # (a repaint draws every widget whose container overlaps it), and the transcript's thirty
    # lines below them; each in a box of its own, none of them.
    from textual.widgets import Static

    from vap_console.tui.widgets.talk import AnswerTimes, BilledTimer, SlotsLine, SpeakingIndicator

    async with greeted_call() as (console, pilot, screen):
        drawn = drawn_of(screen.query_one("#talk-title", Static), screen.query_one(SpeakingIndicator),
                         screen.query_one(AnswerTimes), screen.query_one(SlotsLine),
                         screen.query_one(BilledTimer), screen.transcript)
        billed = screen.query_one(BilledTimer)
        console.clock.advance(60)  # a minute of the call: the next tick shows it
        await until(pilot, lambda: (billed.seconds or 0) >= 60)
        await until(pilot, lambda: "BilledTimer" in drawn)
        await quiet(pilot, workers=False)
        assert set(drawn) == {"BilledTimer"}


async def test_a_line_added_to_the_transcript_draws_nothing_of_the_top_line() -> None:
    from textual.containers import Horizontal

    async with greeted_call() as (_console, pilot, screen):
        drawn = drawn_of(screen.query_one("#talk-head", Horizontal), screen.transcript)
        screen.transcript.note("A line of the console's own.")
        await until(pilot, lambda: "TranscriptView" in drawn)
        await quiet(pilot, workers=False)
        assert set(drawn) == {"TranscriptView"}
