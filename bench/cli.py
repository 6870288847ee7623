"""`vap variables list --json` against a plain httpx script doing the same request, in one run.

Both run as fresh processes (what a script or CI job pays: interpreter start, imports, one
request, printing), alternately, against one sandbox served on loopback in this process; median
of RUNS each. The plain script imports httpx, sends GET /v1/variables and prints the body. Goal:
the ratio ≤ 1.3 (the scripting path imports no Textual; click, pydantic and the models are what
it adds).

Both run from compiled bytecode, as an installed package does (pip compiles on install): the
children get a private PYTHONPYCACHEPREFIX with bytecode writing on (PYTHONDONTWRITEBYTECODE, set
in some shells and CI images, is dropped for them), and the warm-up run of each writes it. Without
that, the editable checkout's own modules were compiled from source on every run of `vap` while
httpx, in site-packages, came precompiled: ~50 ms charged to one side only. The tree is left
untouched (no __pycache__ in src/).

Run with `make bench` (or `python -m bench cli`).
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench._table import print_table

RUNS = 15
GOAL = 1.3
PLAIN = (
    "import os, sys, httpx\n"
    "r = httpx.get(os.environ['VAP_BASE_URL'] + '/v1/variables',\n"
    "              headers={'Authorization': 'Bearer ' + os.environ['VAP_API_KEY']})\n"
    "r.raise_for_status(); sys.stdout.write(r.text)\n"
)


def _wall(args: list[str], env: dict[str, str]) -> float:
    started = time.perf_counter()
    subprocess.run(args, env=env, capture_output=True, check=True, timeout=60)
    return time.perf_counter() - started


def main() -> int:
    from vap_console.sandbox.server import start_in_thread

    vap = str(Path(sys.executable).with_name("vap"))
    with tempfile.TemporaryDirectory() as tmp, start_in_thread() as sandbox:
        env = {**{k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"},
               "PYTHONPYCACHEPREFIX": str(Path(tmp, "pycache")),
               "XDG_CONFIG_HOME": tmp, "VAP_API_KEY": "sk_sandbox_agent",
               "VAP_BASE_URL": sandbox.base_url}
        cli_args = [vap, "variables", "list", "--json"]
        plain_args = [sys.executable, "-c", PLAIN]
        for args in (cli_args, plain_args):  # warm the OS caches for both, and write their bytecode
            _wall(args, env)
        cli, plain = [], []
        for _ in range(RUNS):
            cli.append(_wall(cli_args, env))
            plain.append(_wall(plain_args, env))
    c, p = statistics.median(cli), statistics.median(plain)
    ratio = c / p
    met = print_table(
        f"vap variables list --json vs a plain httpx script (fresh processes, median of {RUNS} each)",
        [
            ("plain httpx script", f"{p * 1000:.0f} ms", "baseline", None),
            ("vap variables list --json", f"{c * 1000:.0f} ms", "", None),
            ("ratio", f"{ratio:.2f}×", f"≤ {GOAL}", ratio <= GOAL),
        ],
    )
    return 0 if met else 1


if __name__ == "__main__":
    sys.exit(main())
