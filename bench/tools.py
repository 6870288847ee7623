"""`vap tools try` against a loopback webhook answering at once, beside a plain httpx script sending
the same request, in one run.

Both run as fresh processes (what a CI job pays: interpreter start, imports, the requests,
printing), in alternating pairs, against one sandbox and one webhook served on loopback in this
process; the median of each. The plain script sends the webhook request `vap tools try` sends (the
same URL, query and bearer header) and prints the body. Goal (issue 33): ≤ 1.3× (moonshot ≤ 1.1×).

Where the difference goes, measured in the same run: `vap tools try` must first read the tool and
the variables from the platform (GET /v1/tools and GET /v1/variables, together), which the plain
script is handed; `--dry-run` does everything but the webhook call, and "a plain httpx script doing
all three requests" shows what those reads cost without the console's imports (click, pydantic,
the models). Bytecode as an installed package has it (see bench/cli.py).

Second table: the sandbox's ``--call-tools``, a during_call tool's whole call in the sandbox beyond
the webhook's own time (the same request on a kept connection), p99 of 100: goal ≤ 5 ms.

Run with `make bench` (or `python -m bench tools`).
"""

from __future__ import annotations

import asyncio
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx

from bench._table import print_table
from bench.cli import _wall
from tests.webhook import Webhook

PAIRS = 15
GOAL = 1.3
MOONSHOT = 1.1
SECRET = "bench-webhook-secret-0001"
PLAIN = (
    "import os, sys, httpx\n"
    "r = httpx.get(os.environ['HOOK_URL'], params={'phone': '+12025550100'},\n"
    "              headers={'Authorization': 'Bearer ' + os.environ['HOOK_SECRET']})\n"
    "r.raise_for_status(); sys.stdout.write(r.text)\n"
)
PLAIN_ALL_THREE = (
    "import os, sys, httpx\n"
    "api = httpx.Client(base_url=os.environ['VAP_BASE_URL'],\n"
    "                   headers={'Authorization': 'Bearer ' + os.environ['VAP_API_KEY']})\n"
    "tools, variables = api.get('/v1/tools').json(), api.get('/v1/variables').json()\n"
    "r = httpx.get(os.environ['HOOK_URL'], params={'phone': '+12025550100'},\n"
    "              headers={'Authorization': 'Bearer ' + os.environ['HOOK_SECRET']})\n"
    "r.raise_for_status(); sys.stdout.write(r.text)\n"
)


