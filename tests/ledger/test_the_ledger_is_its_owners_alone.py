"""The ledger holds every transcript: the file, its -wal and -shm (made by SQLite later, whatever
the umask) are 0600 in a 0700 folder; a ledger left 0644 by an older version is narrowed when
next opened (another user of the machine read every transcript)."""

from __future__ import annotations

import os
import sqlite3
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest

from vap_console.ledger import Ledger


def mode(path: Path) -> int:
    return stat.S_IMODE(os.stat(path).st_mode)


@pytest.fixture
def open_umask() -> Iterator[None]:
    """As on a machine whose umask lets everyone read new files."""
    old = os.umask(0o022)
    try:
        yield
    finally:
        os.umask(old)


def test_a_new_ledger_its_wal_and_shm_are_readable_by_the_owner_only(tmp_path: Path, open_umask: None) -> None:
    ledger = Ledger("work", data_dir=tmp_path)
    ledger.record_started("call-1", "ua_priya", "talk")
    # A reader holding the file open keeps the -wal and -shm there to be looked at.
    reader = sqlite3.connect(ledger.path)
    try:
        reader.execute("SELECT count(*) FROM calls").fetchone()
        ledger.record_started("call-2", "ua_priya", "talk")
        wal, shm = (ledger.path.with_name(ledger.path.name + end) for end in ("-wal", "-shm"))
        assert wal.exists() and shm.exists()
        assert (mode(ledger.path), mode(wal), mode(shm)) == (0o600, 0o600, 0o600)
        assert mode(ledger.path.parent) == 0o700
    finally:
        reader.close()


def test_a_ledger_an_older_version_left_open_to_all_is_narrowed(tmp_path: Path, open_umask: None) -> None:
    path = Ledger("work", data_dir=tmp_path).path
    path.parent.mkdir(parents=True)
    os.chmod(path.parent, 0o755)
    # An older console still running: it holds the file open, so its -wal and -shm stay.
    older = sqlite3.connect(path)
    try:
        older.execute("PRAGMA journal_mode = WAL")
        older.execute("CREATE TABLE t (x)")
        ends = [path.with_name(path.name + end) for end in ("", "-wal", "-shm")]
        for each in ends:
            os.chmod(each, 0o644)
        Ledger("work", data_dir=tmp_path).record_started("call-1", "ua_priya", "talk")
        assert [mode(each) for each in ends] == [0o600, 0o600, 0o600]
        assert mode(path.parent) == 0o700
    finally:
        older.close()
