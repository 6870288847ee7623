"""`e` on Calls asks JSON, CSV or Cancel: Esc and Cancel write nothing (a yes/no "JSON (y) or CSV
(n)?" wrote a CSV on Esc), and each format is written only when it is picked, by key or by click."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.tui.console_scenes import build_console, click, quiet, settle, until
from vap_console.tui.screens.calls import CallsScreen
from vap_console.tui.screens.dialog import ExportFormat


@pytest.fixture
def here(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    return tmp_path


def written(folder: Path) -> list[str]:
    return sorted(path.suffix for path in folder.glob("calls-*"))


async def ask(pilot) -> ExportFormat:
    await pilot.press("e")
    await until(pilot, lambda: isinstance(pilot.app.screen, ExportFormat) and pilot.app.screen.query("#choice-cancel"))
    return pilot.app.screen


async def test_esc_on_the_export_question_writes_nothing(tmp_path: Path, here: Path) -> None:
    console = build_console(start_screen="calls", index_dir=tmp_path / "index")
    async with console.app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        await pilot.press("e")
        await until(pilot, lambda: not isinstance(pilot.app.screen, CallsScreen))
        await quiet(pilot)
        await pilot.press("escape")
        await until(pilot, lambda: isinstance(pilot.app.screen, CallsScreen))
        await quiet(pilot)
        assert written(here) == []


async def test_cancel_writes_nothing_and_each_format_is_written_only_when_picked(
    tmp_path: Path, here: Path,
) -> None:
    console = build_console(start_screen="calls", index_dir=tmp_path / "index")
    async with console.app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        dialog = await ask(pilot)
        assert [str(b.label) for b in dialog.query("Button")] == ["JSON (j)", "CSV (c)", "Cancel (Esc)"]
        await click(pilot, "#choice-cancel")
        await until(pilot, lambda: isinstance(pilot.app.screen, CallsScreen))
        await quiet(pilot)
        assert written(here) == []

        await ask(pilot)
        await pilot.press("c")
        await until(pilot, lambda: written(here) == [".csv"])

        await ask(pilot)
        await click(pilot, "#choice-json")
        await until(pilot, lambda: ".json" in written(here))
        await quiet(pilot)
        assert json.loads(next(here.glob("calls-*.json")).read_text()) == []
