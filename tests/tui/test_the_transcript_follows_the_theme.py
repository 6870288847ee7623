"""A theme chosen during a call (ctrl+p, then "theme") recolours what the transcript already
shows, not only what comes after: its paragraphs' lines are kept drawn, and were kept in the
colours of the theme they were first drawn in."""

from __future__ import annotations

from textual.app import App, ComposeResult

from tests.tui.console_scenes import quiet
from tests.tui.test_talk_transcript_long_call import settle
from vap_console.api.conversation import Conversation
from vap_console.tui.widgets.talk import TranscriptView


class Transcript(App[None]):
    def compose(self) -> ComposeResult:
        yield TranscriptView()


async def test_a_theme_chosen_during_a_call_recolours_the_lines_already_shown() -> None:
    app = Transcript()
    async with app.run_test(size=(80, 24)) as pilot:
        view = app.query_one(TranscriptView)
        settle(Conversation(), view, "hello there")
        await quiet(pilot)
        drawn_before = {str(segment.style) for segment in view.render_line(0)}
        app.theme = "nord" if app.theme != "nord" else "gruvbox"
        await quiet(pilot)
        drawn = {str(segment.style) for segment in view.render_line(0)}
        fresh = TranscriptView()
        await app.mount(fresh)
        settle(Conversation(), fresh, "hello there")
        await quiet(pilot)
        assert drawn != drawn_before
        assert drawn == {str(segment.style) for segment in fresh.render_line(0)}  # as if first drawn now
