"""Snapshots of the Calls screen (issue 25 point 6) at 120×36 and 80×24: the list with a call's
transcript in the detail, the outbound call dialog, the spend chart with its totals in both its
views (calls and credits; answer p50 and p95 a day, issue 34), the export question and where `t`
writes a call's test.

The console runs on the sandbox's virtual clock, so every time shown is fixed; earlier calls are
laid into the ledger before the console starts, on the days before the sandbox's EPOCH."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import pytest
from textual.pilot import Pilot

from tests.tui.console_scenes import build_console, settle, until
from tests.tui.test_calls_screen import calls_screen, place, statuses
from vap_console.ledger import Ledger
from vap_console.sandbox.clock import EPOCH
from vap_console.tui.screens.call_dialog import PlaceCallDialog
from vap_console.tui.screens.call_to_test import CallTestPath
from vap_console.tui.screens.calls import CallsScreen
from vap_console.tui.screens.dialog import ExportFormat
from vap_console.tui.screens.spend import SpendScreen

SIZES = {"120x36": (120, 36), "80x24": (80, 24)}


def earlier_calls(index_dir: Path) -> None:
    rows = []
    for n in range(14):
        day = EPOCH - timedelta(days=1 + (n * 5) % 23, hours=n % 5)
        rows.append({
            "call_id": f"hist-{n:02d}", "agent": ("ua_front_desk", "ua_reminders", "ua_sales")[n % 3],
            "kind": ("web", "outbound", "outbound", "talk")[n % 4], "noted_at": day.strftime("%Y-%m-%dT%H:%M:%SZ"),
            "status": "completed", "end_reason": "participant_disconnected", "duration_seconds": 40 + 17 * n,
            "credits": 3 * (1 + n % 3),
            # The Talk calls' answer times (ms), for Spend's answer-time view.
            "answer_ms": [420 + 35 * n, 610 + 20 * n, 980 + 45 * n] if n % 4 == 3 else None,
        })
    Ledger("sandbox", data_dir=index_dir).add_many(rows)


async def three_calls(pilot: Pilot, console) -> None:
    """A web call (expired, nobody joined), a busy number and an answered call, newest first."""
    await settle(pilot)
    await pilot.press("w")
    await until(pilot, lambda: pilot.app.screen.__class__.__name__ == "WebCallConfirm")
    await pilot.press("y")
    await until(pilot, lambda: pilot.app.screen.__class__.__name__ == "WebCallScreen")
    await pilot.press("escape")
    await settle(pilot)
    await place(pilot, console, "+919812340007")
    await pilot.press("6")
    await until(pilot, lambda: pilot.app.screen.__class__.__name__ == "AgentsScreen")
    await place(pilot, console, "+919812340001")
    console.clock.advance(150)
    await until(pilot, lambda: isinstance(pilot.app.screen, CallsScreen)
                and sorted(statuses(pilot.app))[:3] == ["completed", "completed", "completed"]
                and "calling" not in statuses(pilot.app) and "in_progress" not in statuses(pilot.app))
    # Polling has ended: nothing moves in the picture any more.
    await until(pilot, lambda: not calls_screen(pilot.app)._polling())
    await settle(pilot)


SCENES = ("calls", "calls_place_dialog", "calls_spend", "calls_spend_answers", "calls_export", "calls_to_test")


async def _scene(name: str, pilot: Pilot, console) -> None:
    await three_calls(pilot, console)
    pilot.app.clear_notifications()  # the toasts of the calls placed, gone before the picture
    if name == "calls_place_dialog":
        await pilot.press("o")
        await until(pilot, lambda: isinstance(pilot.app.screen, PlaceCallDialog) and pilot.app.screen.query("#call-to"))
        await pilot.press(*"+91 98")
    elif name in ("calls_spend", "calls_spend_answers"):
        await pilot.press("c")
        await until(pilot, lambda: isinstance(pilot.app.screen, SpendScreen))
        await until(pilot, lambda: bool(str(pilot.app.screen.query_one("#totals-kind").content)))
        if name == "calls_spend_answers":
            await pilot.press("a")
            # Both charts shown and drawn (in their thread, once they have a size) before the picture.
            await until(pilot, lambda: all(
                chart.display and chart._drawn is not None and chart._drawn[0] == chart._key()
                for chart in pilot.app.screen.query("#chart-p50, #chart-p95")))
    elif name == "calls_to_test":
        # The oldest call (a fixed id: the placed calls' ids are new each sandbox start), in "/"
        # (the test's folder) so that the path the dialog offers is the same on every machine.
        await pilot.press("end")
        await pilot.press("t")
        await until(pilot, lambda: isinstance(pilot.app.screen, CallTestPath) and pilot.app.screen.query("#test-path"))
    elif name == "calls_export":
        await pilot.press("e")
        await until(pilot, lambda: isinstance(pilot.app.screen, ExportFormat) and pilot.app.screen.query("#choice-cancel"))
    pilot.app.clear_notifications()  # the toasts of the calls placed, gone before the picture
    await settle(pilot)


@pytest.mark.parametrize("size", sorted(SIZES))
@pytest.mark.parametrize("name", SCENES)
def test_calls_scene(name: str, size: str, snap_compare, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(CallsScreen, "POLL_SECONDS", 0.05)
    if name == "calls_to_test":
        monkeypatch.chdir("/")
    index_dir = tmp_path / "index"
    earlier_calls(index_dir)
    console = build_console(start_screen="agents", index_dir=index_dir)

    async def run(pilot: Pilot) -> None:
        await _scene(name, pilot, console)

    assert snap_compare(console.app, terminal_size=SIZES[size], run_before=run)


def held_call(index_dir: Path) -> None:
    """A Talk call the console held: its answer times kept, its record listing two tool calls."""
    from vap_console.api.models import CallRecord

    ledger = Ledger("sandbox", data_dir=index_dir)
    at = (EPOCH - timedelta(hours=2)).strftime("%Y-%m-%dT%H:%M:%SZ")
    ledger.record_started("held-1", "ua_4152f853c72d", "talk", at=EPOCH - timedelta(hours=2))
    ledger.cache_record(CallRecord.model_validate({
        "id": "held-1", "status": "completed", "agentId": "4152f853-c72d-589f-9de8-4b1939949157", "kind": "socket",
        "createdAt": at, "endedAt": at, "durationSeconds": 48, "creditsCharged": 3,
        "endReason": "client_requested",
        "transcript": [{"role": "assistant", "content": "Namaste! Sharma Dental Clinic, Priya speaking."},
                       {"role": "user", "content": "Please book appointment for Friday"},
                       {"role": "assistant", "content": "Done: I used book appointment. Friday at 10 am."}],
        "toolCalls": [
            {"name": "lookup_customer", "kind": "before_call", "status": None, "ms": 3000, "outputs": {},
             "error": "timed out after 3000 ms"},
            {"name": "book_appointment", "kind": "during_call", "status": 200, "ms": 84, "outputs": {}, "error": None}],
    }), at=EPOCH - timedelta(hours=1))
    ledger.record_answer_times("held-1", [640.5, 812.0])


@pytest.mark.parametrize("size", sorted(SIZES))
def test_calls_detail_with_answer_times_and_tool_calls(size: str, snap_compare, tmp_path: Path) -> None:
    index_dir = tmp_path / "index"
    earlier_calls(index_dir)
    held_call(index_dir)
    console = build_console(start_screen="agents", index_dir=index_dir)

    async def run(pilot: Pilot) -> None:
        await settle(pilot)  # the agents read: the status line says online, as in every other scene
        await pilot.press("8")
        await until(pilot, lambda: isinstance(pilot.app.screen, CallsScreen)
                    and calls_screen(pilot.app).current is not None
                    and calls_screen(pilot.app).current.call_id == "held-1")
        await settle(pilot)

    assert snap_compare(console.app, terminal_size=SIZES[size], run_before=run)
