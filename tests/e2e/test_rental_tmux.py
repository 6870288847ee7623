"""End to end: the real `vap` binary in tmux rents a number on `vap sandbox serve`.

Keys go in with tmux send-keys and the screen comes back with capture-pane, as a person would
see it. The documents are real PDF and PNG files the test writes. Skipped only when tmux is
missing (CI installs it).
"""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Iterator

import pytest

from tests.e2e.documents import make_kyc_set
from tests.net import free_port, wait_for_port
from tests.tmux import VAP, Tmux, needs_tmux

pytestmark = [pytest.mark.e2e, needs_tmux, pytest.mark.timeout(180)]


@pytest.fixture
def sandbox_server(tmp_path) -> Iterator[str]:
    port = free_port()
    log = (tmp_path / "sandbox.log").open("w")
    server = subprocess.Popen([str(VAP), "sandbox", "serve", "--port", str(port), "--speed", "10"],
                              stdout=log, stderr=subprocess.STDOUT)
    try:
        wait_for_port(port)
        yield f"http://127.0.0.1:{port}"
    finally:
        server.terminate()
        server.wait(10)
        log.close()


@pytest.fixture
def tmux(tmp_path, sandbox_server) -> Iterator[Tmux]:
    make_kyc_set(tmp_path / "kyc")
    env = {
        **os.environ,
        "VAP_API_KEY": "sk_sandbox_agent",
        "VAP_BASE_URL": sandbox_server,
        "XDG_CONFIG_HOME": str(tmp_path / "config"),
        "XDG_DATA_HOME": str(tmp_path / "data"),
        "HOME": str(tmp_path),
    }
    session = Tmux(env, session="e2e")
    session.start([str(VAP)], cwd=tmp_path,
                  exported=("VAP_API_KEY", "VAP_BASE_URL", "XDG_CONFIG_HOME", "XDG_DATA_HOME", "HOME"))
    try:
        yield session
    finally:
        session.kill()


def test_full_rental_in_the_real_console(tmux, tmp_path):
    tmux.wait_for("Rent a number", "Numbers")
    tmux.keys("n")
    tmux.wait_for("Search the inventory")
    # Focus starts in the search pattern: Enter searches, Enter on a result picks it.
    tmux.type("1010")
    tmux.keys("Enter")
    tmux.wait_for("numbers found")
    tmux.keys("Enter")
    tmux.wait_for("Picked +912272401010")
    tmux.keys("NPage")
    tmux.wait_for("This account can rent numbers", "Documents the carrier needs")
    tmux.keys("NPage")
    tmux.wait_for("The business renting the number")
    # Enter moves to the next field.
    for value in ("Acme Telecom Pvt Ltd", "ops@acme.example", "12 MG Road"):
        tmux.field(value)
    tmux.keys("NPage")
    tmux.wait_for("One file per document type")
    # The last Enter takes the focus to the Next button; field() waits for that, so no Enter is
    # left queued behind the PgDn (a priority key, taken first: the Enter would then press Next).
    for value in ("29ABCDE1234F1ZW", "kyc/incorporation.pdf", "kyc/electricity-bill.pdf",
                  "ABCDE1234F", "", "kyc/pan-card.png"):
        tmux.field(value)
    tmux.keys("NPage")
    screen = tmux.wait_for("Charged to the wallet up front")
    assert "file pan-card.png" in screen and "· png" in screen
    for line in ("Legal name            Acme Telecom Pvt Ltd", "Email                 ops@acme.example",
                 "gstin: 29ABCDE1234F1ZW", "pan: ABCDE1234F"):
        assert line in screen, screen
    tmux.keys("NPage")
    tmux.wait_for("This charges ₹", "Charge the wallet and rent")
    # The safe answer has the focus; Tab reaches the charge button.
    assert not tmux.focused("Charge the wallet and rent")
    tmux.keys("Tab")
    tmux.wait_for_focus("Charge the wallet and rent")
    tmux.keys("Enter")
    tmux.wait_for("kyc_submitted", "Rental ")
    tmux.wait_for("the number is live", timeout=60)
    screen = tmux.screen()
    assert "+912272401010" in screen and screen.count("✔") >= 5
    tmux.keys("Escape")
    tmux.wait_for("Rent a number", "912272401010")
    tmux.keys("q")
    tmux.wait_for("VAP-EXITED 0")
    # Remembered for this key's session (a VAP_API_KEY session keeps one index per server):
    # the rental's id, and nothing personal.
    (index_file,) = (tmp_path / "data" / "vap-console" / "index").glob("*.json")
    index = json.loads(index_file.read_text())
    assert len(index["rentals"]) == 1
    stored = json.dumps(index)
    assert "Acme" not in stored and "912272401010" not in stored and "sk_sandbox" not in stored
