"""The console's memory over a 10-minute call (issue 24 point 5, "memory flat over a 10-minute
call"): the Talk screen (headless, 120×36, audio off) on a sandbox child at ``--speed``, the agent
kept talking (50 audio frames a second of the sandbox's clock, with transcript deltas), as
bench/talk.py drives it.

The sandbox ends a call at 120 s of its clock (its ``max_duration``); this bench's child raises
that to 11 minutes, nothing else. At speed 10 (``VAP_BENCH_TALK_SPEED``) a 10-minute call
(``VAP_BENCH_TALK_MINUTES``) takes a minute of wall time and the console takes its frames ten
times faster than in a real call: more work per second, the same work per minute of call.

Sampled every 5 s of call: this process's resident size (RSS) and the Python heap that
tracemalloc sees (started once the call is; it slows the run, so the CPU figure is bench/talk.py's).
Reported: start (the median of the first minute), minute 2 (caches of styles and filters
have filled to their bounds by then), end (the median of the last minute), peak, and the slope
from minute 2 on (least squares, MiB per minute of call); the baseline is the start, measured in
the same run. The lines whose heap grew most from minute 2 to the end are printed after the
table, to tell what grows. Goal: flat once warm: the heap's slope under 0.1 MiB a minute, RSS's
under 0.5 (what a call keeps is its turns' text, a kilobyte or two each, at most 500 of them).
"""

from __future__ import annotations

import asyncio
import os
import statistics
import subprocess
import time
import tracemalloc
from pathlib import Path
from typing import Any

from bench._table import print_table
from bench.talk import LONG, _rss_mib, silent_talk, talk_app, talking

ROOT = Path(__file__).resolve().parents[1]
MINUTES = float(os.environ.get("VAP_BENCH_TALK_MINUTES", "10"))
SPEED = float(os.environ.get("VAP_BENCH_TALK_SPEED", "10"))
SAMPLE_EVERY = 5.0  # seconds of call
WARM = 2.0  # minutes of call before the slope is measured
# The child: the sandbox as `python -m vap_console.sandbox.child SPEED` runs it, with a longer call.
CHILD = ("import sys; from vap_console.sandbox.voice import agent_socket; "
         "agent_socket.MAX_DURATION_SECONDS = int(sys.argv[2]); "
         "from vap_console.sandbox.child import main; sys.exit(main(sys.argv[1:2]))")


def _start_sandbox(speed: float, call_seconds: int) -> tuple[subprocess.Popen[bytes], str]:
    from bench.voice_socket import start_child

    return start_child(["-c", CHILD, repr(speed), str(call_seconds)])


def slope(points: list[tuple[float, float]]) -> float:
    """Least-squares slope of (x, y) points; 0 for fewer than two."""
    if len(points) < 2:
        return 0.0
    mx = statistics.fmean(x for x, _ in points)
    my = statistics.fmean(y for _, y in points)
    den = sum((x - mx) ** 2 for x, _ in points)
    return sum((x - mx) * (y - my) for x, y in points) / den if den else 0.0


