"""File I/O stays off the UI loop: typing a document's path, the review, the upload, the local
index. An audit hook sees every file opened, renamed, locked or listed while a test runs; one on
the event loop's thread, under the test's own folder, is a key that could hang on a slow disk."""

from __future__ import annotations

import os
import sys
import threading
import traceback
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from textual.widgets import Input

from tests.tui.console_scenes import build_console, settle, until
from tests.tui.wizard_host import confirm_rent, fill_end_user, next_step, rental_screen, set_value
from vap_console.tui.screens.tool_form import ToolFormScreen

SIZE = (120, 36)
WATCHED = {"open", "os.rename", "os.remove", "os.mkdir", "os.listdir", "os.scandir", "fcntl.flock",
           "shutil.copyfile", "os.truncate"}


@dataclass
class Watch:
    thread: int | None = None
    root: str = ""
    seen: list[str] = field(default_factory=list)


WATCH = Watch()


def _hook(event: str, args: tuple) -> None:
    watch = WATCH
    if watch.thread is None or event not in WATCHED or threading.get_ident() != watch.thread:
        return
    where = args[0] if args else None
    if isinstance(where, (str, Path)):
        where = os.path.abspath(where)  # relative paths are the test's folder too (its cwd)
    if event == "fcntl.flock" or (isinstance(where, str) and where.startswith(watch.root)):
        # Where in the console it happened: the innermost frame of vap_console's.
        frame = next((f for f in reversed(traceback.extract_stack()) if "vap_console" in f.filename), None)
        at = f" at {Path(frame.filename).name}:{frame.lineno} {frame.name}" if frame else ""
        watch.seen.append(f"{event} {where}{at}")


sys.addaudithook(_hook)  # hooks cannot be removed: it does nothing while WATCH.thread is None


@pytest.fixture
def blocking_io(tmp_path: Path):
    """Starts recording file I/O on this thread (where the console's event loop runs)."""
    WATCH.root, WATCH.seen = str(tmp_path.resolve()), []
    yield WATCH
    WATCH.thread = None


@pytest.fixture
def in_kyc_dir(kyc_dir: Path, tmp_path: Path) -> Path:
    return tmp_path


@pytest.mark.slow
async def test_index_writes_and_document_checks_never_run_on_the_ui_loop(blocking_io, in_kyc_dir) -> None:
    console = build_console(index_dir=in_kyc_dir / "data")
    async with console.app.run_test(size=SIZE) as pilot:
        app = console.app
        await settle(pilot)
        blocking_io.thread = threading.get_ident()

        # A tool created: remembered in the local index.
        await pilot.press("2")
        await settle(pilot)
        await pilot.press("n")
        await until(pilot, lambda: isinstance(app.screen, ToolFormScreen))
        form = app.screen
        form.query_one("#f-name", Input).value = "lookup_order"
        form.query_one("#f-description", Input).value = "Looks an order up"
        form.query_one("#f-config-url", Input).value = "https://crm.example/orders"
        await pilot.press("ctrl+s")
        await until(pilot, lambda: not isinstance(app.screen, ToolFormScreen))
        await settle(pilot)

        # The wizard: a path typed key by key is checked as it grows; review; rent; upload.
        await pilot.press("1")
        await settle(pilot)
        await pilot.press("n")
        await settle(pilot)
        wizard = app.screen
        set_value(wizard, "number", "912272401010")
        await next_step(pilot, wizard, "requirements")
        await next_step(pilot, wizard, "enduser")
        await fill_end_user(pilot, wizard)
        await next_step(pilot, wizard, "documents")
        set_value(wizard, "doc-0-field-gstin", "29ABCDE1234F1ZW")
        wizard.query_one("#doc-0-path", Input).focus()
        await pilot.press(*"kyc/incorporation.pdf")
        set_value(wizard, "doc-1-path", "kyc/electricity-bill.pdf")
        set_value(wizard, "doc-2-field-pan", "ABCDE1234F")
        set_value(wizard, "doc-2-path", "kyc/pan-card.png")
        await next_step(pilot, wizard, "review")
        assert "incorporation.pdf" in str(wizard.query_one("#review").content)
        await confirm_rent(pilot, wizard)
        await until(pilot, lambda: rental_screen(app) is not None)
        await app.local_index.flushed()
        blocking_io.thread = None

    assert blocking_io.seen == []
    assert len(app.local_index.index.ids("rentals")) == 1 and len(app.local_index.index.ids("tools")) == 1


def test_the_watch_sees_file_io_on_its_thread(blocking_io, tmp_path: Path) -> None:
    blocking_io.thread = threading.get_ident()
    (tmp_path / "x.txt").write_text("x")
    assert blocking_io.seen and blocking_io.seen[0].startswith("open ")
