"""The console's speed (issue 5, point 6).

(a) Wall time from process start to the Numbers screen showing its rows, `vap --sandbox`, against
    a bare Textual app showing a DataTable of the same rows; both run in a pseudo-terminal of
    120×36 and are timed until a row's text reaches the terminal. Goal: ratio ≤ 1.5.
(b) The Variables screen with 10,000 variables on the sandbox: time to show them, and the
    median latency of one filter keystroke (key press to the screen settled). Goal ≤ 50 ms.
    For scale, the same filtering done by re-filling a Textual DataTable is measured too.

The floor lines of (a) time the imports alone. The console cannot show a row before Textual,
httpx and pydantic are imported (the stack the project prescribes), and those imports alone take
longer than the bare app's imports by about the ratio printed: no console on this stack can start
below that ratio, whatever it does after importing.
"""

from __future__ import annotations

import asyncio
import compileall
import fcntl
import json
import os
import pty
import select
import signal
import statistics
import struct
import subprocess
import sys
import tempfile
import termios
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
RUNS = 9
# The city of the last seeded rental: it appears in a row (short enough never to be cut at 120
# columns), not in the detail pane, which shows the first row.
MARKER = b"Chennai"
START_TIMEOUT = 60.0


def _time_until_marker(argv: list[str], env: dict[str, str]) -> float:
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 36, 120, 0, 0))
    started = time.perf_counter()
    proc = subprocess.Popen(argv, stdin=slave, stdout=slave, stderr=slave, env=env, cwd=ROOT,
                            start_new_session=True)
    os.close(slave)
    seen = b""
    try:
        while True:
            if time.perf_counter() - started > START_TIMEOUT:
                raise RuntimeError(f"{argv[-1]}: no rows after {START_TIMEOUT:.0f} s")
            ready, _, _ = select.select([master], [], [], 0.5)
            if not ready:
                continue
            try:
                chunk = os.read(master, 65536)
            except OSError:
                raise RuntimeError(f"{' '.join(argv)} exited before showing rows") from None
            seen = seen[-64:] + chunk
            if MARKER in seen:
                return time.perf_counter() - started
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
        os.close(master)


def _numbers_rows() -> list[list[str]]:
    """The Numbers screen's rows, as the console formats them, from a fresh sandbox."""
    import httpx

    from vap_console.api import VapClient
    from vap_console.sandbox.app import create_app
    from vap_console.sandbox.clock import SystemClock
    from vap_console.sandbox.keys import DEFAULT_KEY
    from vap_console.tui.screens.numbers import NumbersScreen

    async def fetch() -> list[list[str]]:
        transport = httpx.ASGITransport(app=create_app(clock=SystemClock()))
        async with VapClient("http://sandbox.bench", DEFAULT_KEY, transport=transport) as client:
            page = await client.list_rentals()
        screen = NumbersScreen.__new__(NumbersScreen)
        rows = [[c.label for c in NumbersScreen.COLUMNS]]
        for rental in page.items:
            cells = NumbersScreen.row_of(screen, rental).cells
            rows.append([c if isinstance(c, str) else c.plain for c in cells])
        return rows

    return asyncio.run(fetch())


def start_to_rows() -> tuple[float, float, float]:
    """Medians of each, and the median of the paired runs' ratios (which drift in load moves least)."""
    home = tempfile.mkdtemp(prefix="vap-bench-")
    env = {**os.environ, "TERM": "xterm-256color", "COLUMNS": "120", "LINES": "36",
           "XDG_CONFIG_HOME": f"{home}/config", "XDG_DATA_HOME": f"{home}/data"}
    env.pop("VAP_API_KEY", None)
    rows_file = Path(home) / "rows.json"
    rows_file.write_text(json.dumps(_numbers_rows()), encoding="utf-8")
    vap = [str(Path(sys.executable).with_name("vap")), "--sandbox"]
    bare = [sys.executable, "-m", "bench._bare_table", str(rows_file)]
    console, baseline = [], []
    for _ in range(RUNS):  # interleaved, so drift in the machine's load hits both alike
        console.append(_time_until_marker(vap, env))
        baseline.append(_time_until_marker(bare, env))
    ratio = statistics.median(c / b for c, b in zip(console, baseline))
    return statistics.median(console), statistics.median(baseline), ratio


async def _until(condition, what: str, timeout: float = 30.0) -> None:
    started = time.perf_counter()
    while not condition():
        if time.perf_counter() - started > timeout:
            raise RuntimeError(f"waited {timeout:.0f} s for {what}")
        await asyncio.sleep(0.001)


