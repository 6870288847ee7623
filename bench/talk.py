"""The console while an agent talks (issue 24 point 5): the Talk screen on a sandbox child at speed 1,
the agent streaming 50 audio frames a second with transcript deltas, audio off (the silent player).

The console runs headless (Textual's run_test at 120×36) in this process; the sandbox in a child,
so this process's CPU is the console's own (and the test driver's, a small part). The agent is
kept talking: each time it stops, a long line is typed and sent, and the sandbox agent echoes it.
Measured over at least ``VAP_BENCH_TALK_SECONDS`` (default 30) of call and until
``VAP_BENCH_TALK_DELTAS`` (default 300) deltas have been drawn (the agent says about 2.5 words a
second, a delta each: about two minutes), so that p99 is not one sample: of 300, nearest-rank p99
is the 297th, with three slower ones above it (of the 75 deltas of 30 s it was the slowest one):

- CPU: this process's CPU time over the wall time, as a share of one core;
- key presses: a letter typed into the box every 250 ms, from the press to the box showing it.
  The letters make a line, as a person types one, until the agent stops and a line is sent (the
  box is then empty again). Until issue 34's third pass the bench emptied the box after each
  letter, a second repaint per key that no person makes; ``VAP_BENCH_TALK_CLEAR_EACH_KEY=1`` still
  does, to compare with figures taken that way;
- deltas on screen: from each transcript.delta's arrival (parsed off the socket) to the first
  screen refresh after the transcript took it (``call_after_refresh``); every delta counts, also
  one drawn in the same redraw as a later one (it waited longer);
- memory: this process's resident size at the first and the last quarter of the run.

Goals (issue 24): CPU under 5 % of a core, key presses p99 under 50 ms, deltas p99 at most 33 ms,
memory flat; percentiles nearest-rank (api/figures.py). The sandbox child's calls may last 15
minutes here (its own limit is 2), so one call holds the run; memory over a 10-minute call is
bench/talk_memory.py's.
"""

from __future__ import annotations

import asyncio
import os
import statistics
import time
from pathlib import Path
from typing import Any

from bench._table import print_table

SECONDS = float(os.environ.get("VAP_BENCH_TALK_SECONDS", "30"))
DELTAS = int(os.environ.get("VAP_BENCH_TALK_DELTAS", "300"))
CLEAR_EACH_KEY = os.environ.get("VAP_BENCH_TALK_CLEAR_EACH_KEY") == "1"
LINE = 80  # letters typed before the box is emptied, if the agent has not stopped by then
LONGEST = 900  # seconds a call may last on the sandbox child: longer than any run
LONG = ("please tell me everything about the opening times on weekends and whether i can bring my "
        "child along for a checkup next week and what it will cost")


def _rss_mib() -> float:
    pages = int(Path("/proc/self/statm").read_text().split()[1])
    return pages * os.sysconf("SC_PAGE_SIZE") / 2**20


def _p(values: list[float], q: float) -> float:
    from vap_console.api.figures import percentile

    got = percentile(values, q * 100)
    return float("nan") if got is None else got


def silent_talk() -> Any:
    """Talk with audio off (the silent player) from here on; calling what it returns undoes it."""
    from vap_console.api.audio import SilentPlayer
    from vap_console.audio_stream import TalkAudio
    from vap_console.tui.screens.talk import TalkScreen

    own = TalkScreen.__dict__["audio_factory"]
    TalkScreen.audio_factory = staticmethod(lambda **_: TalkAudio(SilentPlayer()))

    def undo() -> None:
        TalkScreen.audio_factory = own

    return undo


def talk_app(url: str) -> Any:
    """The console on the sandbox child at ``url``, opening on Agents."""
    import httpx

    from vap_console.api import VapClient
    from vap_console.sandbox.keys import DEFAULT_KEY
    from vap_console.tui.app import make_app
    from vap_console.tui.settings import Settings

    return make_app(client_factory=lambda: VapClient(url, DEFAULT_KEY, transport=httpx.AsyncHTTPTransport()),
                    profile_name="sandbox", base_url=url, settings=Settings(), start_screen="agents",
                    on_sandbox=True)


async def talking(app: Any, pilot: Any) -> Any:
    """t on the first agent, yes to the confirm: the Talk screen once the agent has answered."""
    from vap_console.tui.screens.talk import TalkConfirm, TalkScreen
    from vap_console.tui.widgets.rows import RowTable

    while not (app.screen.query(RowTable) and app.screen.query_one(RowTable).row_count):
        await pilot.pause(0.05)
    await pilot.press("t")
    while not isinstance(app.screen, TalkConfirm):
        await pilot.pause(0.02)
    await pilot.press("y")
    while not (isinstance(app.screen, TalkScreen) and app.screen.talk.started):
        await pilot.pause(0.02)
    return app.screen


