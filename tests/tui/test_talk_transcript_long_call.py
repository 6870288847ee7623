"""The Talk screen's transcript over a long call: the newest turn in view unless the person scrolled
up to read, at most ``max_lines`` turns kept, and each turn costing its text rather than a widget
(a widget per turn grew the console by about 50 KiB a turn: bench/talk_memory.py)."""

from __future__ import annotations

import gc
import tracemalloc

import pytest
from textual.app import App, ComposeResult

from tests.tui.console_scenes import until
from vap_console.api.conversation import Conversation, Turn
from vap_console.tui.widgets.talk import TranscriptView

SAID = ("please tell me everything about the opening times on weekends and whether i can bring my "
        "child along for a checkup next week and what it will cost")


class OneTranscript(App[None]):
    def __init__(self, max_lines: int = 500) -> None:
        super().__init__()
        self.max_lines = max_lines

    def compose(self) -> ComposeResult:
        yield TranscriptView(max_lines=self.max_lines)


def settle(talk: Conversation, view: TranscriptView, text: str, role: str = "assistant") -> None:
    talk.turns.append(Turn(role, text))
    talk.settled_total += 1
    view.show_turns(talk, talk.settled_total)


def on_screen(app: App[None]) -> str:
    view = app.query_one(TranscriptView)
    return "\n".join(view.render_line(y).text for y in range(view.scrollable_content_region.height))


async def test_the_newest_turn_stays_in_view_unless_the_person_scrolled_up() -> None:
    app = OneTranscript()
    async with app.run_test(size=(80, 24)) as pilot:
        view = app.query_one(TranscriptView)
        talk = Conversation()
        for n in range(30):
            settle(talk, view, f"turn {n}: {SAID}", "user" if n % 2 else "assistant")
        await until(pilot, lambda: "turn 29:" in on_screen(app))
        assert "You: turn 29:" in on_screen(app) and "turn 0:" not in on_screen(app)
        view.scroll_home(animate=False)
        await until(pilot, lambda: "turn 0:" in on_screen(app))
        settle(talk, view, "turn 30: the newest")
        await pilot.pause()
        assert "Agent: turn 0:" in on_screen(app) and "turn 30" not in on_screen(app)  # still reading


async def test_a_long_call_keeps_its_last_max_lines_turns() -> None:
    app = OneTranscript(max_lines=50)
    async with app.run_test(size=(80, 24)) as pilot:
        view = app.query_one(TranscriptView)
        talk = Conversation()
        view.note("The agent answered.")
        for n in range(80):
            settle(talk, view, f"turn {n}")
        assert len(view.lines) == 50 and view.lines[0] == "Agent: turn 30" and view.lines[-1] == "Agent: turn 79"
        view.scroll_home(animate=False)
        await until(pilot, lambda: on_screen(app).startswith("Agent: turn 30"))


@pytest.mark.slow
async def test_a_turn_costs_its_text_not_a_widget() -> None:
    app = OneTranscript()
    async with app.run_test(size=(120, 36)) as pilot:
        view = app.query_one(TranscriptView)
        talk = Conversation()

        async def say(turns: range) -> int:
            for n in turns:
                settle(talk, view, f"{n} {SAID}")
                view.show_live(Turn("assistant", SAID[:n % 80]))
                if n % 10 == 9:  # drawn every tenth turn: a frame's caches are what a turn may leave
                    await pilot.pause()
            gc.collect()
            return tracemalloc.get_traced_memory()[0]

        # Traced from the start: what a turn leaves behind is counted net of what it lets go.
        tracemalloc.start()
        try:
            warm = await say(range(100))  # the caches of lines drawn and of styles fill first
            per_turn = (await say(range(100, 200)) - warm) / 100
        finally:
            tracemalloc.stop()
        assert "199 please" in on_screen(app)
        # About 2.5 KiB: the turn's text, held twice (the conversation and the transcript); a
        # widget per turn cost about 50.
        assert per_turn < 6 * 1024, f"{per_turn / 1024:.1f} KiB a turn"


async def test_the_consoles_own_lines_are_bounded_and_a_running_count_is_one_line() -> None:
    app = OneTranscript(max_lines=50)
    async with app.run_test(size=(80, 24)) as pilot:
        view = app.query_one(TranscriptView)
        for n in range(TranscriptView.MAX_NOTES + 300):
            view.note(f"note {n}")
        notes = view.notes
        assert len(notes) == TranscriptView.MAX_NOTES and notes[-1] == f"note {TranscriptView.MAX_NOTES + 299}"
        for n in range(1000):
            view.note(f"{n + 1} error frames so far", key="errors")
        assert view.notes[-1] == "1000 error frames so far" and len(view.notes) == TranscriptView.MAX_NOTES
        assert sum("error frames so far" in note for note in view.notes) == 1
        await until(pilot, lambda: "1000 error frames so far" in on_screen(app))