async def _keystroke(app, key: str, char: str | None, applied: list[float], frames: list[float]) -> float:
    """Key sent as the terminal driver sends it → the first frame drawn after the filter ran."""
    from textual import events

    started = time.perf_counter()
    applied.clear()
    event = events.Key(key, char)
    event.set_sender(app)
    app._driver.send_message(event)
    while not (applied and frames and frames[-1] >= applied[-1]):
        if time.perf_counter() - started > 10:
            raise RuntimeError(f"key {key!r}: no frame after the filter within 10 s")
        await asyncio.sleep(0)
    return frames[-1] - started


async def _variables(count: int) -> tuple[float, float, float]:
    from textual.widgets import DataTable

    from tests.tui.console_scenes import build_console, settle
    from vap_console.sandbox.state import VariableRecord
    from vap_console.tui.screens.variables import VariablesScreen
    from vap_console.tui.widgets.rows import RowTable

    console = build_console(start_screen="numbers")
    at = console.clock.now()
    for i in range(count):
        name = f"bulk_{i:05d}"
        console.account.variables[name] = VariableRecord(f"id-{i}", name, f"value {i}", None, None, at, at)
    app = console.app
    frames: list[float] = []
    display = app._display

    def timed_display(screen, renderable) -> None:
        display(screen, renderable)
        if renderable is not None:
            frames.append(time.perf_counter())

    app._display = timed_display  # type: ignore[method-assign]  # frames timed where Textual draws them
    rows_set: list[float] = []
    set_rows = RowTable.set_rows

    def timed_set_rows(self, rows, keep_key=None) -> list[object]:
        replaced = set_rows(self, rows, keep_key)
        if len(rows) >= count:
            rows_set.append(time.perf_counter())
        return replaced

    RowTable.set_rows = timed_set_rows  # type: ignore[method-assign]
    try:
        async with app.run_test(size=(120, 36)) as pilot:
            await settle(pilot)
            started = time.perf_counter()
            await pilot.press("3")
            await _until(lambda: isinstance(app.screen, VariablesScreen)
                         and app.screen.query_one(RowTable).total_count >= count, "10,000 rows")
            table = app.screen.query_one(RowTable)
            await _until(lambda: bool(rows_set) and bool(frames) and frames[-1] >= rows_set[-1], "a frame with the rows")
            shown = frames[-1] - started
            await pilot.press("slash")
            await settle(pilot)

            applied: list[float] = []
            filter_rows = table.filter

            def timed_filter(query: str) -> None:
                filter_rows(query)
                applied.append(time.perf_counter())

            table.filter = timed_filter  # type: ignore[method-assign]
            latencies = []
            for char in "bulk_0999" + "\b" * 9 + "value 12":
                key = {"\b": "backspace", " ": "space", "_": "underscore"}.get(char, char)
                latencies.append(await _keystroke(app, key, None if char == "\b" else char, applied, frames))
                await settle(pilot)
            # Words match anywhere in the row: "value" everywhere, "12" in the name or the value.
            expected = sum(1 for i in range(count) if "12" in f"bulk_{i:05d} value {i}")
            if table.filter_text != "value 12" or table.row_count != expected:
                raise RuntimeError(f"the filter shows {table.row_count} rows for {table.filter_text!r}, not {expected}")

            # For scale: the same narrowing done by re-filling a DataTable.
            rows = [(f"bulk_{i:05d}", f"value {i}", "") for i in range(count)]
            dt: DataTable[str] = DataTable()
            await app.screen.mount(dt)
            dt.add_columns("Name", "Default value", "Fed by")
            dt_latencies = []
            for query in ("b", "bu", "bul", "bulk"):
                started = time.perf_counter()
                dt.clear()
                dt.add_rows([r for r in rows if query in r[0]])
                drawn = len(frames)
                await _until(lambda: len(frames) > drawn, "a DataTable frame")
                dt_latencies.append(frames[-1] - started)
    finally:
        RowTable.set_rows = set_rows  # type: ignore[method-assign]
    return shown, statistics.median(latencies), statistics.median(dt_latencies)


