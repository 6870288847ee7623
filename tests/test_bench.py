"""`make bench` keeps working: its in-process measurement runs against the code as it is now, so a
bench whose patch no longer fits the code (it once dropped what RowTable.set_rows returns, and the
console under it stopped) fails here rather than when someone next measures."""

from __future__ import annotations

import httpx

from bench import tts as tts_bench
from bench import tui as tui_bench
from vap_console.sandbox.app import create_app
from vap_console.sandbox.clock import VirtualClock
from vap_console.tui.widgets.rows import RowTable


async def test_the_console_bench_loads_filters_and_times_a_list() -> None:
    set_rows = RowTable.set_rows
    # The bench checks the filter's row count itself (RuntimeError when wrong).
    shown, per_key, refill = await tui_bench._variables(300)
    assert 0 < shown < 60 and 0 < per_key < 60 and 0 < refill < 60  # seconds: measured, not blank
    assert RowTable.set_rows is set_rows  # its timing patch is undone


async def test_the_speech_bench_times_the_endpoint_and_the_stream() -> None:
    transport = httpx.ASGITransport(app=create_app(clock=VirtualClock()))
    async with httpx.AsyncClient(transport=transport, base_url="http://s", headers=tts_bench.KEY) as client:
        took, audio = await tts_bench._speak(client, tts_bench._text(200))
    assert 0 < took < 60 and 5 < audio < 30  # seconds: measured, not blank
    assert 0 < await tts_bench.first_audio(tts_bench._text(400)) < 60


async def test_the_tools_bench_times_a_sandbox_tool_call_against_a_webhook_process() -> None:
    from bench import tools as tools_bench

    with tools_bench._webhook_process() as url:
        added = await tools_bench._sandbox_tool_calls(url + "/ok", calls=3)
    assert len(added) == 3 and all(-60_000 < a < 60_000 for a in added)  # ms: measured, not blank


async def test_the_tools_bench_times_answers_with_and_without_a_tool_call_on_the_socket() -> None:
    from bench import tools as tools_bench

    with tools_bench._webhook_process() as url, tools_bench._calling_sandbox(url + "/ok") as base:
        rounds = await tools_bench._answers(base, url + "/ok", rounds=2)
    assert len(rounds) == 2  # and each tool turn was checked to have called the webhook (status 200)
    assert all(0 < r.plain < 60_000 and 0 < r.webhook < r.tool < 60_000 for r in rounds)  # ms: measured, not blank
