"""The screen's update timer, without the wake after each frame.

Textual draws a screen from a repeating timer (``screen_update``, at most 60 frames a second) that
it pauses once a frame is drawn and resumes when something changes. Its loop sleeps to the next
frame's time first and looks whether it is paused only after: so every frame drawn costs one more
wake of the process a frame later, to find nothing to do. Where the screen changes a dozen times a
second (the Talk screen: keys, words, the billed time) that is a dozen wakes a second, and on a
virtual machine a wake of the event loop alone costs a few hundred microseconds (``bench/talk.py``).

``FrameTimer`` waits for the resume instead of sleeping once it is paused. Drawing stays as
Textual paces it: a change within a frame's time of the last one is drawn on the frame's time, a
change after a quiet spell at once (as Textual's own timer does when its sleep is already over).
Screens opt in with ``paced_set_interval`` from their ``set_interval``; only the update timer,
which Textual names ``screen_update``, is replaced.
"""

from __future__ import annotations

from textual import _time
from textual.message_pump import MessagePump
from textual.timer import EventTargetGone, Timer, TimerCallback

UPDATE_TIMER = "screen_update"  # the name Textual's Screen gives its update timer


class FrameTimer(Timer):
    """A repeating timer that, while paused, sleeps until it is resumed, not to its next tick."""

    async def _run(self) -> None:
        interval = self._interval
        count = 0
        await self._active.wait()
        start = _time.get_time()
        ticked: float | None = None
        while True:
            if not self._active.is_set():
                await self._active.wait()
                now = _time.get_time()
                if not self._reset and ticked is not None and now - ticked >= interval:
                    # Quiet for a frame's time or more: due now, and the frames count from here.
                    start = ticked = now
                    count = 0
                    try:
                        await self._tick(next_timer=now, count=count)
                    except EventTargetGone:
                        break
                    continue
            next_timer = start + (count + 1) * interval
            now = _time.get_time()
            if self._skip and next_timer < now:
                count = int((now - start) / interval + 1)
                continue
            await _time.sleep(max(0.0, next_timer - now))
            count += 1
            await self._active.wait()
            if self._reset:
                start, count, self._reset = _time.get_time(), 0, False
                continue
            ticked = _time.get_time()
            try:
                await self._tick(next_timer=next_timer, count=count)
            except EventTargetGone:
                break


def paced_set_interval(pump: MessagePump, interval: float, callback: TimerCallback | None, *, name: str | None,
                       pause: bool) -> Timer | None:
    """The screen update timer as a FrameTimer, started and owned by ``pump`` as Textual's
    ``set_interval`` does; None for any other timer (the caller makes it as usual)."""
    if name != UPDATE_TIMER:
        return None
    timer = FrameTimer(pump, interval, name=name, callback=callback, repeat=None, pause=pause)
    timer._start()
    pump._timers.add(timer)
    return timer
