"""A call held on the Talk screen keeps the answer time of each of its answered turns in the calls
ledger when it ends (issue 34 point 1): the Calls detail and `vap calls stats` read them there."""

from __future__ import annotations

from tests.tui.console_scenes import until
from tests.tui.talk_console import speaking_seconds, talk_console
from vap_console.ledger import Ledger
from vap_console.tui.call_book import CallBook

ANSWER = "This is Priya. You said: hello How else can I help?"


async def test_the_answer_times_of_a_talk_call_are_kept_when_it_ends(tmp_path) -> None:
    with talk_console() as console:
        book = console.app.calls = CallBook(Ledger("sandbox", data_dir=tmp_path), print, console.app.now)
        async with console.app.run_test(size=(120, 36)) as pilot:
            screen = await console.talking(pilot)
            await console.greeted(pilot)
            await console.say(pilot, "hello", ANSWER)
            await console.advance(pilot, speaking_seconds(ANSWER) + 1,
                                  lambda: screen.talk.agent_turns >= 2 and not screen.talk.speaking)
            measured = [t.answer_ms for t in screen.talk.turns if t.answer_ms is not None]
            assert len(measured) == 1
            await pilot.press("escape")
            await until(pilot, lambda: screen.ended)
            await book.flushed()
            kept = book.ledger.get(screen.talk.call_id or "")
            assert kept is not None and kept.answer_times == (round(measured[0], 1),)
