"""Credentials tests run against throwaway XDG dirs and an in-memory keyring, except those
marked ``secret_service``, which need the real one that scripts/test starts."""

from __future__ import annotations

import os
import threading
from pathlib import Path

import keyring
import keyring.backend
import keyring.errors
import pytest
from keyring.compat import properties


class _TestOnly(keyring.backend.KeyringBackend):
    """Never picked by keyring's own detection: only installed with keyring.set_keyring."""

    @properties.classproperty
    def priority(cls) -> float:
        raise RuntimeError("test-only backend")

    def get_password(self, service: str, username: str) -> str | None:
        raise NotImplementedError

    def set_password(self, service: str, username: str, password: str) -> None:
        raise NotImplementedError

    def delete_password(self, service: str, username: str) -> None:
        raise NotImplementedError


class MemoryKeyring(_TestOnly):
    def __init__(self) -> None:
        super().__init__()
        self.items: dict[tuple[str, str], str] = {}

    def get_password(self, service: str, username: str) -> str | None:
        return self.items.get((service, username))

    def set_password(self, service: str, username: str, password: str) -> None:
        self.items[(service, username)] = password

    def delete_password(self, service: str, username: str) -> None:
        try:
            del self.items[(service, username)]
        except KeyError:
            raise keyring.errors.PasswordDeleteError("not found") from None


class FailingKeyring(_TestOnly):
    """Raises ``error`` from every call, the way a broken or absent backend does."""

    def __init__(self, error: BaseException) -> None:
        super().__init__()
        self.error = error

    def get_password(self, service: str, username: str) -> str | None:
        raise self.error

    def set_password(self, service: str, username: str, password: str) -> None:
        raise self.error

    def delete_password(self, service: str, username: str) -> None:
        raise self.error


class HangingKeyring(_TestOnly):
    """Blocks like a locked Secret Service waiting on an unlock prompt nobody answers."""

    def __init__(self) -> None:
        super().__init__()
        self.release = threading.Event()

    def _hang(self) -> None:
        self.release.wait(30)

    def get_password(self, service: str, username: str) -> str | None:
        self._hang()
        return None

    def set_password(self, service: str, username: str, password: str) -> None:
        self._hang()

    def delete_password(self, service: str, username: str) -> None:
        self._hang()


@pytest.fixture(autouse=True)
def xdg_dirs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, Path]:
    dirs = {}
    for name in ("CONFIG", "DATA", "STATE", "CACHE"):
        path = tmp_path / "xdg" / name.lower()
        path.mkdir(parents=True)
        monkeypatch.setenv(f"XDG_{name}_HOME", str(path))
        dirs[name.lower()] = path
    monkeypatch.delenv("VAP_API_KEY", raising=False)
    monkeypatch.delenv("VAP_BASE_URL", raising=False)
    return dirs


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
