"""Which calls ledger and id index a session keeps its records in: one per account (issue 32).

A call id means something only on the account that made it: kept in another account's ledger, its
record is "not found" there, and its cost lands in that account's Spend; a sandbox's ids in a real
account's ledger took over its rows. So the files are the account's, not the profile's: the
account is the server and the key together, and ``account_tag`` is a one-way fingerprint of the
two (sha256, 16 hex digits). The key itself is never in a path or a file.

* The profile's own key at its own base URL: ``calls/<profile>.sqlite3`` and
  ``index/<profile>.json``, where they always were (the ledger notes the account's fingerprint).
* Any other key or server (``VAP_API_KEY``, ``VAP_BASE_URL``): the profile's files when they note
  this very account; else ``calls/account-<tag>.sqlite3`` and ``index/account-<tag>.json``.
  A profile's ledger written before this rule notes no account: an environment key at the
  profile's own server takes it over (as it did then), so no one's history vanishes on upgrade.
  Likewise an environment session with no profile takes the ``default`` ledger it used before,
  unless its server is this machine (a sandbox: ids that repeat, never a real account's calls).

Blocking file I/O (SQLite): the console calls ``account_files`` off its UI loop.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from vap_console.cleartext import is_this_machine
from vap_console.credentials import KeyStore, LocalIndex, ProfilesFileError, ResolvedCredentials
from vap_console.credentials.index import write_atomically
from vap_console.credentials.keystore import env_api_key, env_base_url
from vap_console.ledger.schema import LedgerTooNew
from vap_console.ledger.store import Ledger, ledger_path

ACCOUNT_PREFIX = "account-"


def account_tag(base_url: str, key: str) -> str:
    """The account's fingerprint: one-way, so neither the key nor any part of it can be read back."""
    url = base_url.strip().rstrip("/").lower()
    return hashlib.sha256(f"vap-account\n{url}\n{key}".encode()).hexdigest()[:16]


@dataclass(frozen=True)
class AccountFiles:
    """Where one account's calls and ids are kept. ``name``: the profile's, or ``account-<tag>``."""

    name: str
    tag: str | None
    ledger: Ledger
    index: LocalIndex


def _same_url(a: str | None, b: str | None) -> bool:
    return bool(a) and bool(b) and str(a).strip().rstrip("/").lower() == str(b).strip().rstrip("/").lower()


def _profile_files(profile: str, tag: str | None, data_dir: Path | None) -> AccountFiles:
    return AccountFiles(profile, tag, Ledger(profile, data_dir=data_dir), LocalIndex(profile, data_dir=data_dir))


def account_files(store: KeyStore, creds: ResolvedCredentials, *, data_dir: Path | None = None) -> AccountFiles:
    """The files of the account ``creds`` reach (see the module's note)."""
    profile = creds.profile
    try:
        stored = store.profiles.get(profile)
    except ProfilesFileError:
        stored = None
    stored_url = stored.base_url if stored else None
    if not creds.key or not creds.base_url:
        return _profile_files(profile, None, data_dir)
    tag = account_tag(creds.base_url, creds.key)
    own_url = stored is not None and _same_url(creds.base_url, stored_url)
    if own_url and creds.source != "env":
        files = _profile_files(profile, tag, data_dir)
        _quietly(lambda: files.ledger.note_account(tag))
        return files
    name = ACCOUNT_PREFIX + tag
    index = LocalIndex(profile if stored is not None else name, data_dir=data_dir)
    if stored is None:
        _keep_env_index(index, creds.base_url, data_dir)
    if ledger_path(profile, data_dir).exists():
        ledger = Ledger(profile, data_dir=data_dir)
        noted = _quietly(ledger.account, "unreadable")
        host = urlsplit(creds.base_url).hostname or ""
        takes_over = noted is None and (own_url or (stored is None and not is_this_machine(host)))
        if noted == tag or (takes_over and _quietly(lambda: ledger.note_account(tag, unless_other=True))):
            return AccountFiles(profile, tag, ledger, index)
    files = AccountFiles(name, tag, Ledger(profile, path=ledger_path(name, data_dir)),
                         LocalIndex(name, data_dir=data_dir))
    _quietly(lambda: files.ledger.note_account(tag))
    return files


def _quietly(read: Callable[[], Any], otherwise: Any = None) -> Any:
    """A ledger read or note that may fail (a damaged or newer file): the choice goes on without
    it, and the ledger's own use says what is wrong where the person sees it (a toast, one line)."""
    try:
        return read()
    except (OSError, sqlite3.Error, LedgerTooNew):
        return otherwise


def env_index_name(base_url: str) -> str:
    """Where an environment session kept its ids before accounts were told apart: one per server."""
    import re

    host = urlsplit(base_url).netloc or base_url
    return ("env-" + re.sub(r"[^A-Za-z0-9_.-]", "-", host))[:64]


def _keep_env_index(index: LocalIndex, base_url: str, data_dir: Path | None) -> None:
    """The ids an environment session remembered per server, carried over once to its account's
    index (a copy: another key on that server finds them too, as it did)."""
    if index.path.exists():
        return
    old = LocalIndex(env_index_name(base_url), data_dir=data_dir)
    try:
        text = old.path.read_text(encoding="utf-8")
        json.loads(text)
    except (OSError, ValueError):
        return
    write_atomically(index.path, text)


def files_for(store: KeyStore, profile: str | None, *, data_dir: Path | None = None) -> AccountFiles:
    """The files a command means: the named (else active) profile's own unless the environment
    names another key or server, in which case they are that account's. The keyring is asked only
    when the environment changes the server but not the key."""
    name = store.profile_name(profile)
    if not env_api_key(store.env) and not env_base_url(store.env)[0]:
        return _profile_files(name, None, data_dir)
    return account_files(store, store.resolve(profile), data_dir=data_dir)
