"""Work in slices of spare time: two such jobs at once (a list's rows being built while a detail is
drawn or a replaced page freed) both go on."""

from __future__ import annotations

import asyncio

from vap_console.tui.slices import spare_time


async def test_two_jobs_taking_spare_time_at_once_both_go_on() -> None:
    done: list[str] = []

    async def job(name: str) -> None:
        for _ in range(20):
            await spare_time()
        done.append(name)

    # Each used to wait for the loop's queue to empty while the other sat in it: neither went on.
    await asyncio.wait_for(asyncio.gather(job("rows"), job("detail")), timeout=10)
    assert sorted(done) == ["detail", "rows"]


async def test_spare_time_waits_for_other_work_queued_first() -> None:
    order: list[str] = []
    loop = asyncio.get_running_loop()

    async def job() -> None:
        await spare_time()
        order.append("job")

    task = asyncio.ensure_future(job())
    await asyncio.sleep(0)  # the job is inside spare_time now
    for n in range(3):
        loop.call_soon(order.append, f"other {n}")
    await task
    assert order == ["other 0", "other 1", "other 2", "job"]
