"""Which profile a command is missing, and what the person is told to do about it, decided before
any keyring is asked (in-process, through `vap tools list`; tests/scripting/test_no_profile.py runs
the same as real processes): no profiles at all, a profile named that does not exist among others or
among none, and the cases where nothing is missing (a key in the environment, a saved profile)."""

from __future__ import annotations

from pathlib import Path

import httpx

from tests.scripting.conftest import BASE_URL
from vap_console.api import VapClient
from vap_console.credentials import SERVICE, KeyStore, ProfileStore
from vap_console.scripting.base import Session
from vap_console.scripting.root import run

from .backends import MemoryKeyring


class AskedKeyring(MemoryKeyring):
    """Holds keys in memory and counts how often it was asked."""

    def __init__(self) -> None:
        super().__init__()
        self.asked = 0

    def get_password(self, service: str, username: str) -> str | None:
        self.asked += 1
        return super().get_password(service, username)


def _tools_list(sandbox_app, tmp_path: Path, capsys, *, env: dict[str, str] | None = None,
                profiles: tuple[str, ...] = (), profile: str | None = None) -> tuple[int, str, AskedKeyring]:
    saved = ProfileStore(tmp_path / "config")
    backend = AskedKeyring()
    for name in profiles:
        saved.add(name, BASE_URL)
        backend.set_password(SERVICE, name, f"sk_sandbox_{name}")  # the sandbox knows sk_sandbox_agent
    store = KeyStore(profiles=saved, env=env or {}, backend=backend)
    session = Session(client_factory=lambda url, k: VapClient(url, k, transport=httpx.ASGITransport(app=sandbox_app)),
                      keystore=store, terminal_out=False, terminal_in=False, data_dir=tmp_path / "data")
    capsys.readouterr()
    code = run([*(("--profile", profile) if profile else ()), "tools", "list", "--json"], session)
    return code, capsys.readouterr().err, backend


def test_no_profile_and_no_key_in_the_environment_says_to_run_vap_login(sandbox_app, tmp_path: Path, capsys) -> None:
    code, err, backend = _tools_list(sandbox_app, tmp_path, capsys)
    assert code == 2 and err.startswith("vap: No profiles yet: run `vap login`") and "VAP_API_KEY" in err, err
    assert backend.asked == 0


def test_a_key_in_the_environment_needs_no_profile(sandbox_app, tmp_path: Path, capsys) -> None:
    code, err, _ = _tools_list(sandbox_app, tmp_path, capsys,
                               env={"VAP_API_KEY": "sk_sandbox_agent", "VAP_BASE_URL": BASE_URL})
    assert code == 0, err


def test_the_active_profile_s_key_is_used(sandbox_app, tmp_path: Path, capsys) -> None:
    code, err, backend = _tools_list(sandbox_app, tmp_path, capsys, profiles=("agent",))
    assert code == 0 and backend.asked == 1, err


def test_a_profile_named_when_there_are_none_says_there_are_none(sandbox_app, tmp_path: Path, capsys) -> None:
    code, err, backend = _tools_list(sandbox_app, tmp_path, capsys, profile="work")
    assert code == 2 and backend.asked == 0
    assert err.startswith("vap: No profile work: there are no profiles yet; `vap login --profile work` adds it"), err


def test_a_profile_named_among_others_says_where_they_are_listed(sandbox_app, tmp_path: Path, capsys) -> None:
    code, err, backend = _tools_list(sandbox_app, tmp_path, capsys, profiles=("agent",), profile="work")
    assert code == 2 and backend.asked == 0
    assert err.startswith("vap: No profile work: `vap profiles` lists them; `vap login --profile work` adds it"), err
