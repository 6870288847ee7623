"""`vap web` in a real browser: Debian's Chromium driven by Playwright (tests and bench share this).

The page draws the terminal on a canvas, so its text is not in the DOM. The test reads xterm.js's
own buffer instead: textual.js keeps its terminal object in a closure, so the copy served to the
test browser is changed by one statement that also hands that object to `window` (nothing in the
server changes). Requests to anything but the server are refused, and counted: the page must ask
for none, and a test must depend neither on the network nor on its speed.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent
CHROMIUM_NAMES = ("chromium", "chromium-browser", "google-chrome")
# The statement in textual.js that makes the terminal; the test build also stores it on window.
TERMINAL_MADE = "const t=new w(e,{ping:r});"
EXPOSE = TERMINAL_MADE + "window.__vapTerminal=t;"
SCREEN_JS = """() => {
  const t = window.__vapTerminal; if (!t) return "";
  const b = t.terminal.buffer.active, rows = [];
  for (let y = 0; y < t.terminal.rows; y++) { const l = b.getLine(y); rows.push(l ? l.translateToString(true) : ""); }
  return rows.join("\\n");
}"""


def chromium_path() -> str | None:
    for name in CHROMIUM_NAMES:
        found = shutil.which(name)
        if found:
            return found
    return None


def why_no_browser() -> str | None:
    """Why a browser test cannot run here, or None when it can."""
    try:
        import playwright.sync_api  # noqa: F401 - only whether it imports
    except ImportError:
        return "the playwright package is not installed (`make install` installs it)"
    if chromium_path() is None:
        return "no Chromium here (Debian: apt-get install chromium; .ci/run installs it)"
    return None


class WebServer:
    """`vap web …` in a process of its own, with the URL it printed."""

    def __init__(self, *args: str, env: dict[str, str] | None = None) -> None:
        self.started = time.perf_counter()
        self.proc = subprocess.Popen([str(BIN / "vap"), "web", "--port", "0", *args], cwd=ROOT,
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                     env={**os.environ, **(env or {})})
        assert self.proc.stdout is not None
        self.url = self.proc.stdout.readline().strip()  # the one URL, or "" when it failed
        if not self.url.startswith(("http://", "https://")):
            self.stop()
            raise RuntimeError(f"vap web did not start: {self.stderr_text()}")

    @property
    def origin(self) -> str:
        """http://HOST:PORT, the page's own origin: what a browser sends as Origin from it."""
        return "/".join(self.url.split("/")[:3])

    def ws_url(self, width: int = 80, height: int = 24) -> str:
        return self.url.replace("http://", "ws://") + f"ws?width={width}&height={height}"

    def stderr_text(self) -> str:
        assert self.proc.stderr is not None
        return self.proc.stderr.read() if self.proc.poll() is not None else ""

    def children(self) -> list[int]:
        """The processes `vap web` started (its consoles), read from /proc."""
        found = []
        for entry in Path("/proc").iterdir():
            if entry.name.isdigit():
                try:
                    stat = (entry / "stat").read_text()
                except OSError:
                    continue
                if int(stat.rsplit(")", 1)[1].split()[1]) == self.proc.pid:
                    found.append(int(entry.name))
        return found

    def stop(self) -> int:
        """Ctrl+C, as a person would; its exit status."""
        if self.proc.poll() is None:
            self.proc.send_signal(2)
            try:
                self.proc.wait(timeout=60)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        return self.proc.returncode


@contextmanager
def browser_page(width: int = 1280, height: int = 800) -> Iterator[Any]:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=chromium_path(), headless=True,
                                     args=["--no-sandbox", "--disable-dev-shm-usage"])
        try:
            page = browser.new_page(viewport={"width": width, "height": height})
            yield page
        finally:
            browser.close()


class Opened:
    """What the page did on its way: requests it made to other hosts (refused), and what the
    browser refused under the page's Content-Security-Policy."""

    def __init__(self) -> None:
        self.foreign: list[str] = []
        self.refused: list[str] = []


def open_console(page: Any, url: str) -> Opened:
    """Open the console's URL with the test build of textual.js and no requests leaving the machine."""
    origin = url.split("/", 3)[:3]
    server = "/".join(origin)
    opened = Opened()
    page.on("console", lambda message: opened.refused.append(message.text)
            if "Content Security Policy" in message.text else None)

    def route(request_route: Any) -> None:
        request = request_route.request
        if not request.url.startswith(server):
            opened.foreign.append(request.url)
            request_route.abort()
        elif request.url.endswith("/static/js/textual.js"):
            response = request_route.fetch()
            body = response.text()
            assert TERMINAL_MADE in body, "textual.js changed: update tests/browser.py"
            request_route.fulfill(response=response, body=body.replace(TERMINAL_MADE, EXPOSE, 1))
        else:
            request_route.continue_()

    page.route("**/*", route)
    page.goto(url)
    return opened


def screen_text(page: Any) -> str:
    return page.evaluate(SCREEN_JS)


def wait_for_text(page: Any, text: str, timeout: float = 90) -> str:
    """The screen once it shows ``text``; the deadline only bounds a failure."""
    deadline = time.monotonic() + timeout
    screen = ""
    while time.monotonic() < deadline:
        screen = screen_text(page)
        if text in screen:
            return screen
        page.wait_for_timeout(50)
    raise AssertionError(f"{text!r} never appeared; the screen was:\n{screen}")
