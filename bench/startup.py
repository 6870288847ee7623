"""Every read-only `vap` command against a plain httpx script doing the same request, in one run,
and where the difference goes.

Each command and its script run as fresh processes (what a script or CI job pays: interpreter
start, imports, the request, printing) in alternating pairs (the command, then the script, PAIRS
times) against one sandbox, and one webhook for `tools try`, served on loopback by this process;
the figure is the median of the per-pair ratios, so a burst of load on a shared machine spoils one
pair rather than one side. Goal (issue 33): ≤ 1.3× for every command (moonshot ≤ 1.1×). The peak
RSS of each side is the median of three more runs (``ru_maxrss``, see ``peak_mib``).

Where the difference goes, for `vap variables list --json` against its script:

* imports: ``python -X importtime`` self time summed by what a module belongs to, both sides,
  median of IMPORT_RUNS runs (the profiler's own overhead inflates every figure alike);
* after the imports: the command run under cProfile in process (its modules already imported),
  cumulative time of the steps a short command takes: click's parsing, the credentials (the
  keyring, the profiles file), the client's construction, pydantic building a model's validator on
  first use, the request, and the printing.

Both sides run from compiled bytecode (see bench/cli.py). Run with `make bench` or
`python -m bench startup`; ``STARTUP_ONLY=variables,tools`` measures only the commands whose label
holds one of those words.
"""

from __future__ import annotations

import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from bench._table import print_table

PAIRS = 10
Row = tuple[str, str, str, bool | None]
IMPORT_RUNS = 5
GOAL = 1.3
MOONSHOT = 1.1
KEY = "sk_sandbox_agent"
SECRET = "bench-webhook-secret-0001"
SEEDED_CALL = "66f4cf40-e120-5f9c-a804-19221f0e3bcb"  # the sandbox's seeded completed call
TOOL = "bench_lookup"

# The plain script: one GET with the key, the body printed (what each command's --json prints).
PLAIN = (
    "import os, sys, httpx\n"
    "r = httpx.get(os.environ['VAP_BASE_URL'] + sys.argv[1],\n"
    "              headers={'Authorization': 'Bearer ' + os.environ['VAP_API_KEY']})\n"
    "r.raise_for_status(); sys.stdout.write(r.text)\n"
)
# What `vap tools try` sends to the webhook, done by hand.
PLAIN_HOOK = (
    "import os, sys, httpx\n"
    "r = httpx.get(os.environ['HOOK_URL'], params={'phone': '+12025550100'},\n"
    "              headers={'Authorization': 'Bearer ' + os.environ['HOOK_SECRET']})\n"
    "r.raise_for_status(); sys.stdout.write(r.text)\n"
)


@dataclass(frozen=True)
class Case:
    label: str
    vap: tuple[str, ...]
    path: str  # the plain script's GET; "" for the webhook's request


CASES = (
    Case("variables list --json", ("variables", "list", "--json"), "/v1/variables"),
    Case("variables list (piped table)", ("variables", "list"), "/v1/variables"),
    Case("tools list --json", ("tools", "list", "--json"), "/v1/tools"),
    Case("agents list --json", ("agents", "list", "--json"), "/v1/agents"),
    Case("voices list --json", ("voices", "list", "--json"), "/v1/voices"),
    Case("templates list --json", ("templates", "list", "--json"), "/v1/agents/templates"),
    Case("numbers list --json", ("numbers", "list", "--json"), "/v1/phone-numbers"),
    Case("calls show ID --json", ("calls", "show", SEEDED_CALL, "--json"), f"/v1/calls/{SEEDED_CALL}"),
    # From the local ledger (the call added below has ended: nothing to read again), against the
    # script reading that call from the server.
    Case("calls list --json", ("calls", "list", "--json"), f"/v1/calls/{SEEDED_CALL}"),
    Case("tools try NAME (loopback webhook)", ("tools", "try", TOOL, "--secret-env", "HOOK_SECRET"), ""),
)


def _run(args: list[str], env: dict[str, str]) -> float:
    """Wall time of one child, which must succeed. Its output goes to files (not a terminal: both
    sides print as they do into a pipe)."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        started = time.perf_counter()
        code = subprocess.run(args, env=env, stdout=out, stderr=err, stdin=subprocess.DEVNULL, timeout=60).returncode
        took = time.perf_counter() - started
        if code:
            err.seek(0)
            raise RuntimeError(f"{args[1:]} exited {code}: {err.read().decode(errors='replace')[-300:]}")
    return took


# Linux counts a child's peak RSS from before its exec too: a child of this process (a sandbox and
# a webhook in it, ~50 MiB) would report at least that. So each is started by a small interpreter
# of its own, and its peak read with wait4.
_PEAK = ("import os, sys\n"
         "pid = os.fork()\n"
         "if pid == 0:\n"
         "    fd = os.open(os.devnull, os.O_RDWR); os.dup2(fd, 0); os.dup2(fd, 1); os.dup2(fd, 2)\n"
         "    os.execv(sys.argv[1], sys.argv[1:])\n"
         "_, status, usage = os.wait4(pid, 0)\n"
         "print(usage.ru_maxrss if os.waitstatus_to_exitcode(status) == 0 else -1)\n")


def peak_mib(args: list[str], env: dict[str, str], runs: int = 3) -> float:
    """The child's peak RSS (MiB), the median of ``runs``."""
    peaks = []
    for _ in range(runs):
        kib = int(subprocess.run([sys.executable, "-c", _PEAK, *args], env=env, capture_output=True, text=True,
                                 timeout=60, check=True).stdout)
        if kib < 0:
            raise RuntimeError(f"{args[1:]} failed")
        peaks.append(kib / 1024)
    return statistics.median(peaks)


