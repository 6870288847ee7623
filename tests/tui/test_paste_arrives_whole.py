"""A bracketed paste reaches the console whole, as one Paste, however many ESCs it holds: none of
it arrives as key presses (Textual's own parser handed on everything after the paste's first ESC
as keys, so a pasted "\\x1bn" opened a form), and the field it lands in shows the ESCs visibly."""

from __future__ import annotations

import asyncio
import os
import signal
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager

import pytest
from textual import events
from textual.app import App
from textual.message import Message
from textual.widgets import Input

from tests.tui.console_scenes import DEADLINE, build_console, quiet, settle, until
from tests.tui.hostile import assert_drawn_safely
from vap_console.literal import clean
from vap_console.tui.screens.tools import ToolsScreen
from vap_console.tui.terminal_driver import TerminalDriver
from vap_console.tui.whole_paste import WholePasteParser

START, END = "\x1b[200~", "\x1b[201~"
# ESC then letters that are the console's keys (n: new tool, ?: keys, d: delete, y: yes), a CSI
# (colour), an OSC 52 clipboard write, BEL, and a paste start inside the paste.
PASTED = "ops \x1bn\x1b?x\x1bd\x1by \x1b[31mred\x1b[0m \x1b]52;c;ZXZpbA==\x07 \x1b[200~inner"


def parsed(data: str, chunk: int) -> list[Message]:
    parser = WholePasteParser()
    out: list[Message] = []
    for at in range(0, len(data), chunk):
        out += parser.feed(data[at:at + chunk])
    return out + list(parser.feed(""))


@pytest.mark.parametrize("chunk", [1, 3, 4096])  # a terminal's bytes come in reads of any size
def test_a_paste_is_one_paste_event_with_no_key_in_it(chunk: int) -> None:
    messages = parsed(f"a{START}{PASTED}{END}b\x1b[A", chunk)
    assert [(type(m).__name__, getattr(m, "key", None) or getattr(m, "text", None)) for m in messages] == [
        ("Key", "a"), ("Paste", PASTED), ("Key", "b"), ("Key", "up"),
    ]


@contextmanager
def terminal_driver() -> Iterator[tuple[int, list[Message]]]:
    """The console's terminal driver reading a pipe as its terminal: the pipe's end to write the
    terminal's bytes to, and what the driver makes of them."""
    got: list[Message] = []

    class Recording(TerminalDriver):
        def process_message(self, message: Message) -> None:
            got.append(message)

    handlers = signal.getsignal(signal.SIGTSTP), signal.getsignal(signal.SIGCONT)
    driver = Recording(App())
    signal.signal(signal.SIGTSTP, handlers[0])  # the driver takes ctrl+z for its app
    signal.signal(signal.SIGCONT, handlers[1])
    read, write = os.pipe()
    driver.fileno = read
    thread = threading.Thread(target=driver.run_input_thread, daemon=True)
    thread.start()
    try:
        yield write, got
    finally:
        driver.exit_event.set()
        os.close(write)
        thread.join(DEADLINE)
        os.close(read)


async def test_the_terminal_driver_reads_a_paste_whole() -> None:
    with terminal_driver() as (write, got):  # the driver is built on the running loop
        os.write(write, f"{START}{PASTED}{END}".encode())
        os.write(write, b"z")  # a key typed after the paste: once it is in, the paste is too
        deadline = time.monotonic() + DEADLINE
        while not any(isinstance(m, events.Key) for m in got):
            assert time.monotonic() < deadline, f"the driver parsed only {got!r}"
            await asyncio.sleep(0.01)
    assert [type(m).__name__ for m in got] == ["Paste", "Key"]
    assert got[0].text == PASTED and got[1].key == "z"  # type: ignore[attr-defined]


def test_the_console_runs_in_a_terminal_with_that_driver(monkeypatch) -> None:
    monkeypatch.delenv("TEXTUAL_DRIVER", raising=False)
    assert build_console().app.driver_class is TerminalDriver


async def send_bytes(app: App, data: str) -> None:
    """What the console's driver makes of these bytes, handed to the app as the driver does."""
    for message in parsed(data, 4096):
        message.set_sender(app)
        app.post_message(message)


async def test_a_pasted_text_presses_no_key_and_shows_its_escapes_in_the_field() -> None:
    console = build_console(start_screen="tools")
    async with console.app.run_test(size=(120, 36)) as pilot:
        app = pilot.app
        await settle(pilot)
        tools = app.screen
        assert isinstance(tools, ToolsScreen) and not isinstance(app.focused, Input)
        # On the list: "\x1bn", "\x1b?", "\x1bd" in a paste are not n (new tool), ? (keys), d (delete).
        await send_bytes(app, f"{START}{PASTED}{END}")
        await quiet(pilot)
        assert app.screen is tools and app.is_running

        # In the filter: the whole text, its ESCs and BEL as stand-ins, nothing raw on screen.
        await pilot.press("slash")
        box = tools.query_one("#filter", Input)
        await until(pilot, lambda: app.focused is box)
        await send_bytes(app, f"{START}{PASTED}{END}")
        await until(pilot, lambda: box.value != "")
        await quiet(pilot)
        assert box.value == clean(PASTED)
        assert "␛n␛?x␛d␛y ␛[31mred" in box.value and "\x1b" not in box.value
        assert app.screen is tools
        assert_drawn_safely(app, "filter after a paste holding ESC")
