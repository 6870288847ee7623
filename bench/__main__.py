"""`make bench`: run every benchmark module in bench/ (each exposes main()) and print its table."""

from __future__ import annotations

import importlib
import pkgutil
import sys
import time
from pathlib import Path


def main(selected: list[str]) -> int:
    here = Path(__file__).parent
    names = sorted(m.name for m in pkgutil.iter_modules([str(here)]) if not m.name.startswith("_"))
    if selected:
        names = [n for n in names if n in selected]
    failed = 0
    for name in names:
        print(f"\n== bench/{name}.py ==", flush=True)
        started = time.perf_counter()
        module = importlib.import_module(f"bench.{name}")
        try:
            outcome = module.main()
            # main() returns an exit code (0 = goals met) or a bool (True = goals met).
            met = outcome if isinstance(outcome, bool) else not outcome
            failed += 0 if met else 1
        except Exception as exc:  # noqa: BLE001 - a broken benchmark must not hide the others' figures
            print(f"bench/{name}.py failed: {exc!r}")
            failed += 1
        print(f"({time.perf_counter() - started:.1f} s)")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
