"""`make bench`'s 10-minute memory figure keeps working against the code as it is: a short call on
its sandbox child (30 s of call at speed 10) is sampled throughout and summarised, and the bench
undoes its patch of the Talk screen."""

from __future__ import annotations

import math

from bench import talk_memory
from vap_console.tui.screens.talk import TalkScreen


async def test_the_memory_bench_samples_a_short_call_to_its_end() -> None:
    factory = TalkScreen.__dict__["audio_factory"]
    got = await talk_memory._run(0.5, 10.0)
    assert not got["ended_early"] and got["frames"] > 50 and got["tape_mib"] > 0
    samples = got["samples"]
    assert got["minutes"] >= 0.5 and len(samples) >= 2  # minutes of call, on the sandbox's clock
    for column in (1, 2):
        summary = talk_memory.summary(samples, column)
        assert all(math.isfinite(v) for v in summary.values()) and summary["peak"] >= summary["start"] > 0
    assert TalkScreen.__dict__["audio_factory"] is factory


def test_the_slope_is_per_minute_of_call() -> None:
    assert talk_memory.slope([(0, 1.0), (1, 1.5), (2, 2.0)]) == 0.5
    assert talk_memory.slope([(0, 3.0)]) == 0.0
