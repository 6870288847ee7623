"""The bytes the real `vap` writes to its terminal hold no control sequence from a server's answer,
a file's name or a paste: an OSC 52 there would write the clipboard, an OSC 0 set the window title.

The console runs in tmux with ``pipe-pane``, which copies every byte the program writes to its
terminal into a file, while the keys go in and the screen comes back as in the other tmux tests.
The paste is sent as raw bytes (``send-keys -H``), wrapped in the bracketed-paste markers a
terminal puts around one.
"""

from __future__ import annotations

import os
import re
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.api.loopback import LoopbackServer
from tests.e2e.documents import make_pdf
from tests.tmux import DEADLINE, INPUT_RIGHT, VAP, Tmux, needs_tmux
from tests.tui.hostile import CLIPBOARD, PoisonedSearch
from vap_console.sandbox.app import create_app

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(180)]

FILE_CLIPBOARD = "ZmlsZS1wYXlsb2Fk"  # base64 of "file-payload"
HOSTILE_NAME = f"evil \x1b]52;c;{FILE_CLIPBOARD}\x07 bell\x07 csi\x9b31m.pdf"
PASTE_CLIPBOARD = "cGFzdGUtcGF5bG9hZA=="  # base64 of "paste-payload"
PASTE = f"P\x9bJ\x07bell \x1b]52;c;{PASTE_CLIPBOARD}\x07\x1b]0;paste-title\x07"

# The one sequence of Textual's own that ends in BEL: the mouse pointer's shape (OSC 22).
OWN_BEL = re.compile("\x1b]22;[^\x07\x1b]*\x07")
C1_OR_UNDECODABLE = re.compile("[\x80-\x9f\udc80-\udcff]")


def assert_no_hostile_control(written: bytes) -> str:
    """The terminal's bytes as text, once checked: no payload's OSC 52 or OSC 0, no BEL but
    Textual's own, no C1 control (U+0080-U+009F, nor a byte that is no UTF-8)."""
    text = written.decode("utf-8", "surrogateescape")
    assert "\x1b]52;" not in text, "an OSC 52 clipboard write reached the terminal"
    assert "\x1b]0;" not in text, "an OSC 0 window title reached the terminal"
    bell = OWN_BEL.sub("", text).find("\x07")
    assert bell < 0, f"a BEL reached the terminal: {text[bell - 40:bell + 10]!r}"
    c1 = C1_OR_UNDECODABLE.search(text)
    assert c1 is None, f"a C1 control reached the terminal: {text[c1.start() - 40:c1.end() + 10]!r}"
    return text


def wait_written(file: Path, text: str) -> None:
    deadline = time.monotonic() + DEADLINE  # bounds a failure only
    while text.encode() not in file.read_bytes():
        assert time.monotonic() < deadline, f"{text!r} never reached {file}"
        time.sleep(0.05)


@pytest.fixture
def hostile_server() -> Iterator[str]:
    server = LoopbackServer(PoisonedSearch(create_app()))
    server.start()
    try:
        yield server.url
    finally:
        server.stop()


@needs_tmux
def test_a_hostile_number_file_name_and_paste_write_no_control_to_the_terminal(tmp_path: Path, hostile_server) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    make_pdf(docs / HOSTILE_NAME)
    home = tmp_path / "home"
    env = {
        **os.environ,
        "VAP_API_KEY": "sk_sandbox_agent",
        "VAP_BASE_URL": hostile_server,
        "XDG_CONFIG_HOME": str(home / "config"),
        "XDG_DATA_HOME": str(home / "data"),
        "HOME": str(home),
    }
    written = tmp_path / "terminal.bin"
    pane = Tmux(env, session="bytes")
    # The picker opens in the working folder: the hostile file is all it holds.
    pane.start([str(VAP)], cwd=docs,
               exported=("VAP_API_KEY", "VAP_BASE_URL", "XDG_CONFIG_HOME", "XDG_DATA_HOME", "HOME"))
    try:
        pane.tmux("pipe-pane", "-O", "-t", pane.session, f"cat >> {written}")
        pane.wait_for("Rent a number", "Numbers")
        pane.keys("n")
        pane.wait_for("Search the inventory")
        pane.keys("Enter")  # the focus starts in the search: Enter searches
        pane.wait_for("numbers found")
        pane.keys("Enter")  # the first result: the poisoned one
        pane.wait_for("Not picked. Number to rent")
        pane.keys("Down", "Enter")
        pane.wait_for("Picked +91")
        pane.keys("NPage")
        pane.wait_for("This account can rent numbers")
        pane.keys("NPage")
        pane.wait_for("The business renting the number")
        for value in ("Acme Telecom Pvt Ltd", "ops@acme.example", "12 MG Road"):
            pane.field(value)
        pane.keys("NPage")
        pane.wait_for("One file per document type")
        pane.keys("Tab")  # from the first document's first field to its file
        pane.keys("Tab")
        pane.wait_for_focus("Browse…", after=INPUT_RIGHT)  # the button, not the placeholder naming it
        pane.keys("Enter")
        pane.wait_for("Choose a document", f"📄 evil ␛]52;c;{FILE_CLIPBOARD}␇")
        pane.keys("Down", "Enter")  # both to the tree, in order: its only file, picked
        pane.wait_for(f"✔ evil ␛]52;c;{FILE_CLIPBOARD}␇ bell␇ csi\\x9b31m.pdf")

        # A paste into the path field (Shift+Tab moves the focus as it arrives), byte for byte.
        # It arrives whole, ESCs included (tui/whole_paste.py), and the field shows every control
        # character of it as a stand-in: none of it is read as keys.
        pane.keys("BTab")
        pasted = b"\x1b[200~" + PASTE.encode() + b"\x1b[201~"
        pane.tmux("send-keys", "-t", pane.session, "-H", *(f"{byte:02x}" for byte in pasted))
        shown = f"P\\x9bJ␇bell ␛]52;c;{PASTE_CLIPBOARD}␇␛]0;paste-title␇"
        pane.wait_for(shown)
        wait_written(written, "paste-title␇")  # tmux's copy has caught up with the screen
    finally:
        pane.kill()
    text = assert_no_hostile_control(written.read_bytes())
    # Each payload was drawn, as stand-ins: the checks above looked at text that held them.
    assert f"␛]52;c;{CLIPBOARD}␇" in text and f"␛]52;c;{FILE_CLIPBOARD}␇" in text
    assert f"␛]52;c;{PASTE_CLIPBOARD}␇" in text
