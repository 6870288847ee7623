"""RUMIK_API_KEY / RUMIK_BASE_URL (the vendor SDK's names) stand in when the VAP_ ones are unset."""

from __future__ import annotations

from pathlib import Path

from vap_console.credentials import KeyStore, ProfileStore


def store(tmp_path: Path, env: dict[str, str]) -> KeyStore:
    return KeyStore(profiles=ProfileStore(tmp_path), env=env)


def test_rumik_variables_are_used_when_vap_ones_are_unset(tmp_path: Path) -> None:
    creds = store(tmp_path, {"RUMIK_API_KEY": "rk_live_rumik1234", "RUMIK_BASE_URL": "https://r.example"}).resolve()
    assert (creds.key, creds.source, creds.base_url) == ("rk_live_rumik1234", "env", "https://r.example")


def test_vap_variables_win_over_rumik_ones(tmp_path: Path) -> None:
    env = {"RUMIK_API_KEY": "rk_live_rumik1234", "RUMIK_BASE_URL": "https://r.example",
           "VAP_API_KEY": "rk_live_vap12345", "VAP_BASE_URL": "https://v.example"}
    creds = store(tmp_path, env).resolve()
    assert (creds.key, creds.base_url) == ("rk_live_vap12345", "https://v.example")


def test_key_source_reports_the_rumik_key_masked(tmp_path: Path) -> None:
    source, shown = store(tmp_path, {"RUMIK_API_KEY": "rk_live_rumik1234"}).key_source("default")
    assert (source, shown) == ("env", "…1234")
