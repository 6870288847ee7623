"""The ledger's tests write under tmp_path, never in the user's data directory."""

from __future__ import annotations

from pathlib import Path

import pytest

from vap_console.ledger import Ledger


@pytest.fixture
def ledger(tmp_path: Path) -> Ledger:
    return Ledger("work", data_dir=tmp_path)
