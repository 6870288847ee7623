"""Credentials benchmarks: what guarding the keyring and the index costs, measured in one run.

(a) `vap profiles` wall time, as a fresh process, against `vap --version` (the cheapest command:
    argparse and nothing else), measured alternately in the same run; median of 9 each. With
    VAP_API_KEY set it touches no keyring and must not pay for Textual, httpx or pydantic (whose
    import alone is measured too, for scale). Goal: ratio ≤ 3. With a keyring (keyring's null
    backend) the keyring library's own import is added: reported, no goal.
(b) KeyStore.get — each keyring call in its own daemon thread with a timeout, so a locked
    keyring cannot hang the console — against calling the same in-memory backend directly.
    Goal: under 1 ms added per call (a keyring round trip over D-Bus takes milliseconds anyway).
(c) LocalIndex.add with 200 ids already there (file lock, fsync, atomic replace) against writing
    the same JSON with a bare write_text. Goal: each add under 20 ms.

Run with `make bench` (or `python -m bench credentials`).
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench._table import print_table

RUNS = 9
CALLS = 2000
INDEX_IDS = 200
INDEX_ADDS = 100


def _wall(args: list[str], env: dict[str, str]) -> float:
    started = time.perf_counter()
    subprocess.run(args, env=env, capture_output=True, check=True, timeout=60)
    return time.perf_counter() - started


def bench_cli_start(tmp: Path) -> dict[str, float]:
    env = {**os.environ, "XDG_CONFIG_HOME": str(tmp / "config"), "XDG_DATA_HOME": str(tmp / "data")}
    env.pop("VAP_BASE_URL", None)
    with_env_key = {**env, "VAP_API_KEY": "sk_bench_key_0000"}
    with_keyring = {**env, "PYTHON_KEYRING_BACKEND": "keyring.backends.null.Keyring"}
    with_keyring.pop("VAP_API_KEY", None)
    (tmp / "config" / "vap-console").mkdir(parents=True)
    (tmp / "config" / "vap-console" / "profiles.toml").write_text(
        'active = "a"\n[profiles.a]\nbase_url = "https://api.example.com"\n'
        '[profiles.b]\nbase_url = "http://127.0.0.1:8787"\n'
    )
    vap = [sys.executable, "-m", "vap_console"]
    runs = {
        "version": (vap + ["--version"], env),
        "profiles_env": (vap + ["profiles"], with_env_key),
        "profiles_keyring": (vap + ["profiles"], with_keyring),
        "ui_stack": ([sys.executable, "-c", "import textual.app, httpx, pydantic"], env),
    }
    for args, run_env in runs.values():
        _wall(args, run_env)  # warm the file cache
    times: dict[str, list[float]] = {name: [] for name in runs}
    for _ in range(RUNS):
        for name, (args, run_env) in runs.items():
            times[name].append(_wall(args, run_env))
    return {name: statistics.median(values) for name, values in times.items()}


def bench_keystore(tmp: Path) -> tuple[float, float]:
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from tests.credentials.backends import MemoryKeyring
    from vap_console.credentials import KeyStore, ProfileStore

    backend = MemoryKeyring()
    backend.set_password("vap-console", "bench", "sk_bench_key_0000")
    store = KeyStore(profiles=ProfileStore(tmp), backend=backend)
    started = time.perf_counter()
    for _ in range(CALLS):
        backend.get_password("vap-console", "bench")
    direct = (time.perf_counter() - started) / CALLS
    started = time.perf_counter()
    for _ in range(CALLS):
        store.get("bench")
    guarded = (time.perf_counter() - started) / CALLS
    return direct, guarded


def bench_index(tmp: Path) -> tuple[float, float]:
    from vap_console.credentials import LocalIndex

    index = LocalIndex("bench", data_dir=tmp / "idx")
    for i in range(INDEX_IDS):
        index.add("rentals", f"r-{i:05d}")
    started = time.perf_counter()
    for i in range(INDEX_ADDS):
        index.add("tools", f"t-{i:05d}")
    guarded = (time.perf_counter() - started) / INDEX_ADDS
    plain = tmp / "plain.json"
    data = {"rentals": [f"r-{i:05d}" for i in range(INDEX_IDS)], "tools": [], "agents": []}
    started = time.perf_counter()
    for i in range(INDEX_ADDS):
        data["tools"].append(f"t-{i:05d}")
        plain.write_text(json.dumps(data, indent=2) + "\n")
    bare = (time.perf_counter() - started) / INDEX_ADDS
    return bare, guarded


def main() -> int:
    with tempfile.TemporaryDirectory(prefix="vap-bench-cred-") as name:
        tmp = Path(name)
        start = bench_cli_start(tmp)
        direct, guarded = bench_keystore(tmp)
        bare, indexed = bench_index(tmp)
    base = start["version"]
    ratio = start["profiles_env"] / base
    added_ms = (guarded - direct) * 1000

    def ms(seconds: float) -> str:
        return f"{seconds * 1000:.0f} ms"

    ok = print_table(
        "credentials",
        [
            (f"`vap --version` (median of {RUNS})", ms(base), "baseline", None),
            ("`vap profiles`, VAP_API_KEY set", f"{ms(start['profiles_env'])} = {ratio:.2f}x", "≤ 3x", ratio <= 3),
            ("`vap profiles`, keyring (null backend)",
             f"{ms(start['profiles_keyring'])} = {start['profiles_keyring'] / base:.2f}x", "reported", None),
            ("import textual + httpx + pydantic (avoided)",
             f"{ms(start['ui_stack'])} = {start['ui_stack'] / base:.2f}x", "reported", None),
            ("backend.get_password, direct", f"{direct * 1e6:.1f} µs", "baseline", None),
            ("KeyStore.get (thread + timeout)", f"{guarded * 1e6:.1f} µs", "", None),
            ("added per keyring call", f"{added_ms:.3f} ms", "< 1 ms", added_ms < 1.0),
            (f"bare JSON write, {INDEX_IDS} ids", f"{bare * 1000:.2f} ms", "baseline", None),
            ("LocalIndex.add (lock, fsync, replace)",
             f"{indexed * 1000:.2f} ms = {indexed / bare:.1f}x", "< 20 ms", indexed < 0.020),
        ],
    )
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
