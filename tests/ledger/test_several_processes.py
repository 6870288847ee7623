"""The ledger from several processes at once (issue 25 point 1): a reader does not wait for a writer,
two writers lose nothing, and a writer killed mid-write (SIGKILL) leaves a file that opens and holds
every committed call."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

from vap_console.ledger import Ledger

ROOT = Path(__file__).resolve().parents[2]


def _writer(path: Path, prefix: str, count: int) -> subprocess.Popen[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src") + os.pathsep + str(ROOT)}
    return subprocess.Popen([sys.executable, "-m", "tests.ledger.writer", str(path), prefix, str(count)],
                            cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def test_the_list_is_read_while_another_process_is_writing(tmp_path: Path) -> None:
    ledger = Ledger("work", path=tmp_path / "calls.sqlite3")
    ledger.record_started("c1", "ua_front", "web")
    other = sqlite3.connect(ledger.path, isolation_level=None)  # `vap calls place` mid-write, say
    try:
        other.execute("BEGIN IMMEDIATE")
        other.execute("INSERT INTO calls (call_id, kind, noted_at) VALUES ('c2', 'web', '2026-11-26T09:00:00Z')")
        # No waiting for that writer (it would end in "database is locked"): what is committed is read.
        assert [e.call_id for e in ledger.entries()] == ["c1"]
        other.execute("COMMIT")
    finally:
        other.close()
    assert {e.call_id for e in ledger.entries()} == {"c1", "c2"}


def test_two_processes_writing_at_once_lose_nothing(tmp_path: Path) -> None:
    path = tmp_path / "calls.sqlite3"
    Ledger("work", path=path).count()  # the file made and migrated once, before the race
    writers = [_writer(path, name, 120) for name in ("console", "cli")]
    for writer in writers:
        _out, err = writer.communicate(timeout=120)
        assert writer.returncode == 0, err
    ids = {e.call_id for e in Ledger("work", path=path).entries()}
    assert ids == {f"{name}-{n}" for name in ("console", "cli") for n in range(120)}


def test_a_writer_killed_mid_write_loses_no_committed_call(tmp_path: Path) -> None:
    path = tmp_path / "calls.sqlite3"
    writer = _writer(path, "killed", 100_000)
    assert writer.stdout is not None
    committed: list[int] = []
    deadline = time.monotonic() + 60
    while len(committed) < 50 and time.monotonic() < deadline:
        line = writer.stdout.readline()
        if not line:
            break
        committed.append(int(line))
    os.kill(writer.pid, signal.SIGKILL)
    writer.wait(timeout=30)
    assert writer.returncode == -signal.SIGKILL and len(committed) >= 50
    ledger = Ledger("work", path=path)
    ids = {e.call_id for e in ledger.entries()}
    assert {f"killed-{n}" for n in committed} <= ids
    ledger.record_started("after", "a", "web")  # and it still takes writes
    assert ledger.get("after") is not None
