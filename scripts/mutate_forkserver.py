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

With MUTATE_RECORD=PATH set, `run` records which tests run which line of MODULE into PATH; with
MUTATE_COVERAGE=PATH, each mutant runs only the tests that run its line (scripts/mutate_coverage.py).
"""

from __future__ import annotations

import contextlib
import gc
import json
import os
import select
import signal
import socket
import sys
import time

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

    import mutate_coverage

    for name in WARM:
        with contextlib.suppress(ImportError):
            importlib.import_module(name)
    src = os.environ["PYTHONPATH"].split(os.pathsep)[0]
    _independent_modules(src, target)
    filename = os.path.join(src, *target.split(".")) + ".py"
    coverages: dict[str, mutate_coverage.Coverage] = {}
    # What the server imported is never garbage: out of the collector's sight, pytest's five
    # gc.collect() per run (unraisableexception) no longer walk it in every child (0.4 s each),
    # nor touch its pages, which a fork shares until written.
    gc.collect()
    gc.freeze()
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
                started = time.monotonic()
                code, ran = _answer(request, filename, coverages)
                # Per mutant: seconds, exit code, tests run, for tuning the time budget.
                with open(os.path.join(request["cwd"], "mutants.log"), "a") as log:
                    log.write(f"{time.monotonic() - started:.2f} {code} {ran}\n")
                # A client cosmic-ray gave up on is gone: its answer is dropped, the server goes on.
                with contextlib.suppress(OSError):
                    conn.sendall(f"{code}\n".encode())


def _answer(request: dict, filename: str, coverages: dict) -> tuple[int, str]:
    """Runs the tests the request names, or (MUTATE_COVERAGE) those that run the mutated line."""
    import mutate_coverage

    plugins: list = []
    if request.get("record"):
        request["filename"] = filename
    elif request.get("coverage"):
        path = request["coverage"]
        if path not in coverages:
            coverages[path] = mutate_coverage.Coverage(path)
        with open(filename) as fh:
            mutated = fh.read()
        chosen = coverages[path].select(mutated)
        changed = sorted(mutate_coverage.changed_lines(coverages[path].source, mutated))
        new_line = mutated.splitlines()[changed[0] - 1].strip() if changed and changed[0] <= mutated.count("\n") else ""
        what = f"{len(chosen)} tests, lines {changed}: {new_line}"
        if not chosen:
            return 0, what  # no test runs the changed line: none can notice it
        files = {nodeid.split("::")[0] for nodeid in chosen}
        # Only the test files that hold a chosen test are collected (imported) at all.
        request["args"] = [a for a in request["args"]
                           if not a.startswith("tests/") or _holds(a, files)]
        plugins.append(mutate_coverage.Selector(chosen))
        return _run_child(request, plugins), what
    return _run_child(request, plugins), "every test"


def _holds(arg: str, files: set[str]) -> bool:
    where = arg.split("::")[0].rstrip("/")
    return any(f == where or f.startswith(where + "/") for f in files)


def _run_child(request: dict, plugins: list) -> int:
    pid = os.fork()
    if pid == 0:
        try:
            os.chdir(request["cwd"])
            os.setpgid(0, 0)  # its own group: a test's subprocesses end with it
            out = os.open(request.get("output") or os.devnull, os.O_WRONLY | os.O_CREAT | os.O_APPEND)
            os.dup2(out, 1)
            os.dup2(out, 2)
            import pytest

            if request.get("record"):
                import mutate_coverage

                plugins = mutate_coverage.plugins_recording(request["filename"], request["record"])
            code = pytest.main(request["args"], plugins=plugins)
            os._exit(int(code))
        except BaseException:  # noqa: BLE001 - a broken child is a failed test run
            os._exit(99)
    # Past the per-mutant budget (a mutant that loops for ever) the child's group is ended from here:
    # pytest-timeout re-arms SIGALRM for each test, so the child cannot time its whole run itself.
    pidfd = os.pidfd_open(pid)
    try:
        if not select.select([pidfd], [], [], float(request["timeout"]))[0]:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(pid, signal.SIGKILL)
    finally:
        os.close(pidfd)
    _, status = os.waitpid(pid, 0)
    return os.waitstatus_to_exitcode(status) if os.WIFEXITED(status) else 98


def run(path: str, args: list[str]) -> int:
    timeout = float(os.environ.get("MUTATE_TIMEOUT", "60"))
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as conn:
        conn.connect(path)
        request = {"cwd": os.getcwd(), "args": args, "timeout": timeout,
                   "record": os.environ.get("MUTATE_RECORD"), "coverage": os.environ.get("MUTATE_COVERAGE"),
                   "output": os.environ.get("MUTATE_OUTPUT")}
        conn.sendall((json.dumps(request) + "\n").encode())
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
