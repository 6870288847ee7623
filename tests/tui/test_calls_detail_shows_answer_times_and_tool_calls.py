"""The Calls detail shows a call's figures (issue 34 point 1: its answer times p50/p95/max and how
many, when the console held the call) and the tool calls its record lists (issue 33 point 3: name,
status, milliseconds, the error), literally; a record without them (the real service) says nothing."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from textual.widgets import Static

from tests.tui.console_scenes import build_console, settle, until
from tests.tui.test_calls_screen import SIZE, plain
from vap_console.api.models import CallRecord
from vap_console.ledger import Ledger
from vap_console.tui.screens.calls import CallsScreen
from vap_console.tui.widgets.rows import RowTable

TOOL_CALLS = [
    {"name": "book_appointment", "kind": "during_call", "status": 200, "ms": 84.4, "outputs": {}, "error": None},
    {"name": "lookup_customer", "kind": "before_call", "status": None, "ms": 3000, "outputs": {},
     "error": "timed out after 3000 ms"},
    {"name": "crm\x1b[2J[b]x[/b]", "kind": "during_call", "status": 500, "ms": 12, "outputs": {}, "error": None},
]


def _record(call_id: str, **more: Any) -> CallRecord:
    return CallRecord.model_validate({"id": call_id, "status": "completed", "agentId": "ua_4152f853c72d",
                                      "kind": "socket", "createdAt": "2026-11-01T09:00:00Z", **more})


async def _detail_of(tmp_path: Path, call_id: str) -> str:
    console = build_console(start_screen="calls", index_dir=tmp_path / "index")
    async with console.app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: isinstance(pilot.app.screen, CallsScreen) and bool(pilot.app.screen.items))
        table = pilot.app.screen.query_one(RowTable)
        table.move_to_key(call_id)
        await settle(pilot)
        return " ".join(plain(pilot.app.screen.query_one("#detail", Static)).split())


async def test_a_held_calls_answer_times_and_its_tool_calls_are_in_its_detail(tmp_path: Path) -> None:
    ledger = Ledger("sandbox", data_dir=tmp_path / "index")
    ledger.cache_record(_record("c-held", toolCalls=TOOL_CALLS))
    ledger.record_answer_times("c-held", [700, 1400, 650])
    ledger.cache_record(_record("c-other", createdAt="2026-10-01T09:00:00Z"))
    detail = await _detail_of(tmp_path, "c-held")
    assert "Answer times answer p50 700 ms, p95 1400 ms, max 1400 ms (3 answers)" in detail
    assert "⚙ book_appointment → 200 in 84 ms" in detail
    assert "⚙ lookup_customer → no answer in 3000 ms: timed out after 3000 ms" in detail
    # Server text, shown literally: no markup read, no terminal control.
    assert "⚙ crm␛[2J[b]x[/b] → 500 in 12 ms" in detail


async def test_a_call_with_no_figures_kept_says_nothing_of_them(tmp_path: Path) -> None:
    ledger = Ledger("sandbox", data_dir=tmp_path / "index")
    ledger.cache_record(_record("c-real"))  # no toolCalls, as the real service's record
    detail = await _detail_of(tmp_path, "c-real")
    assert "c-real" in detail
    assert "Answer times" not in detail and "Tool calls" not in detail and "⚙" not in detail
