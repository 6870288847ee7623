"""Which tests run which line of the mutated module, so that each mutant runs only the tests that
can notice it (`make mutate`'s time budget: 15 minutes on 2 cores for every module).

Recorded once per module, on the unmutated code, in the warm pytest's child (`Recorder`, a pytest
plugin with a line tracer on the module's file, in every thread): for each test, the lines it ran
and how long it took. A mutant then runs (`select`):

- when it changes a line that runs at import (outside any function body: a constant, a decorator,
  a default, a class body) — every test, since any of them may depend on it;
- otherwise the tests that ran any line of the changed statement (its header, for an `if`, `for`,
  `with`, `except` …), fastest first (`-x` stops at the first failure);
- plus, always, the tests that started a subprocess: what a child process runs cannot be traced;
- none when no test runs the line: the mutant survives without a run (no test could notice it).
"""

from __future__ import annotations

import ast
import difflib
import json
import subprocess
import sys
import threading
import time
from typing import Any

import pytest

OUTSIDE = "<import>"  # lines run outside any test: collection, imports


class Recorder:
    """A pytest plugin: the lines of ``filename`` each test runs, and each test's seconds."""

    def __init__(self, filename: str, out: str) -> None:
        self.filename = filename
        self.out = out
        self.current = OUTSIDE
        self.lines: dict[str, set[int]] = {}
        self.seconds: dict[str, float] = {}
        self.spawns: set[str] = set()
        original = subprocess.Popen.__init__
        recorder = self

        def spawn(popen: subprocess.Popen, *args: Any, **kwargs: Any) -> None:
            recorder.spawns.add(recorder.current)
            original(popen, *args, **kwargs)

        subprocess.Popen.__init__ = spawn  # type: ignore[method-assign]

    def start(self) -> None:
        threading.settrace(self._call)
        sys.settrace(self._call)

    def _call(self, frame: Any, event: str, arg: object) -> Any:
        return self._line if frame.f_code.co_filename == self.filename else None

    def _line(self, frame: Any, event: str, arg: object) -> Any:
        if event == "line":
            self.lines.setdefault(self.current, set()).add(frame.f_lineno)
        return self._line

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_protocol(self, item: Any, nextitem: Any) -> Any:
        self.current = item.nodeid
        started = time.perf_counter()
        yield
        self.seconds[item.nodeid] = time.perf_counter() - started
        self.current = OUTSIDE

    def pytest_sessionfinish(self, session: Any, exitstatus: int) -> None:
        sys.settrace(None)
        threading.settrace(None)  # type: ignore[arg-type]
        with open(self.filename) as fh:
            source = fh.read()
        with open(self.out, "w") as fh:
            json.dump({
                "source": source,
                "seconds": self.seconds,
                "lines": {k: sorted(v) for k, v in self.lines.items()},
                "spawns": sorted(self.spawns - {OUTSIDE}),
            }, fh)


def plugins_recording(filename: str, out: str) -> list[Any]:
    recorder = Recorder(filename, out)
    recorder.start()
    return [recorder]


class Selector:
    """A pytest plugin keeping only the chosen tests, in the order given."""

    def __init__(self, chosen: list[str]) -> None:
        self.order = {nodeid: i for i, nodeid in enumerate(chosen)}

    def pytest_collection_modifyitems(self, session: Any, config: Any, items: list[Any]) -> None:
        kept = sorted((i for i in items if i.nodeid in self.order), key=lambda i: self.order[i.nodeid])
        dropped = [i for i in items if i.nodeid not in self.order]
        if dropped:
            config.hook.pytest_deselected(items=dropped)
        items[:] = kept


def _runtime_lines(tree: ast.Module) -> set[int]:
    """Lines inside a function body: they run when called, not at import."""
    inside: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            inside.update(range(node.body[0].lineno, node.body[-1].end_lineno + 1))  # type: ignore[operator]
    return inside


def _statement_lines(tree: ast.Module, line: int) -> set[int]:
    """The lines of the innermost statement holding ``line``: for a compound one, its header."""
    best: tuple[int, int] | None = None
    for node in ast.walk(tree):
        if not isinstance(node, (ast.stmt, ast.ExceptHandler)):
            continue
        start, end = node.lineno, node.end_lineno or node.lineno
        body = getattr(node, "body", None)
        if isinstance(body, list) and body and isinstance(body[0], ast.stmt):
            end = max(start, body[0].lineno - 1)  # the header (a one-line `if x: y` is its line)
        if start <= line <= end and (best is None or end - start <= best[1] - best[0]):
            best = (start, end)
    return set(range(best[0], best[1] + 1)) if best else {line}


def changed_lines(before: str, after: str) -> set[int]:
    """The original's lines (1-based) the mutant changed."""
    changed: set[int] = set()
    matcher = difflib.SequenceMatcher(None, before.splitlines(), after.splitlines(), autojunk=False)
    for tag, i1, i2, _, _ in matcher.get_opcodes():
        if tag == "insert":  # between two lines: both
            changed.update({i1, i1 + 1} - {0})
        elif tag != "equal":
            changed.update(range(i1 + 1, i2 + 1))
    return changed


class Coverage:
    def __init__(self, path: str) -> None:
        with open(path) as fh:
            data = json.load(fh)
        self.source: str = data["source"]
        self.tree = ast.parse(self.source)
        self.runtime = _runtime_lines(self.tree)
        self.seconds: dict[str, float] = data["seconds"]
        self.spawns: set[str] = set(data["spawns"])
        self.by_line: dict[int, set[str]] = {}
        for test, lines in data["lines"].items():
            if test != OUTSIDE:
                for line in lines:
                    self.by_line.setdefault(line, set()).add(test)

    def fastest_first(self, tests: set[str]) -> list[str]:
        return sorted(tests, key=lambda t: (self.seconds.get(t, 0.0), t))

    def select(self, mutated: str) -> list[str]:
        """The tests to run against this mutant's source, fastest first ([]: none runs it)."""
        changed = changed_lines(self.source, mutated)
        if not changed or not changed <= self.runtime:
            return self.fastest_first(set(self.seconds))
        chosen = set(self.spawns)
        for line in changed:
            for near in _statement_lines(self.tree, line):
                chosen |= self.by_line.get(near, set())
        return self.fastest_first(chosen)
