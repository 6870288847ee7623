"""What a test run prints: every skip with its reason, no D-Bus daemon chatter among the results,
and no Hypothesis property that fails because the machine was busy."""

from __future__ import annotations

import ast
import gc
import shutil
import subprocess
from pathlib import Path

import pytest
from hypothesis import settings

ROOT = Path(__file__).resolve().parents[1]
HAS_BUS = shutil.which("dbus-run-session") is not None and shutil.which("gnome-keyring-daemon") is not None


@pytest.mark.slow
@pytest.mark.skipif(not HAS_BUS, reason="needs dbus-run-session and gnome-keyring-daemon (CI installs them)")
def test_scripts_test_prints_the_results_and_each_skips_reason_and_no_bus_log(tmp_path: Path) -> None:
    (tmp_path / "test_small.py").write_text(
        "import sys\n\nimport pytest\n\n"
        "def test_passes():\n    assert True\n\n"
        "def test_skips():\n    pytest.skip('the reason a person reads')\n\n"
        # What every pytest process of `make test` would pay again and again: compiling (and
        # rewriting the asserts of) what it imports when bytecode is not kept, and importing
        # Schemathesis's plugin, which no test uses (scripts/test says the cost).
        "def test_no_needless_start_up_work():\n"
        "    assert not sys.dont_write_bytecode\n"
        "    assert 'schemathesis' not in sys.modules\n"
    )
    done = subprocess.run([str(ROOT / "scripts" / "test"), "-q", "-p", "no:cacheprovider",
                           "-c", str(ROOT / "pyproject.toml"), str(tmp_path / "test_small.py")],
                          cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "2 passed, 1 skipped" in done.stdout
    assert "SKIPPED [1]" in done.stdout and "the reason a person reads" in done.stdout
    assert "dbus-daemon" not in done.stdout + done.stderr


def test_every_skip_in_the_suite_carries_its_reason() -> None:
    unexplained = []
    for path in sorted((ROOT / "tests").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.Call):
                continue
            name = ast.unparse(node.func)
            keywords = {k.arg for k in node.keywords}
            if name in ("pytest.skip", "pytest.mark.skip"):
                ok = bool(node.args) or "reason" in keywords
            elif name in ("pytest.mark.skipif", "pytest.importorskip", "pytest.mark.xfail"):
                ok = "reason" in keywords
            else:
                continue
            if not ok:
                unexplained.append(f"{path.relative_to(ROOT)}:{node.lineno}")
    assert unexplained == []


def test_no_property_fails_for_a_slow_machine() -> None:
    assert settings.default.deadline is None


def test_a_test_process_collects_its_garbage_without_walking_its_heap_every_few_tests() -> None:
    # tests/conftest.py says what the default thresholds cost (a fifth of a console test's CPU).
    young, _, full = gc.get_threshold()
    assert young >= 10_000 and full >= 100


# A worker whose full garbage collections are slow (a big heap on a busy machine), made slow on
# purpose: each full pass over more than BIG objects sleeps, so five of them outlast the 5 s that
# execnet gives a worker between its "finished" and the SIGINT it then sends it.
SLOW_HEAP = '''
import gc, time

BIG = 100_000
kept = [[n] for n in range(2 * BIG)]  # tracked objects that live as long as the worker


def slow_full_pass(phase, info):
    if phase == "start" and info["generation"] == 2 and len(gc.get_objects(generation=2)) > BIG:
        time.sleep(1.5)


def test_a_worker_with_a_big_heap():
    gc.callbacks.append(slow_full_pass)
'''


@pytest.mark.slow
def test_a_green_run_on_a_worker_with_a_slow_heap_ends_without_a_keyboard_interrupt(tmp_path: Path) -> None:
    (tmp_path / "test_heap.py").write_text(SLOW_HEAP)
    done = subprocess.run([str(ROOT / ".venv" / "bin" / "python"), "-m", "pytest", "-q", "-n", "1", "-p", "no:schemathesis",
                           "-p", "tests.conftest", "-p", "no:cacheprovider", str(tmp_path / "test_heap.py")],
                          cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "1 passed" in done.stdout
    assert "KeyboardInterrupt" not in done.stdout + done.stderr
