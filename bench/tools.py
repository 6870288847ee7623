"""`vap tools try` against a loopback webhook answering at once, beside a plain httpx script sending
the same request, in one run.

Both run as fresh processes (what a CI job pays: interpreter start, imports, the requests,
printing), in alternating pairs, against one sandbox and one webhook served on loopback in this
process; the median of each. The plain script sends the webhook request `vap tools try` sends (the
same URL, query and bearer header) and prints the body. Goal (issue 33): ≤ 1.3× (moonshot ≤ 1.1×).

The ratio is the median of the pairs' ratios (as bench/startup.py), so a burst of load on a shared
machine spoils one pair rather than one side; TOOLS_PAIRS=5 makes fewer while iterating.

Where the difference goes, measured in the same run: `vap tools try` must first read the tool and
the variables from the platform (GET /v1/tools and GET /v1/variables, together), which the plain
script is handed; `--dry-run` does everything but the webhook call, and "a plain httpx script doing
all three requests" shows what those reads cost without the console's imports (click, the
client). The plain script also pays for httpx's command-line tool (rich, pygments, click's rest:
httpx imports it whenever click is installed), which vap declines: the same script without it is
the floor. `vap tools try` reads its pages without pydantic (api/tool_view.py; the models read
only a page that is not plainly well-formed): importing pydantic, building the tools models and
the Tool validator were ~200 ms of the ~560 ms it took before. What is left beyond the floor, by
`python -X importtime` and a script doing the same requests synchronously: click (~35 ms),
asyncio, anyio and the event loop under httpx's async client (~90-120 ms against a sync
httpx.Client doing the same three requests; the client's retry and deadline rules are async, one
path for the console and the commands), the credentials (~15 ms) and the two reads. Bytecode as
an installed package has it (see bench/cli.py).

Second table: the sandbox's ``--call-tools``, what a tool call adds to the agent's answer beyond the
webhook's own time, p99 of 100: goal ≤ 5 ms (issue 33). Measured end to end on the agent socket:
a sandbox in a process of its own (``--call-tools``, speech 20× faster), the webhook in another,
this process the caller. Each of 100 rounds, in one call: the webhook's own time (the same request
sent bare on a kept connection), a turn the agent answers without a tool (a variable's value) and
a turn that makes it call its during_call tool (``book_appointment``, pointed at the webhook), each
timed from the turn sent to ``agent_start_talking``; added = tool turn − plain turn − webhook. The
answers are the same each round, so their speech is the sandbox's cached one. Beside it, the
sandbox's tool call alone (``during_call``, in this process) against the bare request: where the
added time goes.

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
from dataclasses import dataclass
from pathlib import Path

import httpx

from bench._table import print_table
from bench.cli import _wall
from tests.webhook import Webhook

PAIRS = int(os.environ.get("TOOLS_PAIRS", "15"))  # fewer while iterating
GOAL = 1.3
MOONSHOT = 1.1
SECRET = "bench-webhook-secret-0001"
PLAIN = (
    "import os, sys, httpx\n"
    "r = httpx.get(os.environ['HOOK_URL'], params={'phone': '+12025550100'},\n"
    "              headers={'Authorization': 'Bearer ' + os.environ['HOOK_SECRET']})\n"
    "r.raise_for_status(); sys.stdout.write(r.text)\n"
)
# The same script without httpx's command-line tool (rich, pygments, click's rest), which httpx
# imports whenever click is installed and vap declines (vap_console/__init__.py): what the plain
# script spends on it.
PLAIN_BARE = "import sys; sys.modules['httpx._main'] = None\n" + PLAIN
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
            "bare": [sys.executable, "-c", PLAIN_BARE],
        }
        for args in runs.values():  # warm the OS caches and write the bytecode
            _wall(args, env)
        times: dict[str, list[float]] = {name: [] for name in runs}
        for _ in range(PAIRS):
            for name, args in runs.items():
                times[name].append(_wall(args, env))
    med = {name: statistics.median(values) for name, values in times.items()}
    # Each pair's ratio, then their median: a burst of load on a shared machine spoils one pair, not one side.
    ratios = [t / p for t, p in zip(times["vap"], times["plain"], strict=True)]
    ratio = statistics.median(ratios)
    met = print_table(
        f"vap tools try vs a plain httpx script, one webhook on loopback (tests/webhook.py; fresh processes, {PAIRS} alternating "
        "runs each: medians, and the median of the pairs' ratios)",
        [
            ("plain httpx script: the webhook request", f"{med['plain'] * 1000:.0f} ms", "baseline", None),
            ("vap tools try NAME", f"{med['vap'] * 1000:.0f} ms", "", None),
            ("ratio", f"{ratio:.2f}×", f"≤ {GOAL} (moonshot ≤ {MOONSHOT})", ratio <= GOAL),
            ("  pairs' ratios, lowest–highest", f"{min(ratios):.2f}–{max(ratios):.2f}×", "", None),
            ("where it goes: vap tools try --dry-run (reads, no webhook)", f"{med['dry'] * 1000:.0f} ms", "", None),
            ("where it goes: plain script, GET tools + variables + webhook", f"{med['plain3'] * 1000:.0f} ms",
             "", None),
            ("vap tools try vs that script", f"{med['vap'] / med['plain3']:.2f}×", "", None),
            ("where it goes: plain script without httpx's command-line tool (vap skips it)",
             f"{med['bare'] * 1000:.0f} ms", "", None),
            ("vap tools try vs that script", f"{med['vap'] / med['bare']:.2f}×", "", None),
        ],
    )
    with _webhook_process() as hook_url:
        with _calling_sandbox(hook_url + "/ok") as base_url:
            answers = asyncio.run(_answers(base_url, hook_url + "/ok"))
        added = asyncio.run(_sandbox_tool_calls(hook_url + "/ok"))
    over = [a.added for a in answers]
    p99 = _p99(over)
    met_sandbox = print_table(
        f"the sandbox's --call-tools: what a tool call adds to the agent's answer beyond the webhook's own time "
        f"({len(answers)} rounds on one socket call; sandbox, webhook and caller in three processes)",
        [
            ("webhook's own time in the tool call (the sandbox's sender), median",
             f"{statistics.median(a.webhook for a in answers):.2f} ms", "", None),
            ("  the same request sent bare from the caller, median", f"{statistics.median(a.bare for a in answers):.2f} ms",
             "", None),
            ("answer without a tool, median", f"{statistics.median(a.plain for a in answers):.2f} ms", "", None),
            ("answer calling the tool, median", f"{statistics.median(a.tool for a in answers):.2f} ms", "", None),
            ("added, median", f"{statistics.median(over):.2f} ms", "", None),
            ("added, p99", f"{p99:.2f} ms", f"≤ {ADDED_GOAL_MS} ms", p99 <= ADDED_GOAL_MS),
            # Three processes on a shared machine: how far one answer with no tool strays from its
            # own median is the floor under any p99 of a difference of two answers.
            ("the measure's own noise: answer without a tool, p99 − median",
             f"{_p99([a.plain for a in answers]) - statistics.median(a.plain for a in answers):.2f} ms", "", None),
            ("where it goes: the sandbox's tool call alone, beyond the bare request, median / p99",
             f"{statistics.median(added):.2f} / {_p99(added):.2f} ms", "", None),
        ],
    )
    return 0 if met and met_sandbox else 1


def _p99(values: list[float]) -> float:
    return statistics.quantiles(values, n=100)[98] if len(values) > 1 else values[0]


CALLS = 100
ADDED_GOAL_MS = 5.0
# The webhook in a process of its own: in this one, its thread and the caller would share the GIL,
# and each switch between them (up to 5 ms) would be charged to the sandbox.
_SERVE = ("import sys; from tests.webhook import Webhook\n"
          "with Webhook() as hook:\n    print(hook.url, flush=True); sys.stdin.read()\n")


@contextmanager
def _webhook_process() -> Iterator[str]:
    with _child(_SERVE) as url:
        yield url


@contextmanager
def _child(script: str, *args: str) -> Iterator[str]:
    """``script`` run by a Python of its own until the block ends; yields the first line it prints."""
    root = Path(__file__).resolve().parents[1]
    child = subprocess.Popen([sys.executable, "-c", script, *args], cwd=root, stdin=subprocess.PIPE,
                             stdout=subprocess.PIPE, text=True)
    try:
        assert child.stdout is not None
        yield child.stdout.readline().strip()
    finally:
        assert child.stdin is not None
        child.stdin.close()
        child.wait(timeout=30)


# The sandbox with --call-tools in a process of its own, its book_appointment pointed at the webhook.
_SANDBOX = ("import sys\n"
            "from vap_console.sandbox.keys import by_name\n"
            "from vap_console.sandbox.server import start_in_thread\n"
            "from vap_console.sandbox.voice.tool_calls import ToolCalling\n"
            "with start_in_thread(speed=20, faults='call_max_s=86400', call_tools=ToolCalling()) as box:\n"
            "    for tool in box.state.account(by_name('agent')).tools.values():\n"
            "        if tool.name == 'book_appointment':\n"
            "            tool.config = {**tool.config, 'method': 'GET', 'url': sys.argv[1], 'body': '',\n"
            "                           'params': [{'name': 'slot', 'value': '{slot}'}], 'timeoutMs': 5000,\n"
            "                           'outputs': [{'name': 'appointment_slot', 'path': 'data.visits.0.date'}]}\n"
            "    print(box.base_url, flush=True); sys.stdin.read()\n")
PLAIN_TURN = "What is the business_name?"
TOOL_TURN = "Please book_appointment doctor: Mehta, slot=Fri"


@contextmanager
def _calling_sandbox(hook_url: str) -> Iterator[str]:
    with _child(_SANDBOX, hook_url) as url:
        yield url


@dataclass
class Round:
    bare: float  # ms, the webhook's request sent bare from this process
    plain: float  # ms, turn sent → agent_start_talking, no tool
    tool: float  # ms, the same for the turn that calls the tool
    webhook: float  # ms, the webhook's time in that tool call, as the sandbox's sender timed it

    @property
    def added(self) -> float:
        return self.tool - self.plain - self.webhook


async def _answers(base_url: str, hook_url: str, rounds: int = CALLS) -> list[Round]:
    """``rounds`` rounds on one socket call (after 5 that warm the speech cache and the pools)."""
    import json

    import websockets

    key = {"Authorization": "Bearer sk_sandbox_agent"}
    async with httpx.AsyncClient(base_url=base_url, headers=key) as api, httpx.AsyncClient() as bare:
        agents = (await api.get("/v1/agents")).json()["items"]
        priya = next(a["handle"] for a in agents if a["name"].startswith("Priya"))
        token = (await api.post("/v1/register-call", json={"agent_id": priya})).json()["access_token"]
        url = base_url.replace("http://", "ws://") + "/v1/agent/connect?token=" + token
        async with websockets.connect(url, max_size=None) as ws:

            async def until(kind: str) -> list[dict[str, object]]:
                seen = []
                while True:
                    seen.append(json.loads(await ws.recv()))
                    if seen[-1]["type"] == kind:
                        return seen

            async def turn(text: str, tools: int) -> tuple[float, float]:
                t0 = time.perf_counter()
                await ws.send(json.dumps({"type": "input_text.send", "text": text}))
                seen = await until("agent_start_talking")
                took = (time.perf_counter() - t0) * 1000
                called = [e for e in seen if e["type"] == "sandbox.tool_call"]
                assert len(called) == tools and all(e["status"] == 200 for e in called), called  # measured what it says
                await until("agent_stop_talking")
                return took, sum(float(str(e["ms"])) for e in called)

            await until("agent_stop_talking")  # the greeting
            done: list[Round] = []
            for _ in range(rounds + 5):
                t0 = time.perf_counter()
                await bare.get(hook_url, params={"slot": "Fri"})
                bare_ms = (time.perf_counter() - t0) * 1000
                plain, _ = await turn(PLAIN_TURN, 0)
                tool, webhook = await turn(TOOL_TURN, 1)
                done.append(Round(bare_ms, plain, tool, webhook))
            await ws.send(json.dumps({"type": "session.close"}))
    return done[5:]


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
