"""The real `vap` binary in tmux, as a person runs it: keys go in with send-keys, the screen comes
back with capture-pane.

Each ``Tmux`` is a private tmux server (its own socket) with one 120×36 window; the command's exit
code shows in the window as ``VAP-EXITED <code>``. Tests that use it are marked ``needs_tmux``.

Nothing here waits a fixed time. A key that changes what has the focus or what is on screen is
followed by waiting for that change (``wait_for``, ``wait_for_focus``, ``field``), the way a person
looks before pressing the next key; deadlines only bound a failure, they never pace a success.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
import time
import uuid
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import NamedTuple, TypeVar

import pytest

VAP = Path(sys.executable).with_name("vap")

needs_tmux = pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed (CI installs it)")

# How long a state may take to show before the test fails. Generous: it bounds a failure and never
# paces a success, so a loaded machine makes a test slower, not red.
DEADLINE = 60.0
POLL = 0.05  # how often the screen is looked at while waiting

T = TypeVar("T")

# The edges Textual draws on each line of an input (border "tall").
INPUT_LEFT, INPUT_RIGHT = "▊", "▎"
SGR = re.compile(r"\x1b\[([0-9;]*)m")


class Cell(NamedTuple):
    char: str
    bg: tuple[int, ...] | None  # an extended colour's numbers (5, N or 2, R, G, B); None: default
    reverse: bool


def styled_row(line: str) -> list[Cell]:
    """A line captured with ``capture-pane -e``, as cells with their background and reverse video."""
    cells: list[Cell] = []
    bg: tuple[int, ...] | None = None
    reverse = False
    at = 0
    for match in SGR.finditer(line + "\x1b[m"):
        cells += [Cell(char, bg, reverse) for char in line[at:match.start()]]
        at = match.end()
        params = [int(p) if p else 0 for p in match.group(1).split(";")]
        i = 0
        while i < len(params):
            code = params[i]
            if code == 0:
                bg, reverse = None, False
            elif code == 49:
                bg = None
            elif code in (7, 27):
                reverse = code == 7
            elif code in (38, 48):  # an extended colour: 5;N or 2;R;G;B
                size = 2 if params[i + 1:i + 2] == [5] else 4
                if code == 48:
                    bg = tuple(params[i + 1:i + 1 + size])
                i += size
            i += 1
    return cells


def plain(row: list[Cell]) -> str:
    return "".join(cell.char for cell in row)


class Tmux:
    """One private tmux server with one window; ``env`` is the environment tmux itself runs in."""

    def __init__(self, env: dict[str, str], *, session: str = "vap") -> None:
        self.socket = f"vap-{session}-{uuid.uuid4().hex[:8]}"
        self.session = session
        self.env = env
        # The background of the focused input: learnt from the first input typed into (field()).
        self._focused_background: tuple[int, ...] | None = None

    def tmux(self, *args: str, check: bool = True) -> str:
        done = subprocess.run(["tmux", "-L", self.socket, *args], capture_output=True, text=True,
                              check=check, env=self.env, timeout=DEADLINE)
        return done.stdout

    def start(self, command: Sequence[str], *, exported: Iterable[str] | None = None,
              cwd: Path | None = None) -> None:
        """Run ``command`` in the window with the variables named in ``exported`` (all of ``env``
        when None) set on its command line, in ``cwd`` when given."""
        names = self.env if exported is None else exported
        # Full colour: the focused input's background differs from the others' by a 5 % tint,
        # which 256 colours can round away (see field()).
        variables = {name: self.env[name] for name in names} | {"TERM": "xterm-256color",
                                                                 "COLORTERM": "truecolor"}
        assignments = " ".join(f"{name}={value}" for name, value in variables.items())
        # The window outlives the command so its last screen (and exit code) can be read; kill()
        # ends it.
        shell = f"env {assignments} {' '.join(command)}; echo VAP-EXITED $?; sleep 600"
        if cwd is not None:
            shell = f"cd {cwd} && {shell}"
        self.tmux("new-session", "-d", "-s", self.session, "-x", "120", "-y", "36", shell)

    def keys(self, *keys: str) -> None:
        """Send ``keys`` (tmux key names) in one burst, as fast typing would.

        The app takes each key with whatever has the focus when the key arrives, and a key bound
        with priority (PgDn in the wizard) overtakes keys still queued for the focused input. So a
        key that moves the focus or changes the screen is followed by waiting for that (wait_for,
        wait_for_focus, field) before the next one is sent. An Escape can only come last: the
        terminal parser reads an ESC followed closely by another byte as Alt+key.
        """
        if "Escape" in keys[:-1]:
            raise ValueError("send Escape last and wait for its effect before the next key")
        for key in keys:
            self.tmux("send-keys", "-t", self.session, key)

    def type(self, text: str) -> None:
        """The whole text at once, as fast as a paste."""
        self.tmux("send-keys", "-t", self.session, "-l", text)

    def screen(self) -> str:
        return self.tmux("capture-pane", "-p", "-t", self.session)

    def styled(self) -> list[list[Cell]]:
        """The screen as rows of cells: character, background, reverse video."""
        return [styled_row(line) for line in
                self.tmux("capture-pane", "-e", "-p", "-t", self.session).split("\n")]

    def focused(self, label: str, *, after: str = "") -> bool:
        """Whether the button labelled ``label`` is drawn focused (Textual draws it reversed); with
        ``after``, the first such label to the right of ``after`` on its line (a placeholder may
        name the button too)."""
        for row in self.styled():
            line = plain(row)
            start = line.find(after)
            at = line.find(label, start) if start >= 0 else -1
            if at >= 0:
                return row[at].reverse
        return False

    def wait_for_focus(self, label: str, *, after: str = "") -> None:
        """Wait until the button labelled ``label`` (right of ``after``) has the focus."""
        self._until(lambda: self.focused(label, after=after) or None, f"the focus on {label!r}")

    def focused_input(self) -> tuple[str, ...] | None:
        """The focused input as the screen shows it, its label and its lines (its own columns only:
        a scroll bar beside it moves as the step scrolls); None when no input shows the focus.

        Textual tints the focused input's background; the terminal cursor is no guide, it stays
        where the input was when it took the focus, even after the step scrolls.
        """
        assert self._focused_background is not None, "learnt when field() first types"
        rows = self.styled()
        lines: list[int] = []
        span = slice(0)
        for y, row in enumerate(rows):
            for x, cell in enumerate(row[:-1]):
                if cell.char == INPUT_LEFT and row[x + 1].bg == self._focused_background:
                    if not lines:
                        end = plain(row).find(INPUT_RIGHT, x)
                        span = slice(x, end + 1 if end >= 0 else None)
                    lines.append(y)
                    break
        if not lines:
            return None
        label = plain(rows[lines[0] - 1][span]) if lines[0] else ""
        return (label, *(plain(rows[y][span]) for y in lines))

    def field(self, text: str) -> None:
        """Type into the focused input, then Enter to the next one (or to a button).

        Enter moves the focus through a message, so keys sent right behind it could still reach
        the old input: wait until the focused input shows the value (scrolled into view), then
        until the focus has left it.
        """
        if text:
            self.type(text)
            if self._focused_background is None:
                self.wait_for(text)
                self._focused_background = self._until(lambda: self._background_of(text),
                                                        f"the input showing {text!r}")

        def showing() -> tuple[str, ...] | None:
            shown = self.focused_input()
            return shown if shown is not None and text in "".join(shown[1:]) else None

        before = self._until(showing, f"the focused input to show {text!r}")
        self.keys("Enter")
        self._until(lambda: self.focused_input() != before or None,
                    f"the focus to leave the input after {text!r}")

    def _background_of(self, text: str) -> tuple[int, ...] | None:
        """The background inside the input that shows ``text`` (the one typed into: focused)."""
        for row in self.styled():
            at = plain(row).find(text)
            edges = [x for x, cell in enumerate(row[:max(at, 0)]) if cell.char == INPUT_LEFT]
            if at >= 0 and edges:
                return row[edges[-1] + 1].bg
        return None

    def wait_for(self, *texts: str, gone: Iterable[str] = (), timeout: float = DEADLINE) -> str:
        """The screen once it shows every one of ``texts`` and none of ``gone``; fails at once on a
        traceback."""
        absent = tuple(gone)
        last = ""

        def shown() -> str | None:
            nonlocal last
            last = self.screen()
            assert "Traceback" not in last, last
            if all(text in last for text in texts) and not any(text in last for text in absent):
                return last
            return None

        return self._until(shown, f"{texts!r}" + (f" and no {absent!r}" if absent else ""),
                           timeout=timeout, screen=lambda: last)

    def _until(self, probe: Callable[[], T | None], what: str, *, timeout: float = DEADLINE,
               screen: Callable[[], str] | None = None) -> T:
        """The first thing ``probe`` returns that is not None, looking every POLL seconds."""
        deadline = time.monotonic() + timeout
        while True:
            found = probe()
            if found is not None:
                return found
            if time.monotonic() > deadline:
                shown = screen() if screen is not None else self.screen()
                raise AssertionError(f"waited {timeout:g} s for {what}; the screen shows:\n{shown}")
            time.sleep(POLL)

    def kill(self) -> None:
        self.tmux("kill-server", check=False)
