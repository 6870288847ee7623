"""After a frame is drawn, the Talk screen's update timer sleeps until something changes: no wake a
frame later to find nothing to draw (Textual's own timer makes one after every frame, a dozen a
second while the agent talks and keys are typed; bench/talk.py's CPU). Drawing keeps Textual's
pace: a change after a quiet spell is drawn at once, one within a frame's time of the last waits
for the frame's time."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator
from contextlib import contextmanager

import pytest
import textual.timer
from textual import _time
from textual.app import App

from tests.tui.console_scenes import until
from tests.tui.talk_console import talk_console
from vap_console.tui.frame_timer import UPDATE_TIMER, FrameTimer, paced_set_interval

TEST_TIMER = "the timer under test"


@contextmanager
def sleeps_recorded(monkeypatch: pytest.MonkeyPatch, passes: bool = False) -> Iterator[list[float]]:
    """Every sleep a timer makes, by its length; ``passes``: the timers' clock moves on by the
    sleep's length at once (a frame's time that the test need not wait out)."""
    slept: list[float] = []
    own = _time.sleep
    moved = [0.0]
    clock = _time.get_time

    async def sleep(seconds: float) -> None:
        task = asyncio.current_task()
        if task is None or not task.get_name().startswith(TEST_TIMER):
            await own(seconds)  # another timer's (the app's own screen has one)
            return
        slept.append(seconds)
        if passes:
            moved[0] += seconds
            await asyncio.sleep(0)
        else:
            await own(seconds)

    monkeypatch.setattr(_time, "sleep", sleep)
    monkeypatch.setattr(textual.timer, "sleep", sleep)  # the name Textual's own Timer sleeps by
    if passes:
        monkeypatch.setattr(_time, "get_time", lambda: clock() + moved[0])
    yield slept


def drawing_timer(app: App[None], interval: float, drawn: list[float], slept: list[float] | None = None) -> FrameTimer:
    """A screen's update timer: each tick draws (noted) and pauses it until the next change;
    ``slept`` is emptied at each draw (what is in it then was slept since the last frame)."""
    def draw() -> None:
        drawn.append(time.monotonic())
        if slept is not None:
            slept.clear()
        timer.pause()

    timer = paced_set_interval(app, interval, draw, name=UPDATE_TIMER, pause=True)
    assert isinstance(timer, FrameTimer)
    assert timer._task is not None
    timer._task.set_name(TEST_TIMER)  # its sleeps are recorded, no other timer's
    return timer


def waiting_for_a_change(timer: FrameTimer) -> bool:
    return bool(timer._active._waiters)  # type: ignore[attr-defined]


async def test_after_a_frame_the_timer_waits_for_a_change_without_waking(monkeypatch: pytest.MonkeyPatch) -> None:
    app: App[None] = App()
    async with app.run_test() as pilot:
        drawn: list[float] = []
        with sleeps_recorded(monkeypatch) as slept:
            timer = drawing_timer(app, 0.001, drawn, slept)
            timer.resume()
            await until(pilot, lambda: drawn and waiting_for_a_change(timer))
            assert slept == []  # no sleep to a next frame that nothing asked for
            assert len(drawn) == 1


async def test_a_change_after_a_quiet_spell_is_drawn_at_once(monkeypatch: pytest.MonkeyPatch) -> None:
    app: App[None] = App()
    async with app.run_test() as pilot:
        drawn: list[float] = []
        timer = drawing_timer(app, 0.001, drawn)
        timer.resume()
        await until(pilot, lambda: drawn and waiting_for_a_change(timer))
        await until(pilot, lambda: time.monotonic() - drawn[0] > 0.001)  # a frame's time has passed
        with sleeps_recorded(monkeypatch) as slept:
            timer.resume()
            await until(pilot, lambda: len(drawn) == 2)
            assert slept == []


async def test_a_change_within_a_frames_time_waits_for_the_frame(monkeypatch: pytest.MonkeyPatch) -> None:
    app: App[None] = App()
    async with app.run_test() as pilot:
        drawn: list[float] = []
        frame = 3600.0  # a frame's time that cannot pass during the test
        timer = drawing_timer(app, frame, drawn)
        with sleeps_recorded(monkeypatch, passes=True) as slept:
            timer.resume()
            await until(pilot, lambda: drawn and waiting_for_a_change(timer))
            slept.clear()
            timer.resume()  # at once: well within the frame's time of the first
            await until(pilot, lambda: len(drawn) == 2)
            # Drawn only after sleeping out the rest of the frame: at most one frame per frame's time.
            assert len(slept) == 1 and frame - 60 < slept[0] <= frame


async def test_the_talk_screen_draws_with_it() -> None:
    with talk_console() as console:
        async with console.app.run_test(size=(120, 36)) as pilot:
            screen = await console.talking(pilot)
            assert isinstance(screen._update_timer, FrameTimer)
            await pilot.press("escape")
            await until(pilot, lambda: screen.ended)
