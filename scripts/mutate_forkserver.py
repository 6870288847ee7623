"""A warm pytest for `make mutate`: one process imports pytest and the libraries once, then forks a
child per mutant that runs pytest on the code as it is on disk at that moment.

Why: cosmic-ray runs its test command once per mutant, and a cold pytest here spends about a
second of CPU importing httpx, Starlette, pydantic, the sandbox and the plugins before the first
test runs, which alone would take a 1,000-mutant run past 15 minutes on 2 cores. The server also
imports every vap_console module that does not import MODULE (the one being mutated), found by
refusing MODULE's import and dropping whatever needed it: each child imports MODULE and all that
depends on it fresh, as mutated on disk. The tests themselves are never imported by the server.

    python scripts/mutate_forkserver.py serve SOCKET MODULE  # started by scripts/mutate
    python scripts/mutate_forkserver.py run SOCKET ARGS…  # cosmic-ray's test-command
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import socket
import sys

# Heavy, and never mutated: imported once in the server, shared by every forked child.
WARM = (
    "pytest", "_pytest.python", "pytest_asyncio", "pytest_timeout", "httpx", "httpcore", "h11",
    "anyio", "starlette.applications", "starlette.routing", "uvicorn", "pydantic", "keyring",
    "platformdirs", "tomli_w", "click", "hypothesis", "multipart",
)


class _Refuse:
    """A meta-path finder refusing one module: what imports it fails, and is dropped."""

    def __init__(self, name: str) -> None:
        self.name = name

    def find_spec(self, name: str, path: object, target: object = None) -> None:
        if name == self.name:
            raise ImportError(f"{name} is imported fresh by each child")


def _independent_modules(src: str, target: str) -> None:
    import importlib
    from pathlib import Path

    root = Path(src)
    names = sorted(
        ".".join(p.relative_to(root).with_suffix("").parts).removesuffix(".__init__")
        for p in (root / "vap_console").rglob("*.py")
    )
    refuse = _Refuse(target)
    sys.meta_path.insert(0, refuse)
    try:
        for name in names:
            if name.startswith(("vap_console.tui", "vap_console.web")) or name.endswith("__main__"):
                continue  # Textual: not what these tests need
            before = set(sys.modules)
            try:
                importlib.import_module(name)
            except Exception:  # noqa: BLE001 - it needs the target (or cannot load here): fresh in each child
                for added in set(sys.modules) - before:
                    del sys.modules[added]
    finally:
        sys.meta_path.remove(refuse)
    assert target not in sys.modules


def serve(path: str, target: str) -> None:
    import importlib

    for name in WARM:
        with contextlib.suppress(ImportError):
            importlib.import_module(name)
    _independent_modules(os.environ["PYTHONPATH"].split(os.pathsep)[0], target)
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as server:
        server.bind(path)
        server.listen(4)
        signal.signal(signal.SIGCHLD, signal.SIG_DFL)
        while True:
            conn, _ = server.accept()
            with conn:
                request = json.loads(conn.makefile("r").readline())
                if request.get("stop"):
                    return
                code = _run_child(request)
                # A client cosmic-ray gave up on is gone: its answer is dropped, the server goes on.
                with contextlib.suppress(OSError):
                    conn.sendall(f"{code}\n".encode())


def _run_child(request: dict) -> int:
    pid = os.fork()
    if pid == 0:
        try:
            os.chdir(request["cwd"])
            # The child ends itself past the per-mutant budget (a mutant that loops for ever).
            signal.alarm(int(request["timeout"]))
            out = os.open(os.devnull, os.O_WRONLY)
            os.dup2(out, 1)
            os.dup2(out, 2)
            import pytest

            code = pytest.main(request["args"])
            os._exit(int(code))
        except BaseException:  # noqa: BLE001 - a broken child is a failed test run
            os._exit(99)
    _, status = os.waitpid(pid, 0)
    return os.waitstatus_to_exitcode(status) if os.WIFEXITED(status) else 98


def run(path: str, args: list[str]) -> int:
    timeout = float(os.environ.get("MUTATE_TIMEOUT", "60"))
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as conn:
        conn.connect(path)
        conn.sendall((json.dumps({"cwd": os.getcwd(), "args": args, "timeout": timeout}) + "\n").encode())
        answer = conn.makefile("r").readline().strip()
    return int(answer or 97)


def stop(path: str) -> None:
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as conn:
        conn.connect(path)
        conn.sendall(b'{"stop": true}\n')


if __name__ == "__main__":
    command, sock = sys.argv[1], sys.argv[2]
    if command == "serve":
        serve(sock, sys.argv[3])
    elif command == "stop":
        stop(sock)
    else:
        sys.exit(run(sock, sys.argv[3:]))
