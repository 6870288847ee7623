"""Talk shows how long each answer took (issue 34 point 1): a muted ``0.84 s`` at the agent turn's
label, and the call's answer time p50 / p95 in the top line (``—`` until there is one). The
sandbox is told to answer after 840 ms (``--faults agent_delay_ms``) and the console reads the
sandbox's clock, so the figure on screen is that delay exactly."""

from __future__ import annotations

from tests.tui.console_scenes import until
from tests.tui.talk_console import PRIYA_GREETING, speaking_seconds, talk_console
from vap_console.tui.widgets.talk import AnswerTimes

REPLY = "This is Priya. You said: What are your opening hours? How else can I help?"


async def test_each_answer_shows_its_time_and_the_top_line_the_calls_p50_and_p95() -> None:
    with talk_console("agent_delay_ms=*:840") as console:
        async with console.app.run_test(size=(120, 36)) as pilot:
            screen = await console.talking(pilot, delay_ms=840)
            head = screen.query_one(AnswerTimes)
            await console.greeted(pilot)
            assert str(head.render()) == "p50 — · p95 —"
            # The greeting answers nothing the person said: no time beside it.
            assert screen.transcript.lines[-1].startswith(f"Agent: {PRIYA_GREETING}")
            await console.say_delayed(pilot, "What are your opening hours?", REPLY, 840)
            await until(pilot, lambda: screen.transcript.lines[-1].startswith("Agent 0.84 s: "))
            console.clock.advance(speaking_seconds(REPLY) + 0.1)
            await until(pilot, lambda: screen.talk.agent_turns == 2 and str(head.render()) == "p50 0.84 s · p95 0.84 s")
            # The longer text is shown whole, not clipped to the width "—" took.
            await until(pilot, lambda: head.content_region.width == len("p50 0.84 s · p95 0.84 s"))
            assert screen.transcript.lines[-1] == f"Agent 0.84 s: {REPLY}"