def main() -> int:
    from vap_console.sandbox.server import start_in_thread

    vap = str(Path(sys.executable).with_name("vap"))
    with tempfile.TemporaryDirectory() as tmp, start_in_thread() as sandbox, Webhook() as hook:
        hook_url = hook.url + "/ok"  # answers its JSON at once
        tool = {"name": "bench_lookup", "description": "bench", "kind": "before_call",
                "config": {"method": "GET", "url": hook_url, "params": [{"name": "phone", "value": "{phone_number}"}],
                           "auth": {"type": "bearer", "token": "stored"}, "timeoutMs": 5000,
                           "outputs": [{"name": "bench_name", "path": "data.name"}]}}
        created = httpx.post(sandbox.base_url + "/v1/tools", json=tool,
                             headers={"Authorization": "Bearer sk_sandbox_agent"})
        created.raise_for_status()
        env = {**{k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"},
               "PYTHONPYCACHEPREFIX": str(Path(tmp, "pycache")), "XDG_CONFIG_HOME": tmp,
               "VAP_API_KEY": "sk_sandbox_agent", "VAP_BASE_URL": sandbox.base_url,
               "HOOK_URL": hook_url, "HOOK_SECRET": SECRET}
        runs = {
            "vap": [vap, "tools", "try", "bench_lookup", "--secret-env", "HOOK_SECRET"],
            "dry": [vap, "tools", "try", "bench_lookup", "--secret-env", "HOOK_SECRET", "--dry-run"],
            "plain": [sys.executable, "-c", PLAIN],
            "plain3": [sys.executable, "-c", PLAIN_ALL_THREE],
        }
        for args in runs.values():  # warm the OS caches and write the bytecode
            _wall(args, env)
        times: dict[str, list[float]] = {name: [] for name in runs}
        for _ in range(PAIRS):
            for name, args in runs.items():
                times[name].append(_wall(args, env))
    med = {name: statistics.median(values) for name, values in times.items()}
    ratios = [t / p for t, p in zip(times["vap"], times["plain"])]
    ratio = med["vap"] / med["plain"]
    met = print_table(
        f"vap tools try vs a plain httpx script, one webhook on loopback (tests/webhook.py; fresh processes, {PAIRS} alternating "
        "runs each, medians)",
        [
            ("plain httpx script: the webhook request", f"{med['plain'] * 1000:.0f} ms", "baseline", None),
            ("vap tools try NAME", f"{med['vap'] * 1000:.0f} ms", "", None),
            ("ratio", f"{ratio:.2f}×", f"≤ {GOAL} (moonshot ≤ {MOONSHOT})", ratio <= GOAL),
            ("  pairs' ratios, lowest–highest", f"{min(ratios):.2f}–{max(ratios):.2f}×", "", None),
            ("where it goes: vap tools try --dry-run (reads, no webhook)", f"{med['dry'] * 1000:.0f} ms", "", None),
            ("where it goes: plain script, GET tools + variables + webhook", f"{med['plain3'] * 1000:.0f} ms",
             "", None),
            ("vap tools try vs that script", f"{med['vap'] / med['plain3']:.2f}×", "", None),
        ],
    )
    with _webhook_process() as hook_url:
        added = asyncio.run(_sandbox_tool_calls(hook_url + "/ok"))
    p99 = statistics.quantiles(added, n=100)[98]
    met_sandbox = print_table(
        f"the sandbox's --call-tools: a during_call tool's call, beyond the webhook's own time ({CALLS} calls, "
        "each against the same request on a kept connection)",
        [
            ("added, median", f"{statistics.median(added):.2f} ms", "", None),
            ("added, p99", f"{p99:.2f} ms", f"≤ {ADDED_GOAL_MS} ms", p99 <= ADDED_GOAL_MS),
        ],
    )
    return 0 if met and met_sandbox else 1


CALLS = 100
ADDED_GOAL_MS = 5.0
# The webhook in a process of its own: in this one, its thread and the caller would share the GIL,
# and each switch between them (up to 5 ms) would be charged to the sandbox.
_SERVE = ("import sys; from tests.webhook import Webhook\n"
          "with Webhook() as hook:\n    print(hook.url, flush=True); sys.stdin.read()\n")


@contextmanager
def _webhook_process() -> Iterator[str]:
    root = Path(__file__).resolve().parents[1]
    child = subprocess.Popen([sys.executable, "-c", _SERVE], cwd=root, stdin=subprocess.PIPE,
                             stdout=subprocess.PIPE, text=True)
    try:
        assert child.stdout is not None
        yield child.stdout.readline().strip()
    finally:
        assert child.stdin is not None
        child.stdin.close()
        child.wait(timeout=30)


async def _sandbox_tool_calls(url: str, calls: int = CALLS) -> list[float]:
    """What `during_call` (the sandbox's whole tool call: arguments from the turn, the request
    built, the allow-list, a client, sending, judging) takes beyond the bare request's time."""
    from datetime import UTC, datetime

    from vap_console.sandbox.records import ToolRecord
    from vap_console.sandbox.voice.tool_calls import ToolCalling, during_call

    now = datetime.now(UTC)
    record = ToolRecord("t", "book", "bench", "during_call",
                        {"method": "GET", "url": url, "params": [{"name": "slot", "value": "{slot}"}],
                         "headers": [], "body": "", "timeoutMs": 5000, "waitForResponse": True,
                         "llmParams": [{"name": "slot"}], "outputs": [{"name": "booked", "path": "data.name"}],
                         "auth": {"type": "bearer", "headerName": "X-API-Key", "username": "", "hasSecret": True}},
                        False, now, now, secret={"token": SECRET})
    policy, context = ToolCalling(), {"call_id": "c", "agent_id": "a", "phone_number": ""}
    added = []
    async with httpx.AsyncClient(transport=httpx.AsyncHTTPTransport(verify=False)) as bare:
        for _ in range(calls + 5):
            t0 = time.perf_counter()
            await bare.get(url, params={"slot": "Fri"}, headers={"Authorization": "Bearer " + SECRET})
            t1 = time.perf_counter()
            outcome = await during_call(record, "book slot: Fri", {}, context, policy)
            t2 = time.perf_counter()
            assert outcome.entry["status"] == 200, outcome.entry
            added.append(((t2 - t1) - (t1 - t0)) * 1000)
    return added[5:]  # the first few warm imports and the pool


if __name__ == "__main__":
    sys.exit(main())
