"""Fixtures the console tests share (the wizard's helpers: wizard_host.py; the console's: console_scenes.py).

``xdg_dirs``: config, data, state and cache dirs under tmp_path and no VAP_* variables, so no
test reads or writes the real profiles; a module takes it for every test with
``pytestmark = pytest.mark.usefixtures("xdg_dirs")``.
``fast_polls``: the rental screen polls every few hundredths of a second; a module takes it with
``pytestmark = pytest.mark.usefixtures("fast_polls")``. ``kyc_dir``: the working folder is the
test's tmp_path, with real KYC documents in ./kyc. ``make_host``: builds a wizard Host on a fresh
sandbox and VirtualClock, its documents in ./kyc (``make_host(key, **Host options)``).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.credentials.backends import isolate_xdg
from tests.e2e.documents import make_kyc_set
from tests.tui.wizard_host import Host, fast_schedule
from vap_console.credentials import LocalIndex
from vap_console.sandbox.clock import VirtualClock
from vap_console.tui.screens.rental import RentalScreen


@pytest.fixture
def xdg_dirs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, Path]:
    return isolate_xdg(tmp_path, monkeypatch)


@pytest.fixture
def fast_polls(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(RentalScreen, "schedule_factory", fast_schedule)


@pytest.fixture
def kyc_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    make_kyc_set(tmp_path / "kyc")
    return tmp_path / "kyc"


@pytest.fixture
def make_host(tmp_path: Path, kyc_dir: Path):  # a factory of Hosts
    def make(key: str = "sk_sandbox_agent", **kwargs) -> Host:
        index = LocalIndex("test", data_dir=tmp_path / "data")
        return Host(key=key, clock=VirtualClock(), index=index, docs_dir=Path("kyc"), **kwargs)

    return make
