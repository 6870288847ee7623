"""`vap web --sandbox` in headless Chromium: the console works in a real browser, and nothing but
the URL with the secret starts a console."""

from __future__ import annotations

import os
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from tests.browser import WebServer, browser_page, open_console, screen_text, wait_for_text, why_no_browser
from vap_console.sandbox.keys import DEFAULT_KEY

ROOT = Path(__file__).resolve().parents[2]
NO_BROWSER = why_no_browser()
pytestmark = pytest.mark.browser


def wait_until(predicate, timeout: float = 60) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.05)
    return predicate()


@pytest.mark.skipif(NO_BROWSER is not None, reason=str(NO_BROWSER))
def test_the_console_in_a_browser_shows_numbers_then_tools(tmp_path: Path) -> None:
    server = WebServer("--sandbox")
    try:
        with browser_page() as page:
            opened = open_console(page, server.url)
            wait_for_text(page, "+912285502345")  # a seeded rental's row
            screen = wait_for_text(page, "Chennai")  # the last row: all of them are drawn
            # Everything came from the server (no font service), and the page's policy refused
            # nothing it needs: its scripts, styles and the websocket ('self').
            assert opened.foreign == [] and opened.refused == []
            assert "Numbers" in screen
            assert len(server.children()) == 1  # this tab's console
            # The README's picture is written by `make screenshots`; a plain test run leaves the
            # tree as it found it (the picture differs in every run: port, times).
            shot = ROOT / "screenshots" / "web.png" if os.environ.get("VAP_SCREENSHOTS") else tmp_path / "web.png"
            page.screenshot(path=str(shot))
            page.locator(".xterm-helper-textarea").focus()
            page.keyboard.press("2")
            wait_for_text(page, " vap Tools ")  # the header names the area
            wait_for_text(page, "default-")  # and the seeded built-in tools are listed
            # The key never reaches the page: not in its HTML, not on its screen.
            for key in (DEFAULT_KEY, DEFAULT_KEY[-12:], "sk_sandbox"):
                assert key not in page.content() and key not in screen_text(page)
            page.close()
            # Closing the tab ends its console.
            assert wait_until(lambda: server.children() == [])
    finally:
        assert server.stop() == 0


@pytest.mark.skipif(NO_BROWSER is not None, reason=str(NO_BROWSER))
def test_without_the_secret_the_browser_gets_403_and_no_console_starts() -> None:
    server = WebServer("--sandbox")
    try:
        base = server.url.rsplit("/", 2)[0]
        with browser_page() as page:
            for wrong in (base + "/", base + "/ws", base + "/static/js/textual.js",
                          base + "/" + "x" * 32 + "/"):
                response = page.goto(wrong)
                assert response is not None and response.status == 403, wrong
        with pytest.raises(urllib.error.HTTPError) as caught:
            urllib.request.urlopen(base + "/ws", timeout=30)
        assert caught.value.code == 403
        assert server.children() == []
    finally:
        assert server.stop() == 0
