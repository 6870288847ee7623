"""A separate process writing calls into a ledger: ``python -m tests.ledger.writer PATH PREFIX N``.

Prints the number of each call once its write has returned (committed), so a test killing it
knows which rows must be in the file."""

from __future__ import annotations

import sys
from pathlib import Path

from vap_console.ledger import Ledger


def main() -> None:
    path, prefix, count = Path(sys.argv[1]), sys.argv[2], int(sys.argv[3])
    ledger = Ledger("work", path=path)
    for n in range(count):
        ledger.record_started(f"{prefix}-{n}", "ua_front", "web")
        print(n, flush=True)


if __name__ == "__main__":
    main()