async def _run(minutes: float, speed: float) -> dict[str, Any]:
    from textual.widgets import Input

    proc, url = _start_sandbox(speed, int(minutes * 60) + 60)
    undo = silent_talk()
    samples: list[tuple[float, float, float]] = []  # (minute of call, RSS MiB, heap MiB)
    try:
        app = talk_app(url)
        async with app.run_test(size=(120, 36)) as pilot:
            screen = await talking(app, pilot)
            box = screen.query_one("#say", Input)
            tracemalloc.start()
            first = None  # the heap at minute 2, what grew is counted from
            wall0 = time.monotonic()
            call_seconds = minutes * 60
            next_sample = at = 0.0
            while not screen.ended:
                at = (time.monotonic() - wall0) * speed  # seconds of the call, on the sandbox's clock
                if at >= call_seconds:
                    break
                if first is None and at >= WARM * 60:
                    first = tracemalloc.take_snapshot()
                if at >= next_sample:
                    samples.append((at / 60, _rss_mib(), tracemalloc.get_traced_memory()[0] / 2**20))
                    next_sample += SAMPLE_EVERY
                if not screen.talk.speaking and screen.talk.live is None:
                    box.value = LONG
                    await pilot.press("enter")
                await asyncio.sleep(0.02)
            last = tracemalloc.take_snapshot()
            tracemalloc.stop()
            talk = screen.talk
            got: dict[str, Any] = {"frames": talk.audio_frames, "turns": talk.settled_total, "minutes": at / 60,
                                   "tape_mib": len(screen.tape) / 2**20, "ended_early": screen.ended,
                                   "wall": time.monotonic() - wall0}
            growth = last.compare_to(first, "lineno") if first is not None else []
            got["growth"] = [(str(s.traceback[0]), s.size_diff) for s in growth[:5]]
            await pilot.press("escape")
    finally:
        undo()
        assert proc.stdin is not None
        proc.stdin.close()
        proc.wait(10)
    got["samples"] = samples
    return got


def summary(samples: list[tuple[float, float, float]], column: int) -> dict[str, float]:
    """Start (the first minute's median), warm (the median of minute 2 to 3: Textual's and Rich's
    caches of styles and filters fill in the first minutes, to their bounds), end (the last
    minute's), peak, and the slope once warm (least squares, per minute of call)."""
    values = [(s[0], s[column]) for s in samples]
    end_minute = values[-1][0]

    def median(low: float, high: float, fallback: float) -> float:
        return statistics.median([v for m, v in values if low <= m < high] or [fallback])

    steady = [(m, v) for m, v in values if m >= WARM] or values
    return {"start": median(0, 1, values[0][1]), "warm": median(WARM, WARM + 1, values[0][1]),
            "end": median(end_minute - 1, end_minute + 1, values[-1][1]), "peak": max(v for _, v in values),
            "slope": slope(steady)}


def main() -> bool:
    got = asyncio.run(_run(MINUTES, SPEED))
    samples = got["samples"]
    rss, heap = summary(samples, 1), summary(samples, 2)
    minutes = samples[-1][0]
    # The baseline a leak of the audio would grow at: the agent's PCM received per minute of call.
    audio_rate = got["tape_mib"] / minutes
    ok = not got["ended_early"]
    title = (f"The console over a {minutes:.1f}-minute call at sandbox speed {SPEED:g} ({got['wall']:.0f} s wall, "
             f"{got['frames']} audio frames, {got['turns']} turns, {got['tape_mib']:.1f} MiB of agent audio "
             f"spooled to disk for ctrl+s; load {os.getloadavg()[0]:.1f})")
    met = print_table(title, [
        ("call held to the end", "yes" if ok else "no: the call ended early", "yes", ok),
        ("RSS start → minute 2 → end (peak)",
         f"{rss['start']:.1f} → {rss['warm']:.1f} → {rss['end']:.1f} MiB ({rss['peak']:.1f})", "", None),
        ("RSS end / start", f"{rss['end'] / rss['start']:.3f}", "", None),
        ("RSS slope from minute 2", f"{rss['slope']:+.2f} MiB/min", "< 0.5 MiB/min", rss["slope"] < 0.5),
        ("Python heap start → minute 2 → end (peak)",
         f"{heap['start']:.2f} → {heap['warm']:.2f} → {heap['end']:.2f} MiB ({heap['peak']:.2f})", "", None),
        ("Python heap slope from minute 2", f"{heap['slope']:+.3f} MiB/min", "< 0.1 MiB/min", heap["slope"] < 0.1),
        ("heap slope / agent audio streamed", f"{heap['slope'] / audio_rate:.1%} (of {audio_rate:.2f} MiB/min)",
         "", None),
    ])
    print("heap grown most, first → last sample:")
    for where, size in got["growth"]:
        print(f"  {size / 1024:+9.1f} KiB  {where}")
    return met


if __name__ == "__main__":
    raise SystemExit(0 if main() else 1)
