"""A per-profile list of resource ids the console created or the user added.

Servers without the list extensions (GET /v1/phone-numbers, /v1/tools, /v1/agents) cannot say
what exists, so the console remembers ids itself. Ids only: never a name, a number, personal
data or a key — the file is plain JSON in the user's data dir.
"""

from __future__ import annotations

import json
import os
import re
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Literal, get_args

import platformdirs

from vap_console.credentials.names import CredentialsInputError, check_profile_name

APP_NAME = "vap-console"

Kind = Literal["rentals", "tools", "agents"]
KINDS: tuple[str, ...] = get_args(Kind)

# uuids, ua_<handle>, tool ids: no spaces, no "@" or "+" so an e-mail or E.164 number cannot slip in.
_ID_RE = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.:-]{0,127}")


def default_data_dir() -> Path:
    return platformdirs.user_data_path(APP_NAME)


def write_atomically(path: Path, text: str) -> None:
    """Replace ``path`` with ``text`` so a reader sees the old file or the new one, never half."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _check_kind(kind: str) -> str:
    # Screens say "rental", the file says "rentals": both name the same list.
    if kind + "s" in KINDS:
        kind += "s"
    if kind not in KINDS:
        raise CredentialsInputError(f"index kind {kind!r}: must be one of {', '.join(KINDS)}")
    return kind


def check_id(resource_id: str) -> str:
    resource_id = resource_id.strip()
    if not _ID_RE.fullmatch(resource_id):
        raise CredentialsInputError(
            f"id {resource_id[:40]!r}: use 1 to 128 letters, digits, '_', '.', ':' or '-' "
            "(an id, not a name or number)"
        )
    return resource_id


class LocalIndex:
    """The ids of one profile, in the order they were added, stored in ``index/<profile>.json``."""

    def __init__(self, profile: str, *, data_dir: Path | None = None) -> None:
        self.profile = check_profile_name(profile)
        self.path = (data_dir or default_data_dir()) / "index" / f"{self.profile}.json"

    def __repr__(self) -> str:
        return f"LocalIndex(profile={self.profile!r}, path={str(self.path)!r})"

    def _read(self) -> dict[str, list[str]]:
        try:
            raw = json.loads(self.path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            raw = {}
        except (OSError, ValueError):
            # A damaged index must not stop the console; keep the bytes aside for the user.
            self.path.replace(self.path.with_suffix(".json.corrupt"))
            raw = {}
        data: dict[str, list[str]] = {kind: [] for kind in KINDS}
        if isinstance(raw, dict):
            for kind in KINDS:
                items = raw.get(kind)
                if isinstance(items, list):
                    data[kind] = [i for i in items if isinstance(i, str) and _ID_RE.fullmatch(i)]
        return data

    def _write(self, data: dict[str, list[str]]) -> None:
        write_atomically(self.path, json.dumps(data, indent=2) + "\n")

    @contextmanager
    def _locked(self) -> Iterator[None]:
        # The console and `vap rental watch` may update one index at once: serialise the
        # read-modify-write so neither loses the other's id.
        try:
            import fcntl
        except ImportError:  # Windows: atomic replace alone
            yield
            return
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with open(self.path.with_suffix(".lock"), "a") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            try:
                yield
            finally:
                fcntl.flock(lock, fcntl.LOCK_UN)

    def ids(self, kind: str) -> list[str]:
        """The ids of ``kind`` ("rentals"/"rental", "tools"/"tool", "agents"/"agent")."""
        return self._read()[_check_kind(kind)]

    def add(self, kind: str, resource_id: str) -> bool:
        """Remember ``resource_id``; False when it was already there."""
        kind = _check_kind(kind)
        resource_id = check_id(resource_id)
        with self._locked():
            data = self._read()
            if resource_id in data[kind]:
                return False
            data[kind].append(resource_id)
            self._write(data)
        return True

    def remove(self, kind: str, resource_id: str) -> bool:
        """Forget ``resource_id``; False when it was not there."""
        kind = _check_kind(kind)
        with self._locked():
            data = self._read()
            if resource_id not in data[kind]:
                return False
            data[kind].remove(resource_id)
            self._write(data)
        return True

    def drop(self) -> None:
        """Delete the whole index (``vap logout --forget``)."""
        self.path.unlink(missing_ok=True)
        self.path.with_suffix(".lock").unlink(missing_ok=True)
