"""`vap --sandbox` as a person runs it: the real binary in tmux, keys in, screen out.

Skipped only when tmux is missing (CI installs it).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

pytestmark = [
    pytest.mark.e2e,
    pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed (CI installs it)"),
    pytest.mark.timeout(120),
]

VAP = Path(sys.executable).with_name("vap")


class Pane:
    def __init__(self, home: Path) -> None:
        self.socket = f"vap-tui-{uuid.uuid4().hex[:8]}"
        # No keyring may be touched: a backend that fails on use would show up as an error.
        self.env = {
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
            "HOME": str(home),
            "XDG_CONFIG_HOME": str(home / "config"),
            "XDG_DATA_HOME": str(home / "data"),
            "PYTHON_KEYRING_BACKEND": "keyring.backends.fail.Keyring",
            "TERM": "xterm-256color",
        }

    def tmux(self, *args: str, check: bool = True) -> str:
        return subprocess.run(["tmux", "-L", self.socket, *args], capture_output=True, text=True,
                              check=check, env=self.env, timeout=20).stdout

    def start(self) -> None:
        shell = f"env {' '.join(f'{k}={v}' for k, v in self.env.items())} {VAP} --sandbox; " \
                "echo VAP-EXITED $?; sleep 30"
        self.tmux("new-session", "-d", "-s", "tui", "-x", "120", "-y", "36", shell)

    def keys(self, *keys: str) -> None:
        for key in keys:
            self.tmux("send-keys", "-t", "tui", key)
            # tmux holds an Escape for its escape-time to tell it from Alt+key: let it go alone.
            time.sleep(0.6 if key == "Escape" else 0.1)

    def type(self, text: str) -> None:
        """The whole text at once, as fast as a paste."""
        self.tmux("send-keys", "-t", "tui", "-l", text)

    def screen(self) -> str:
        return self.tmux("capture-pane", "-p", "-t", "tui")

    def wait_for(self, *texts: str, timeout: float = 30) -> str:
        deadline = time.monotonic() + timeout
        screen = ""
        while time.monotonic() < deadline:
            screen = self.screen()
            if all(t in screen for t in texts):
                return screen
            assert "Traceback" not in screen, screen
            time.sleep(0.2)
        raise AssertionError(f"waited {timeout:g} s for {texts!r}; the screen shows:\n{screen}")


@pytest.fixture
def pane(tmp_path: Path) -> Iterator[Pane]:
    pane = Pane(tmp_path)
    pane.start()
    try:
        yield pane
    finally:
        pane.tmux("kill-server", check=False)


@pytest.mark.parametrize("quit_key", ["q", "C-c"])
def test_vap_sandbox_opens_on_numbers_switches_areas_and_quits_cleanly(pane: Pane, quit_key: str) -> None:
    pane.wait_for("Numbers", "profile sandbox", "online", "Chennai")
    pane.keys("2")
    pane.wait_for("Tools", "lookup_customer")
    # Typed in one burst: the keys after `n` land in the form that `n` opens.
    pane.type("nquick_tool")
    pane.wait_for("New tool", "quick_tool")
    pane.keys("Escape")
    pane.wait_for("Discard the new tool?")
    pane.keys("y", "3")
    pane.wait_for("Variables", "agent_name")
    pane.type("/customer")
    pane.wait_for("variables match “customer”")
    pane.keys("Escape", "?")
    pane.wait_for("Keys · Variables", "list.refresh")
    pane.keys("Escape", quit_key)
    screen = pane.wait_for("VAP-EXITED")
    assert "VAP-EXITED 0" in screen
    assert "Traceback" not in screen and "Error" not in screen
