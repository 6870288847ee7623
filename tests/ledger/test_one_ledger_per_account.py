"""One calls ledger per account (issue 32 point 4): with VAP_API_KEY / VAP_BASE_URL set, a
sandbox's calls no longer land in the real account's Calls and Spend; the profile's own key at its
own server keeps the ledger it always had (a person's history does not vanish on upgrade); and the
key is never in a ledger's or an index's path or content (only a one-way fingerprint)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.credentials.backends import MemoryKeyring
from vap_console.credentials import KeyStore, ProfileStore
from vap_console.ledger import Ledger, ledger_path
from vap_console.ledger.accounts import account_files, account_tag, files_for

REAL = "https://api.example.com"
REAL_KEY = "rk_live_0123456789abcdefghijklmnopqrstuv"
SANDBOX = "http://127.0.0.1:8787"
SANDBOX_KEY = "sk_sandbox_agent"


def stores(tmp_path: Path) -> tuple[MemoryKeyring, ProfileStore]:
    keyring, profiles = MemoryKeyring(), ProfileStore(tmp_path / "config")
    profiles.add("work", REAL)
    KeyStore(profiles=profiles, backend=keyring, env={}).set("work", REAL_KEY)
    return keyring, profiles


def store(tmp_path: Path, **env: str) -> KeyStore:
    keyring, profiles = stores(tmp_path)
    return KeyStore(profiles=profiles, backend=keyring, env=env)


def files(tmp_path: Path, **env: str):
    keys = store(tmp_path, **env)
    return account_files(keys, keys.resolve(), data_dir=tmp_path / "data")


def test_the_profiles_own_key_keeps_the_ledger_where_it_always_was(tmp_path: Path) -> None:
    own = files(tmp_path)
    assert own.ledger.path == ledger_path("work", tmp_path / "data")
    assert own.index.path == tmp_path / "data" / "index" / "work.json"


def test_an_env_key_for_a_sandbox_keeps_its_calls_out_of_the_real_accounts_ledger(tmp_path: Path) -> None:
    own = files(tmp_path)
    own.ledger.record_started("real-call", "ua_priya", "web")
    sandbox = files(tmp_path, VAP_API_KEY=SANDBOX_KEY, VAP_BASE_URL=SANDBOX)
    assert sandbox.ledger.path != own.ledger.path and sandbox.index.path != own.index.path
    sandbox.ledger.record_started("sandbox-call", "ua_meera", "talk")
    assert [e.call_id for e in own.ledger.entries()] == ["real-call"]
    assert [e.call_id for e in sandbox.ledger.entries()] == ["sandbox-call"]
    # The profile's key sent to another server (VAP_BASE_URL alone) is another account too.
    elsewhere = files(tmp_path, VAP_BASE_URL=SANDBOX)
    assert elsewhere.ledger.path not in (own.ledger.path, sandbox.ledger.path)
    # And each opens its own again the next time.
    assert files(tmp_path, VAP_API_KEY=SANDBOX_KEY, VAP_BASE_URL=SANDBOX).ledger.path == sandbox.ledger.path
    assert files(tmp_path).ledger.path == own.ledger.path


def test_the_same_key_at_the_profiles_server_from_the_environment_finds_the_same_calls(tmp_path: Path) -> None:
    own = files(tmp_path)
    own.ledger.record_started("real-call", "ua_priya", "web")
    again = files(tmp_path, VAP_API_KEY=REAL_KEY)
    assert again.ledger.path == own.ledger.path
    other = files(tmp_path, VAP_API_KEY="rk_live_another_account_key_0000000000")
    assert other.ledger.path != own.ledger.path and other.ledger.entries() == []


def test_a_ledger_written_before_accounts_were_told_apart_is_still_shown(tmp_path: Path) -> None:
    # An older vap-console kept this profile's calls here, noting no account.
    Ledger("work", data_dir=tmp_path / "data").record_started("old-call", "ua_priya", "web")
    # Run on an environment key at the profile's own server (as it was then): the same history.
    env = files(tmp_path, VAP_API_KEY=REAL_KEY)
    assert [e.call_id for e in env.ledger.entries()] == ["old-call"]
    # Its own key from the keyring: the same file still.
    assert files(tmp_path).ledger.path == env.ledger.path
    # A sandbox's key never takes it over.
    sandbox = files(tmp_path, VAP_API_KEY=SANDBOX_KEY, VAP_BASE_URL=SANDBOX)
    assert sandbox.ledger.entries() == []


def test_an_env_session_with_no_profile_keeps_its_old_ids_and_calls(tmp_path: Path) -> None:
    from vap_console.credentials import LocalIndex
    from vap_console.ledger.accounts import env_index_name

    data = tmp_path / "data"
    LocalIndex(env_index_name(REAL), data_dir=data).add("tools", "tool_1")
    Ledger("default", data_dir=data).record_started("old-call", "ua_priya", "web")
    keys = KeyStore(profiles=ProfileStore(tmp_path / "none"), backend=MemoryKeyring(),
                    env={"VAP_API_KEY": REAL_KEY, "VAP_BASE_URL": REAL})
    real = files_for(keys, None, data_dir=data)
    assert [e.call_id for e in real.ledger.entries()] == ["old-call"] and real.index.ids("tools") == ["tool_1"]
    # A sandbox at this machine with no profile: its own ledger, not that history.
    sandbox_keys = KeyStore(profiles=ProfileStore(tmp_path / "none"), backend=MemoryKeyring(),
                            env={"VAP_API_KEY": SANDBOX_KEY, "VAP_BASE_URL": SANDBOX})
    assert files_for(sandbox_keys, None, data_dir=data).ledger.entries() == []


def test_the_fingerprint_is_one_way_and_tells_accounts_apart() -> None:
    tag = account_tag(REAL, REAL_KEY)
    assert len(tag) == 16 and REAL_KEY not in tag and REAL_KEY[-4:] not in tag
    assert account_tag(REAL + "/", REAL_KEY) == tag
    assert account_tag(SANDBOX, REAL_KEY) != tag and account_tag(REAL, SANDBOX_KEY) != tag


@pytest.mark.parametrize("env", [{}, {"VAP_API_KEY": REAL_KEY}, {"VAP_API_KEY": SANDBOX_KEY, "VAP_BASE_URL": SANDBOX},
                                 {"VAP_BASE_URL": SANDBOX}])
def test_no_ledger_or_index_path_or_content_holds_a_key(tmp_path: Path, env: dict[str, str]) -> None:
    chosen = files(tmp_path, **env)
    chosen.ledger.record_started("call-1", "ua_priya", "web")
    chosen.index.add("tools", "tool_1")
    data = tmp_path / "data"
    for key in (REAL_KEY, SANDBOX_KEY):
        for path in data.rglob("*"):
            assert key not in str(path) and key[-8:] not in str(path)
            if path.is_file():
                assert key.encode() not in path.read_bytes()


@pytest.mark.parametrize("env", [{}, {"VAP_API_KEY": REAL_KEY}])
def test_a_damaged_ledger_does_not_stop_the_choice(tmp_path: Path, env: dict[str, str]) -> None:
    """The console starts (its ledger's own use says what is wrong, in a toast), rather than not at all."""
    path = ledger_path("work", tmp_path / "data")
    path.parent.mkdir(parents=True)
    path.write_bytes(b"not a database" * 100)
    chosen = files(tmp_path, **env)
    assert chosen.ledger.path.parent == path.parent
