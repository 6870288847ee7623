"""Credentials tests run against throwaway XDG dirs and an in-memory keyring, except those
marked ``secret_service``, which need the real one that scripts/test starts."""

from __future__ import annotations

import os
from pathlib import Path

import keyring
import keyring.backend
import pytest

from .backends import FailingKeyring, HangingKeyring, MemoryKeyring, isolate_xdg

__all__ = ["FailingKeyring", "HangingKeyring", "MemoryKeyring"]


@pytest.fixture(autouse=True)
def xdg_dirs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, Path]:
    return isolate_xdg(tmp_path, monkeypatch)


@pytest.fixture
def memory_keyring() -> MemoryKeyring:
    previous = keyring.get_keyring()
    backend = MemoryKeyring()
    keyring.set_keyring(backend)
    yield backend
    keyring.set_keyring(previous)


@pytest.fixture
def hanging_keyring() -> HangingKeyring:
    previous = keyring.get_keyring()
    backend = HangingKeyring()
    keyring.set_keyring(backend)
    yield backend
    backend.release.set()
    keyring.set_keyring(previous)


@pytest.fixture
def secret_service() -> keyring.backend.KeyringBackend:
    """The real Secret Service of the private D-Bus session scripts/test starts."""
    if os.environ.get("VAP_SECRET_SERVICE") != "1":
        pytest.skip(
            "needs a real Secret Service: run `make test` (or scripts/test) on a machine with "
            "gnome-keyring and dbus-daemon installed"
        )
    from keyring.backends import SecretService

    previous = keyring.get_keyring()
    backend = SecretService.Keyring()
    keyring.set_keyring(backend)
    yield backend
    keyring.set_keyring(previous)
