"""The real `vap` binary in tmux, as a person runs it: keys go in with send-keys, the screen comes
back with capture-pane.

Each ``Tmux`` is a private tmux server (its own socket) with one 120×36 window; the command's exit
code shows in the window as ``VAP-EXITED <code>``. Tests that use it are marked ``needs_tmux``.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import time
import uuid
from collections.abc import Iterable, Sequence
from pathlib import Path

import pytest

VAP = Path(sys.executable).with_name("vap")

needs_tmux = pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed (CI installs it)")


class Tmux:
    """One private tmux server with one window; ``env`` is the environment tmux itself runs in."""

    def __init__(self, env: dict[str, str], *, session: str = "vap") -> None:
        self.socket = f"vap-{session}-{uuid.uuid4().hex[:8]}"
        self.session = session
        self.env = env

    def tmux(self, *args: str, check: bool = True) -> str:
        done = subprocess.run(["tmux", "-L", self.socket, *args], capture_output=True, text=True,
                              check=check, env=self.env, timeout=20)
        return done.stdout

    def start(self, command: Sequence[str], *, exported: Iterable[str] | None = None,
              cwd: Path | None = None) -> None:
        """Run ``command`` in the window with the variables named in ``exported`` (all of ``env``
        when None) set on its command line, in ``cwd`` when given."""
        names = self.env if exported is None else exported
        variables = {name: self.env[name] for name in names} | {"TERM": "xterm-256color"}
        assignments = " ".join(f"{name}={value}" for name, value in variables.items())
        shell = f"env {assignments} {' '.join(command)}; echo VAP-EXITED $?; sleep 30"
        if cwd is not None:
            shell = f"cd {cwd} && {shell}"
        self.tmux("new-session", "-d", "-s", self.session, "-x", "120", "-y", "36", shell)

    def keys(self, *keys: str) -> None:
        for key in keys:
            self.tmux("send-keys", "-t", self.session, key)
            # tmux holds an Escape for its escape-time to tell it from Alt+key: let it go alone.
            time.sleep(0.6 if key == "Escape" else 0.1)

    def type(self, text: str) -> None:
        """The whole text at once, as fast as a paste."""
        self.tmux("send-keys", "-t", self.session, "-l", text)
        time.sleep(0.1)

    def field(self, text: str) -> None:
        """Type into the focused field, then Enter to the next one.

        Enter moves the focus through a message, so keys sent right behind it could still reach
        the old field: wait until the value shows, and give the focus time to move.
        """
        if text:
            self.type(text)
            self.wait_for(text)
        self.keys("Enter")
        time.sleep(0.4)

    def screen(self) -> str:
        return self.tmux("capture-pane", "-p", "-t", self.session)

    def wait_for(self, *texts: str, timeout: float = 30) -> str:
        """The screen once it shows every one of ``texts``; fails at once on a traceback."""
        deadline = time.monotonic() + timeout
        screen = ""
        while time.monotonic() < deadline:
            screen = self.screen()
            if all(text in screen for text in texts):
                return screen
            assert "Traceback" not in screen, screen
            time.sleep(0.2)
        raise AssertionError(f"waited {timeout:g} s for {texts!r}; the screen shows:\n{screen}")

    def kill(self) -> None:
        self.tmux("kill-server", check=False)
