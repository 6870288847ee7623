"""The console in a browser (issue 14, point 6).

Wall time from starting `vap web --sandbox` to the Numbers rows visible in headless Chromium,
against `vap --sandbox` from start to the same rows in a 120×36 pseudo-terminal (bench/tui.py's
measure), interleaved in one run. The browser is launched before the clock starts (a person's
browser is already open); the clock covers the server starting, its URL printed, the page and
textual.js loading, the console process starting for the tab, and its first rows drawn.
No goal is set: the figure shows what the browser costs on top of the terminal.
"""

from __future__ import annotations

import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
RUNS = 5
MARKER = "Chennai"  # bench/tui.py's marker: the last seeded rental's city, in its row


def _browser_run(page) -> float:
    from tests.browser import WebServer, open_console, wait_for_text

    server = WebServer("--sandbox")
    try:
        open_console(page, server.url)
        wait_for_text(page, MARKER, timeout=60)
        elapsed = time.perf_counter() - server.started
        page.goto("about:blank")  # closes the tab's websocket, so its console ends
        return elapsed
    finally:
        server.stop()


def main() -> int:
    sys.path.insert(0, str(ROOT))
    from bench._table import print_table
    from bench.tui import _time_until_marker
    from tests.browser import browser_page, why_no_browser

    reason = why_no_browser()
    if reason:
        print(f"skipped: {reason}")
        return 0
    home = tempfile.mkdtemp(prefix="vap-bench-web-")
    env = {**os.environ, "TERM": "xterm-256color", "COLUMNS": "120", "LINES": "36",
           "XDG_CONFIG_HOME": f"{home}/config", "XDG_DATA_HOME": f"{home}/data"}
    env.pop("VAP_API_KEY", None)
    vap = [str(Path(sys.executable).with_name("vap")), "--sandbox"]
    browser, terminal = [], []
    with browser_page() as page:
        for _ in range(RUNS):  # interleaved, so drift in the machine's load hits both alike
            browser.append(_browser_run(page))
            terminal.append(_time_until_marker(vap, env))
    ratio = statistics.median(b / t for b, t in zip(browser, terminal))
    print_table(
        f"The console in a browser (medians over {RUNS} interleaved runs)",
        [
            ("vap web --sandbox: start → Numbers rows in Chromium", f"{statistics.median(browser) * 1000:.0f} ms", "", None),
            ("vap --sandbox: start → Numbers rows in a 120×36 pty", f"{statistics.median(terminal) * 1000:.0f} ms", "", None),
            ("ratio browser / terminal (median of pairs)", f"{ratio:.2f}×", "", None),
        ],
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