async def _bare_input_keystroke() -> float:
    """The framework's floor: one keystroke into a bare Textual Input, timed the same way."""
    from textual.app import App, ComposeResult
    from textual.widgets import Input

    applied: list[float] = []
    frames: list[float] = []

    class Bare(App[None]):
        def compose(self) -> ComposeResult:
            yield Input()

        def on_input_changed(self) -> None:
            applied.append(time.perf_counter())

    app = Bare()
    display = app._display

    def timed_display(screen, renderable) -> None:
        display(screen, renderable)
        if renderable is not None:
            frames.append(time.perf_counter())

    app._display = timed_display  # type: ignore[method-assign]  # frames timed where Textual draws them
    latencies = []
    async with app.run_test(size=(120, 36)) as pilot:
        await pilot.pause()
        for char in "bulk_0999value":
            latencies.append(await _keystroke(app, "underscore" if char == "_" else char, char, applied, frames))
            await pilot.pause()
    return statistics.median(latencies)


# What each program imports before it draws anything: `vap --sandbox` (its CLI, the client, the UI,
# the sandbox's launcher) and the bare app (Textual and its DataTable).
CONSOLE_IMPORTS = ("import vap_console.cli, vap_console.launch, vap_console.sandbox.process, vap_console.api, "
                   "httpx, vap_console.credentials, vap_console.sandbox.keys, vap_console.tui.app, "
                   "vap_console.tui.settings")
BARE_IMPORTS = "import textual.app, textual.widgets._data_table"
# The libraries alone: Textual, an async httpx request's stack (httpx loads httpcore and anyio on
# first use) and a pydantic model — what any console built on the prescribed stack imports.
LIBRARY_IMPORTS = ("import sys; sys.modules['httpx._main'] = None\n"
                   "import textual.app, textual.widgets._data_table, httpx, httpcore, anyio._backends._asyncio\n"
                   "from pydantic import BaseModel, ConfigDict, Field, SecretStr")


def _until_imported(code: str) -> float:
    """Process start → the code's imports done (not the interpreter's exit, which is slow too)."""
    started = time.perf_counter()
    proc = subprocess.Popen([sys.executable, "-c", f"{code}\nprint(flush=True)"],
                            stdout=subprocess.PIPE, cwd=ROOT)
    assert proc.stdout is not None
    proc.stdout.readline()
    elapsed = time.perf_counter() - started
    proc.wait()
    return elapsed


def import_floor() -> tuple[float, float, float, float]:
    """Interleaved: the medians of the console's imports and the bare app's, and the medians of the
    paired ratios console / bare and (Textual + httpx + pydantic) / bare."""
    console, bare, libraries = [], [], []
    for _ in range(2 * RUNS):
        console.append(_until_imported(CONSOLE_IMPORTS))
        bare.append(_until_imported(BARE_IMPORTS))
        libraries.append(_until_imported(LIBRARY_IMPORTS))
    return (
        statistics.median(console),
        statistics.median(bare),
        statistics.median(c / b for c, b in zip(console, bare)),
        statistics.median(lib / b for lib, b in zip(libraries, bare)),
    )


def main() -> int:
    from bench._table import print_table

    sys.path.insert(0, str(ROOT))
    # As an installed package is: compiled once, so no run pays for compiling the console's source.
    compileall.compile_dir(ROOT / "src", quiet=1)
    console, baseline, ratio = start_to_rows()
    imports_console, imports_bare, floor_console, floor_libraries = import_floor()
    shown, keystroke, datatable = asyncio.run(_variables(10_000))
    floor = asyncio.run(_bare_input_keystroke())
    ok = print_table(
        f"Console speed (medians; (a) over {RUNS} interleaved runs in a 120×36 pty)",
        [
            ("(a) vap --sandbox: start → Numbers rows", f"{console * 1000:.0f} ms", "", None),
            ("(a) bare DataTable app: start → same rows", f"{baseline * 1000:.0f} ms", "", None),
            ("(a) ratio console / bare (median of pairs)", f"{ratio:.2f}×", "≤ 1.5", ratio <= 1.5),
            ("(a) start → imports done: console (UI, client)", f"{imports_console * 1000:.0f} ms", "", None),
            ("(a) start → imports done: bare (Textual)", f"{imports_bare * 1000:.0f} ms", "", None),
            ("(a) floor: imports alone, console / bare", f"{floor_console:.2f}×", "", None),
            ("(a) floor: Textual + httpx + pydantic / bare", f"{floor_libraries:.2f}×", "", None),
            ("(b) 10,000 variables: switch → rows shown", f"{shown * 1000:.0f} ms", "", None),
            ("(b) filter, per keystroke", f"{keystroke * 1000:.1f} ms", "≤ 50 ms", keystroke <= 0.050),
            ("(b) floor: keystroke into a bare Textual Input", f"{floor * 1000:.1f} ms", "", None),
            ("(b) for scale: DataTable re-filled per keystroke", f"{datatable * 1000:.0f} ms", "", None),
        ],
    )
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
