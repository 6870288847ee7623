"""Keyring backends for tests: in memory, failing, hanging. None is ever picked by keyring's own
detection; a test installs one with keyring.set_keyring or passes it to KeyStore(backend=...)."""

from __future__ import annotations

import threading
from pathlib import Path

import keyring.backend
import keyring.errors
import pytest
from keyring.compat import properties


class _TestOnly(keyring.backend.KeyringBackend):
    """Never picked by keyring's own detection: only installed with keyring.set_keyring."""

    @properties.classproperty
    def priority(cls) -> float:  # noqa: N805 - keyring's classproperty passes the class
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


def isolate_xdg(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, Path]:
    """Point platformdirs' config, data, state and cache dirs at ``tmp_path``; drop VAP_* env."""
    dirs = {}
    for name in ("CONFIG", "DATA", "STATE", "CACHE"):
        path = tmp_path / "xdg" / name.lower()
        path.mkdir(parents=True, exist_ok=True)
        monkeypatch.setenv(f"XDG_{name}_HOME", str(path))
        dirs[name.lower()] = path
    monkeypatch.delenv("VAP_API_KEY", raising=False)
    monkeypatch.delenv("VAP_BASE_URL", raising=False)
    return dirs


class NeverAnswers(_TestOnly):
    """A Secret Service that never answers at all (for a real `vap` process, installed through
    PYTHON_KEYRING_BACKEND): whatever waits on it waits for ever."""

    @properties.classproperty
    def priority(cls) -> float:  # noqa: N805 - keyring asks when the environment names it
        return 1

    def _hang(self) -> None:
        threading.Event().wait()

    def get_password(self, service: str, username: str) -> str | None:
        self._hang()
        return None

    def set_password(self, service: str, username: str, password: str) -> None:
        self._hang()

    def delete_password(self, service: str, username: str) -> None:
        self._hang()
