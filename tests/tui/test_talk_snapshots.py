"""The Talk screen's pictures at 120×36 and 80×24: the greeting arriving, the agent speaking, an
interruption, and each way a call ends. The sandbox's clock is the test's: speech plays only as it
is advanced, so each picture is the same on every run."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass

import pytest
from textual.pilot import Pilot

from tests.tui.console_scenes import until
from tests.tui.talk_console import PRIYA_GREETING, TalkConsole, loud, speaking_seconds, talk_console

REPLY = "This is Priya. You said: What are your opening hours? How else can I help?"
GOODBYE = "Thank you for calling Sharma Dental Clinic. Goodbye!"


@dataclass
class TalkScene:
    steps: Callable[[TalkConsole, Pilot], Awaitable[None]]
    faults: str = ""
    spent_tokens: bool = False


async def greeting_arriving(console: TalkConsole, pilot: Pilot) -> None:
    await console.talking(pilot)
    await console.play(pilot, 2.01)


async def agent_speaking(console: TalkConsole, pilot: Pilot) -> None:
    await console.talking(pilot)
    await console.greeted(pilot)
    await console.say(pilot, "What are your opening hours?", REPLY)
    await console.play(pilot, 1.51)


async def answer_times(console: TalkConsole, pilot: Pilot) -> None:
    # The agent answers 840 ms after the person's turn (agent_delay_ms): beside the answer and in the top line.
    await console.talking(pilot, delay_ms=840)
    await console.greeted(pilot)
    await console.say_delayed(pilot, "What are your opening hours?", REPLY, 840)
    await console.play(pilot, speaking_seconds(REPLY) + 0.1)
    await until(pilot, lambda: console.screen.talk.agent_turns == 2 and not console.screen.drawing_due)


async def interrupted(console: TalkConsole, pilot: Pilot) -> None:
    screen = await console.talking(pilot)
    await console.play(pilot, 2.51)
    # The test is the microphone: the person speaks over the agent.
    await screen._socket.send_audio(loud(0.1))
    await until(pilot, lambda: screen.talk.turns and screen.talk.turns[-1].interrupted and not screen.talk.speaking)
    await console.still(pilot)


async def hung_up(console: TalkConsole, pilot: Pilot) -> None:
    screen = await console.talking(pilot)
    await console.greeted(pilot)
    await pilot.press("escape")
    await until(pilot, lambda: screen.ended)


async def agent_ended(console: TalkConsole, pilot: Pilot) -> None:
    screen = await console.talking(pilot)
    await console.greeted(pilot)
    await console.say(pilot, "bye", GOODBYE)
    console.clock.advance(speaking_seconds(GOODBYE) + 0.1)
    await until(pilot, lambda: screen.ended)


async def max_duration(console: TalkConsole, pilot: Pilot) -> None:
    screen = await console.talking(pilot)
    await console.greeted(pilot)
    console.clock.advance(120)
    await until(pilot, lambda: screen.ended)


async def dropped(console: TalkConsole, pilot: Pilot) -> None:
    screen = await console.talking(pilot)
    await pilot.press(*"are you")
    console.clock.advance(3.01)
    await until(pilot, lambda: screen.ended)


async def token_spent(console: TalkConsole, pilot: Pilot) -> None:
    await console.talking(pilot)
    await until(pilot, lambda: console.screen.ended)


async def refused(console: TalkConsole, pilot: Pilot) -> None:
    await console.talking(pilot)
    await until(pilot, lambda: console.screen.ended)


SCENES = {
    "greeting_arriving": TalkScene(greeting_arriving),
    "agent_speaking": TalkScene(agent_speaking),
    "answer_times": TalkScene(answer_times, faults="agent_delay_ms=*:840"),
    "interrupted": TalkScene(interrupted),
    "ended_hung_up": TalkScene(hung_up),
    "ended_by_agent": TalkScene(agent_ended),
    "ended_max_duration": TalkScene(max_duration),
    "ended_dropped_1011": TalkScene(dropped, faults="socket_drop_after=3"),
    "ended_token_spent_4401": TalkScene(token_spent, spent_tokens=True),
    "ended_refused_4000": TalkScene(refused, faults="socket_start_error=insufficient_balance"),
}


@pytest.mark.parametrize("size", [(120, 36), (80, 24)], ids=["120x36", "80x24"])
@pytest.mark.parametrize("name", sorted(SCENES))
def test_talk_snapshot(name: str, size: tuple[int, int], snap_compare) -> None:
    scene = SCENES[name]
    with talk_console(scene.faults, spent_tokens=scene.spent_tokens) as console:
        async def run(pilot: Pilot) -> None:
            await scene.steps(console, pilot)
            await console.still(pilot)

        assert snap_compare(console.app, terminal_size=size, run_before=run)


def test_the_greeting_is_what_the_sandbox_agent_says() -> None:
    # The scenes above assume Priya's greeting; this says so if the sandbox's seed changes.
    assert PRIYA_GREETING.startswith("Namaste!")
