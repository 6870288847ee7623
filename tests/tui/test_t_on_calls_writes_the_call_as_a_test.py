"""`t` on Calls writes the highlighted call as a conversation test (the file `vap calls to-test`
writes): it asks where, starting from the call's own name in the current folder, shows the path it
wrote, never writes over a file that is there, and Esc writes nothing."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.widgets import Input

from tests.tui.console_scenes import build_console, quiet, settle, until
from tests.tui.test_calls_screen import SIZE, completed_call
from vap_console.scripting import agent_tests
from vap_console.tui.screens.call_to_test import CallTestPath
from vap_console.tui.screens.calls import CallsScreen
from vap_console.tui.widgets.banner import Banner


@pytest.fixture
def here(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(CallsScreen, "POLL_SECONDS", 0.05)
    return tmp_path


async def _ask(pilot) -> CallTestPath:
    """t, and the dialog once its field is there."""
    await pilot.press("t")
    await until(pilot, lambda: bool(pilot.app.screen.query("#test-path")))
    dialog = pilot.app.screen
    assert isinstance(dialog, CallTestPath)
    return dialog


async def test_t_asks_where_writes_the_test_and_shows_the_path(tmp_path: Path, here: Path) -> None:
    console = build_console(start_screen="agents", index_dir=tmp_path / "index")
    async with console.app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await completed_call(pilot, console)
        highlighted = pilot.app.screen.current
        assert isinstance(pilot.app.screen, CallsScreen) and highlighted is not None
        call_id = highlighted.call_id
        dialog = await _ask(pilot)
        assert dialog.query_one("#test-path", Input).value == str(here / f"vap-call-{call_id}.test.json")
        dialog.query_one("#test-path", Input).value = "front.test.json"
        await pilot.press("enter")
        written = here / "front.test.json"
        await until(pilot, lambda: written.exists() and any(
            str(written) in str(n.message) for n in pilot.app._notifications))
        loaded = agent_tests.load(written)
        assert [t.say for t in loaded.conversations[0].turns] == ["Hi, yes, I can talk now.", "Okay, thank you. Bye."]
        assert loaded.conversations[0].turns[0].expect.resembles is not None

        # Again to the same name: the file is kept, and the banner says so.
        before = written.read_text(encoding="utf-8")
        written.write_text("mine", encoding="utf-8")
        dialog = await _ask(pilot)
        dialog.query_one("#test-path", Input).value = str(written)
        await pilot.press("enter")
        await settle(pilot, expect_failed_workers=True)
        assert "is there already: nothing was written" in pilot.app.screen.query_one(Banner).message
        assert written.read_text(encoding="utf-8") == "mine" != before


async def test_esc_on_the_question_writes_nothing(tmp_path: Path, here: Path) -> None:
    console = build_console(start_screen="agents", index_dir=tmp_path / "index")
    async with console.app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await completed_call(pilot, console)
        await _ask(pilot)
        await pilot.press("escape")
        await until(pilot, lambda: isinstance(pilot.app.screen, CallsScreen))
        await quiet(pilot)
        assert list(here.glob("*.json")) == []


async def test_an_empty_file_name_is_refused_and_the_error_goes_once_a_name_is_typed(tmp_path: Path) -> None:
    from textual.app import App

    from vap_console.tui.widgets.field_error import FieldError

    answers: list[Path | None] = []

    class Asking(App[None]):
        def on_mount(self) -> None:
            self.push_screen(CallTestPath("call_1", tmp_path / "a.test.json"), answers.append)

    app = Asking()
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: bool(app.screen.query("#test-path")))
        box = app.screen.query_one("#test-path", Input)
        box.value = ""
        box.focus()
        await pilot.press("enter")
        error = app.screen.query_one("#test-path-error", FieldError)
        await until(pilot, lambda: error.message == "file: must not be empty")
        assert answers == []  # still asking
        await pilot.press("b")
        await until(pilot, lambda: box.value == "b")
        await quiet(pilot)
        assert error.message == "" and not error.has_class("-shown")