async def _run(seconds: float, enough: int = DELTAS) -> dict[str, Any]:
    from textual import events
    from textual.widgets import Input

    from bench.talk_memory import _start_sandbox
    from vap_console.api.conversation import Conversation
    from vap_console.tui.widgets.talk import TranscriptView

    proc, url = _start_sandbox(1.0, LONGEST)
    deltas: list[float] = []
    apply, show_live = Conversation.apply, TranscriptView.show_live
    arrived: list[float] = []

    def applied(self: Conversation, event: Any) -> set[str]:
        if event.type == "transcript.delta":
            arrived.append(event.received_at)
        return apply(self, event)

    def shown(self: TranscriptView, turn: Any, held: Any = None) -> None:
        show_live(self, turn, held)
        if arrived:
            ats = list(arrived)
            arrived.clear()
            self.call_after_refresh(lambda: deltas.extend(time.monotonic() - at for at in ats))

    # Measuring: both undone below.
    Conversation.apply = applied  # type: ignore[method-assign]
    TranscriptView.show_live = shown  # type: ignore[method-assign]
    undo = silent_talk()
    try:
        app = talk_app(url)
        async with app.run_test(size=(120, 36)) as pilot:
            screen = await talking(app, pilot)
            box = screen.query_one("#say", Input)
            keys: list[float] = []
            changed = asyncio.Event()
            screen.watch(box, "value", lambda _: changed.set(), init=False)
            rss: list[float] = []
            longest = 0  # the longest line typed
            cpu0, wall0 = time.process_time(), time.monotonic()
            while (time.monotonic() - wall0 < seconds or len(deltas) < enough) and not screen.ended:
                if not screen.talk.speaking and screen.talk.live is None:
                    box.value = LONG
                    await pilot.press("enter")
                elif len(box.value) >= LINE:
                    box.value = ""  # a line's worth typed (the box's cap is far off): a new one
                changed.clear()
                pressed = time.monotonic()
                # As a terminal's key arrives: a Key event to the app, then to the focused box.
                app.post_message(events.Key("x", "x"))
                await changed.wait()
                keys.append(time.monotonic() - pressed)
                longest = max(longest, len(box.value))
                if CLEAR_EACH_KEY:
                    box.value = ""
                rss.append(_rss_mib())
                await asyncio.sleep(0.25)
            cpu, wall = time.process_time() - cpu0, time.monotonic() - wall0
            frames = screen.talk.audio_frames
            await pilot.press("escape")
    finally:
        Conversation.apply = apply  # type: ignore[method-assign]
        TranscriptView.show_live = show_live  # type: ignore[method-assign]
        undo()
        proc.kill()
        proc.wait()
    quarter = max(1, len(rss) // 4)
    return {"cpu": cpu / wall, "wall": wall, "keys": keys, "deltas": deltas, "frames": frames, "line": longest,
            "rss_start": statistics.median(rss[:quarter]), "rss_end": statistics.median(rss[-quarter:])}


def main() -> bool:
    got = asyncio.run(_run(SECONDS))
    key99, delta99 = _p(got["keys"], 0.99) * 1000, _p(got["deltas"], 0.99) * 1000
    growth = got["rss_end"] - got["rss_start"]
    return print_table(
        f"The Talk screen while the agent streams ({got['wall']:.0f} s, {got['frames']} audio frames, "
        f"{len(got['deltas'])} deltas, {len(got['keys'])} key presses"
        f"{', the box emptied after each' if CLEAR_EACH_KEY else ''}; load {os.getloadavg()[0]:.1f})",
        [
            ("CPU, audio off", f"{got['cpu'] * 100:.1f} % of a core", "< 5 %", got["cpu"] < 0.05),
            ("key press to screen p50 / p99", f"{_p(got['keys'], 0.5) * 1000:.1f} / {key99:.1f} ms", "p99 < 50 ms",
             key99 < 50),
            ("delta on screen p50 / p99", f"{_p(got['deltas'], 0.5) * 1000:.1f} / {delta99:.1f} ms", "p99 ≤ 33 ms",
             delta99 <= 33),
            ("resident memory, first → last quarter", f"{got['rss_start']:.1f} → {got['rss_end']:.1f} MiB",
             "flat (< 5 MiB)", abs(growth) < 5),
        ],
    )


if __name__ == "__main__":
    raise SystemExit(0 if main() else 1)