def _measure(vap_args: list[str], plain_args: list[str], env: dict[str, str]) -> dict[str, float]:
    for args in (vap_args, plain_args):  # warm the OS caches for both, and write their bytecode
        _run(args, env)
    ratios, vap_s, plain_s = [], [], []
    for _ in range(PAIRS):
        v = _run(vap_args, env)
        p = _run(plain_args, env)
        ratios.append(v / p)
        vap_s.append(v)
        plain_s.append(p)
    return {"ratio": statistics.median(ratios), "low": min(ratios), "high": max(ratios),
            "vap": statistics.median(vap_s), "plain": statistics.median(plain_s),
            "vap_mib": peak_mib(vap_args, env), "plain_mib": peak_mib(plain_args, env)}


# --- where the difference goes: imports ---

# What a module's import time is charged to: its top-level package, but vap_console's own by part.
_OWN_PARTS = ("vap_console.api.models", "vap_console.api", "vap_console.scripting", "vap_console.credentials")
_IMPORT_LINE = re.compile(r"import time:\s+(\d+) \|\s+\d+ \|\s*(\S+)")


def _owner(module: str) -> str:
    if module.startswith("vap_console"):
        return next((p for p in _OWN_PARTS if module == p or module.startswith(p + ".")), "vap_console (other)")
    return module.split(".")[0]


def import_self_times(args: list[str], env: dict[str, str]) -> dict[str, float]:
    """Median over IMPORT_RUNS of ``-X importtime`` self time (ms) summed by owner."""
    runs: list[dict[str, float]] = []
    for _ in range(IMPORT_RUNS):
        err = subprocess.run([args[0], "-X", "importtime", *args[1:]], env=env, capture_output=True,
                             text=True, timeout=60, check=True).stderr
        runs.append(defaultdict(float))
        for match in _IMPORT_LINE.finditer(err):
            runs[-1][_owner(match.group(2))] += int(match.group(1)) / 1000
    return {name: statistics.median(run.get(name, 0.0) for run in runs) for name in set().union(*runs)}


# --- where the difference goes: after the imports ---

# (what, file suffix, function name): the steps of a short command, cumulative under cProfile.
STEPS = (
    ("click: parsing the arguments", "click/core.py", "make_context"),
    ("credentials: KeyStore.resolve (env key; the profiles file)", "credentials/keystore.py", "resolve"),
    ("  of which the profiles file read", "credentials/profiles.py", "load"),
    ("  of which the keyring asked", "credentials/keystore.py", "_call"),
    ("the client built (VapClient, httpx.AsyncClient)", "api/client.py", "__init__"),
    ("pydantic: a model's validator built on first use", "pydantic/_internal/_model_construction.py",
     "complete_model_class"),
    ("the request: send and read (Sender.send)", "api/sending.py", "send"),
    ("the answer validated into models", "api/client.py", "_parse"),
    ("printing", "scripting/output.py", "dump_json"),
)
_PROFILE = """
import cProfile, importlib, json, marshal, os, pstats, sys, time
started = time.perf_counter()
for name in {modules!r}:
    importlib.import_module(name)
imported = time.perf_counter() - started
from vap_console.cli import main
profile = cProfile.Profile()
started = time.perf_counter()
profile.runcall(main, {argv!r})
ran = time.perf_counter() - started
sys.stdout.flush()
stats = pstats.Stats(profile).stats
found = {{}}
for what, suffix, func in {steps!r}:
    found[what] = sum(v[3] for (f, _, n), v in stats.items() if f.endswith(suffix) and n == func) * 1000
os.write(2, ("\\n" + json.dumps({{"imported": imported * 1000, "ran": ran * 1000, "steps": found}})).encode())
"""


def run_profile(python: str, argv: list[str], modules: list[str], env: dict[str, str]) -> dict[str, object]:
    code = _PROFILE.format(modules=modules, argv=argv, steps=list(STEPS))
    done = subprocess.run([python, "-c", code], env=env, capture_output=True, text=True, timeout=60)
    if done.returncode:
        raise RuntimeError(done.stderr[-500:])
    result: dict[str, object] = json.loads(done.stderr.strip().splitlines()[-1])
    return result


