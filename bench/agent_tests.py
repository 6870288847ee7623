"""`vap agents test` at scale (issue 34, Performance): 20 conversations × 3 repeats on a sandbox at
``--speed 10``, held 4 side by side (``--parallel 4``, the sandbox key's 4 call slots) against the
same suite held one run at a time, both in this run on this machine.

The sandbox runs in a child process of its own (as `vap sandbox serve` would), with every agent's
answer delay set (``agent_delay_ms=*:DELAY_MS``, on the sandbox clock: DELAY_MS / SPEED of wall
time); the console runs here, in-process (`vap agents test … --json`). Measured:

- wall time of the whole suite, parallel over serial: goal ≤ 0.35 (4 slots), moonshot ≤ 0.3;
- the answer times the console measured (``Turn.answer_ms``: from the typed turn leaving to the
  first sign of the answer) against the delay the sandbox was told: p95 of (measured − configured)
  within 20 ms, over every answer of the serial run (the parallel run's too, shown). An answer
  cannot come before its delay, so that is the suite's answer p95 less the delay.

The conversations differ (the sandbox agent echoes each turn, so each says something of its own),
one to three turns each, as a real suite's. A warm-up pass first makes the sandbox's speech of
every line once (it keeps it: the same text gives the same bytes), so both runs measure calls.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from bench._table import print_table
from bench.voice_socket import start_child

CONVERSATIONS = int(os.environ.get("VAP_BENCH_AGENT_TESTS_CONVERSATIONS", "20"))
REPEAT = 3
PARALLEL = 4
SPEED = 10.0
DELAY_MS = 600.0  # on the sandbox clock: 60 ms of wall time at speed 10
RATIO_GOAL, RATIO_MOONSHOT = 0.35, 0.30
AGREE_MS = 20.0
PRIYA = "ua_4152f853c72d"
# Topics that name no variable nor tool of the agent: each answer echoes its own turn.
TOPICS = ["parking", "a refund", "the new clinic", "a checkup", "my booking", "late arrivals",
          "insurance", "a dentist on Sunday", "a cleaning", "x-rays", "the fees", "pets"]
# The sandbox in a child: the speed and the agents' delay given, long calls (a busy machine must
# not end one at the sandbox's 120 s max_duration, 12 s of wall time at this speed).
CHILD = ("import sys\n"
         "from vap_console.sandbox.server import start_in_thread\n"
         "with start_in_thread(speed=float(sys.argv[1]), faults=sys.argv[2]) as running:\n"
         "    print(running.base_url, flush=True)\n"
         "    while sys.stdin.buffer.read(65536):\n"
         "        pass\n")


def suite(conversations: int = CONVERSATIONS) -> dict[str, Any]:
    """``conversations`` conversations, one to three turns each, every answer checked."""
    items = []
    for i in range(conversations):
        turns = [{"say": f"Question {i}.{t}: tell me about {TOPICS[(i + t) % len(TOPICS)]}",
                  "expect": {"contains": f"Question {i}.{t}"}} for t in range(1 + i % 3)]
        items.append({"name": f"conversation {i + 1}", "turns": turns})
    return {"agent": PRIYA, "timeout_ms": 30_000, "conversations": items}


def _session(base_url: str, home: Path) -> Any:
    from vap_console.credentials import KeyStore, ProfileStore
    from vap_console.scripting.base import Session

    store = KeyStore(profiles=ProfileStore(home), env={"VAP_API_KEY": "sk_sandbox_agent", "VAP_BASE_URL": base_url})
    return Session(keystore=store, terminal_out=False, terminal_in=False, data_dir=home / "data")


def hold(base_url: str, home: Path, path: Path, *, parallel: int, repeat: int) -> tuple[float, dict[str, Any]]:
    """(wall seconds, the --json report) of `vap agents test PATH --repeat … --parallel …`."""
    from vap_console.scripting.root import run

    out = io.StringIO()
    args = ["agents", "test", str(path), "--yes", "--json", "--repeat", str(repeat), "--parallel", str(parallel)]
    started = time.perf_counter()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()) as err:
        code = run(args, _session(base_url, home))
    wall = time.perf_counter() - started
    if code != 0:
        raise RuntimeError(f"vap agents test exited {code}: {err.getvalue()[-2000:]}")
    return wall, json.loads(out.getvalue())


def start_sandbox(speed: float = SPEED, delay_ms: float = DELAY_MS) -> tuple[Any, str]:
    return start_child(["-c", CHILD, repr(speed), f"agent_delay_ms=*:{delay_ms:g},call_max_s=86400"])


def measure(base_url: str, home: Path, conversations: int = CONVERSATIONS, repeat: int = REPEAT,
            parallel: int = PARALLEL) -> dict[str, Any]:
    path = home / "suite.test.json"
    path.write_text(json.dumps(suite(conversations)), encoding="utf-8")
    hold(base_url, home, path, parallel=parallel, repeat=1)  # warm-up: every line's speech made once
    serial, serial_report = hold(base_url, home, path, parallel=1, repeat=repeat)
    wide, wide_report = hold(base_url, home, path, parallel=parallel, repeat=repeat)
    return {"serial": serial, "parallel": wide, "serial_report": serial_report, "parallel_report": wide_report}


def main() -> bool:
    proc, url = start_sandbox()
    try:
        with tempfile.TemporaryDirectory() as tmp:
            got = measure(url, Path(tmp))
    finally:
        assert proc.stdin is not None
        proc.stdin.close()
        proc.wait(10)
    return report(got)


def report(got: dict[str, Any], conversations: int = CONVERSATIONS, repeat: int = REPEAT) -> bool:
    ratio = got["parallel"] / got["serial"]
    wall_delay = DELAY_MS / SPEED
    rows: list[tuple[str, str, str, bool | None]] = [
        (f"suite held serially ({conversations} conversations × {repeat})", f"{got['serial']:.1f} s", "", None),
        (f"suite held with --parallel {PARALLEL}", f"{got['parallel']:.1f} s", "", None),
        ("parallel / serial wall time", f"{ratio:.2f}", f"≤ {RATIO_GOAL} (moonshot ≤ {RATIO_MOONSHOT})",
         ratio <= RATIO_GOAL),
        ("moonshot reached", "yes" if ratio <= RATIO_MOONSHOT else "no", f"≤ {RATIO_MOONSHOT}", None),
    ]
    for name in ("serial", "parallel"):
        figures = got[f"{name}_report"]["suites"][0]["answer_ms"]
        over = figures["p95_ms"] - wall_delay
        rows.append((f"answer p50 / p95 / max, {name} ({figures['count']} answers)",
                     f"{figures['p50_ms']:.1f} / {figures['p95_ms']:.1f} / {figures['max_ms']:.1f} ms",
                     f"configured {wall_delay:g} ms", None))
        rows.append((f"answer p95 − configured delay, {name}", f"{over:+.1f} ms", f"≤ {AGREE_MS:g} ms",
                     over <= AGREE_MS if name == "serial" else None))
    rows.append(("machine load average (1 min) after the run", f"{os.getloadavg()[0]:.1f} on {os.cpu_count()} cores",
                 "", None))
    return print_table(f"vap agents test: {conversations} conversations × {repeat} on a sandbox at --speed "
                       f"{SPEED:g} (agent delay {DELAY_MS:g} ms of its clock), --parallel {PARALLEL} vs serial",
                       rows)


if __name__ == "__main__":
    sys.exit(0 if main() else 1)
