"""Work done on the UI loop a slice at a time, only when nothing else waits to run (rows built from
a page, the part of a detail below what the pane shows, a replaced page freed)."""

from __future__ import annotations

import asyncio

# Such work takes the UI loop for at most this long at a time.
SLICE = 0.004


_waiting = 0  # tasks inside spare_time now


async def spare_time() -> None:
    """Give the UI loop back, and resume only once nothing else is waiting to run.

    asyncio has no priorities; a bare ``sleep(0)`` would take a slice after every step of a key's
    handling (each message hop is a turn of the loop), so this waits out the loop's ready queue,
    except for the other tasks waiting here (two of them would otherwise wait for each other for
    ever, each seeing the other ready).
    """
    global _waiting
    await asyncio.sleep(0)
    ready = getattr(asyncio.get_running_loop(), "_ready", None)  # CPython's loop; uvloop has none
    if ready is None:
        return
    _waiting += 1
    try:
        # This task is running, not queued: more queued than the other waiters is other work.
        while len(ready) >= _waiting:  # noqa: ASYNC110 - no event to wait for: the loop's own queue is what drains
            await asyncio.sleep(0)
    finally:
        _waiting -= 1