# --- the run ---


@contextmanager
def _servers(tmp: str) -> Iterator[tuple[dict[str, str], str]]:
    """A sandbox and a webhook on loopback, a tool that calls the webhook, a ledger holding the
    seeded call, and the children's environment."""
    import httpx

    from tests.webhook import Webhook
    from vap_console.sandbox.server import start_in_thread

    with start_in_thread() as sandbox, Webhook() as hook:
        hook_url = hook.url + "/ok"  # answers its JSON at once
        tool = {"name": TOOL, "description": "bench", "kind": "before_call",
                "config": {"method": "GET", "url": hook_url, "params": [{"name": "phone", "value": "{phone_number}"}],
                           "auth": {"type": "bearer", "token": "stored"}, "timeoutMs": 5000,
                           "outputs": [{"name": "bench_name", "path": "data.name"}]}}
        httpx.post(sandbox.base_url + "/v1/tools", json=tool,
                   headers={"Authorization": f"Bearer {KEY}"}).raise_for_status()
        env = {**{k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE" and
                  not k.startswith(("VAP_", "RUMIK_"))},
               "PYTHONPYCACHEPREFIX": str(Path(tmp, "pycache")), "XDG_CONFIG_HOME": tmp,
               "XDG_DATA_HOME": str(Path(tmp, "data")), "VAP_API_KEY": KEY, "VAP_BASE_URL": sandbox.base_url,
               "HOOK_URL": hook_url, "HOOK_SECRET": SECRET}
        vap = str(Path(sys.executable).with_name("vap"))
        _run([vap, "calls", "add", SEEDED_CALL], env)
        yield env, vap


def main() -> int:
    words = os.environ.get("STARTUP_ONLY", "").split(",") if os.environ.get("STARTUP_ONLY") else []
    cases = [c for c in CASES if not words or any(w in c.label for w in words)]
    rows: list[Row] = []
    with tempfile.TemporaryDirectory() as tmp, _servers(tmp) as (env, vap):
        for case in cases:
            plain = [sys.executable, "-c", PLAIN, case.path] if case.path else [sys.executable, "-c", PLAIN_HOOK]
            got = _measure([vap, *case.vap], plain, env)
            rows.append((f"vap {case.label}", f"{got['ratio']:.2f}× ({got['low']:.2f}–{got['high']:.2f})",
                         f"≤ {GOAL} (moonshot ≤ {MOONSHOT})", got["ratio"] <= GOAL))
            rows.append(("  its time, the script's; peak RSS", f"{got['vap'] * 1000:.0f} / {got['plain'] * 1000:.0f} ms; "
                         f"{got['vap_mib']:.0f} / {got['plain_mib']:.0f} MiB", "", None))
        met = print_table(f"read-only commands against a plain httpx script doing the same request (fresh "
                          f"processes, {PAIRS} alternating pairs: median of the pairs' ratios, lowest–highest)", rows)
        _print_breakdown(env, vap)
    return 0 if met else 1


def _print_breakdown(env: dict[str, str], vap: str) -> None:
    argv = ["variables", "list", "--json"]
    ours = import_self_times([sys.executable, "-c", f"from vap_console.cli import main; main({argv!r})"], env)
    theirs = import_self_times([sys.executable, "-c", PLAIN, "/v1/variables"], env)
    diff = sorted(((ours.get(k, 0.0) - theirs.get(k, 0.0), k) for k in {*ours, *theirs}), reverse=True)
    biggest = [(d, name) for d, name in diff if abs(d) >= 1.0][:16]
    rows: list[Row] = [(name, f"{ours.get(name, 0.0):.1f} / {theirs.get(name, 0.0):.1f} ms", f"{d:+.1f} ms", None)
                       for d, name in biggest]
    rows.append(("all imports", f"{sum(ours.values()):.0f} / {sum(theirs.values()):.0f} ms",
                 f"{sum(ours.values()) - sum(theirs.values()):+.0f} ms", None))
    print()
    print_table(f"where it goes, 1: imports of vap variables list --json / the script (python -X importtime "
                f"self time by package, median of {IMPORT_RUNS}; the profiler inflates every figure)", rows)
    modules = ["vap_console.cli", "vap_console.scripting.root", "vap_console.scripting.catalog",
               "vap_console.api.client", "vap_console.api.models.tools", "vap_console.credentials"]
    got = run_profile(sys.executable, argv, modules, env)
    steps = got["steps"]
    assert isinstance(steps, dict)
    rows = [("its modules imported (no profiler)", f"{got['imported']:.0f} ms", "", None),
            ("the command run, imports done (cProfile)", f"{got['ran']:.0f} ms", "", None)]
    rows += [(f"  {what}", f"{steps[what]:.1f} ms", "", None) for what, *_ in STEPS]
    print()
    print_table("where it goes, 2: vap variables list --json once its modules are imported (cumulative "
                "time of each step under cProfile)", rows)


if __name__ == "__main__":
    sys.exit(main())
