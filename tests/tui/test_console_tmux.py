"""`vap --sandbox` as a person runs it: the real binary in tmux, keys in, screen out.

Skipped only when tmux is missing (CI installs it).
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.tmux import VAP, Tmux, needs_tmux

pytestmark = [pytest.mark.e2e, needs_tmux, pytest.mark.timeout(120)]


@pytest.fixture
def pane(tmp_path: Path) -> Iterator[Tmux]:
    # No keyring may be touched: a backend that fails on use would show up as an error.
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(tmp_path),
        "XDG_CONFIG_HOME": str(tmp_path / "config"),
        "XDG_DATA_HOME": str(tmp_path / "data"),
        "PYTHON_KEYRING_BACKEND": "keyring.backends.fail.Keyring",
        "TERM": "xterm-256color",
    }
    pane = Tmux(env, session="tui")
    pane.start([str(VAP), "--sandbox"])
    try:
        yield pane
    finally:
        pane.kill()


@pytest.mark.parametrize("quit_key", ["q", "C-c"])
def test_vap_sandbox_opens_on_numbers_switches_areas_and_quits_cleanly(pane: Tmux, quit_key: str) -> None:
    pane.wait_for("Numbers", "profile sandbox", "online", "Chennai")
    pane.keys("2")
    pane.wait_for("Tools", "lookup_customer")
    # Typed in one burst: the keys after `n` land in the form that `n` opens.
    pane.type("nquick_tool")
    pane.wait_for("New tool", "quick_tool")
    pane.keys("Escape")
    pane.wait_for("Discard the new tool?")
    pane.keys("y")
    pane.wait_for("Tools", "lookup_customer", gone=("Discard the new tool?", "quick_tool"))
    pane.keys("3")
    pane.wait_for("Variables", "agent_name")
    pane.type("/customer")
    pane.wait_for("variables match “customer”")
    pane.keys("Escape")  # clears the filter and goes back to the rows
    pane.wait_for("Variables", "agent_name", gone=("variables match “customer”",))
    pane.keys("?")
    pane.wait_for("Keys · Variables", "list.refresh")
    pane.keys("Escape")
    pane.wait_for("Variables", "agent_name", gone=("Keys · Variables",))
    pane.keys(quit_key)
    screen = pane.wait_for("VAP-EXITED")
    assert "VAP-EXITED 0" in screen
    assert "Traceback" not in screen and "Error" not in screen
