"""`make bench`'s Talk measurement keeps working against the code as it is: a short run of it (a
sandbox child at speed 1, 3 s of the agent talking and then as long as it takes to draw the
deltas asked for: p99 is of enough of them) measures every figure, and undoes its patches."""

from __future__ import annotations

import math

from bench import talk as talk_bench
from vap_console.api.conversation import Conversation
from vap_console.tui.screens.talk import TalkScreen
from vap_console.tui.widgets.talk import TranscriptView


async def test_the_talk_bench_measures_a_short_call() -> None:
    apply, show_live, factory = Conversation.apply, TranscriptView.show_live, TalkScreen.__dict__["audio_factory"]
    got = await talk_bench._run(3.0, enough=12)
    assert got["frames"] > 50 and len(got["deltas"]) >= 12 and got["keys"]
    assert got["line"] > 1  # the letters typed make a line, as a person's do
    assert all(math.isfinite(v) and v > 0 for v in (got["cpu"], got["rss_start"], got["rss_end"]))
    assert Conversation.apply is apply and TranscriptView.show_live is show_live
    assert TalkScreen.__dict__["audio_factory"] is factory
