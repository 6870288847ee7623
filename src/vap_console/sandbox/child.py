"""The child process behind ``process.start_in_process``:

    python -m vap_console.sandbox.child SPEED

Serves a fresh sandbox on a free loopback port, prints its base URL on one line, and stops when
its stdin reaches end of file (the console closed the pipe or exited).
"""

from __future__ import annotations

import sys


def main(argv: list[str]) -> int:
    from vap_console.sandbox.server import start_in_thread

    speed = float(argv[0]) if argv else 1.0
    with start_in_thread(speed=speed) as running:
        print(running.base_url, flush=True)
        while sys.stdin.buffer.read(65536):
            pass
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv[1:]))
    except KeyboardInterrupt:
        sys.exit(130)
