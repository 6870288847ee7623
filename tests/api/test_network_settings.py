"""config.toml's [network] table reaches the client the console builds: deadlines and the body
limit are configurable without code, and a bad entry is reported, not fatal."""

from __future__ import annotations

from pathlib import Path

import pytest

from vap_console.api import VapClient
from vap_console.api.client import MAX_RESPONSE_BYTES, REQUEST_TIMEOUT
from vap_console.tui.settings import Settings


def _load(tmp_path: Path, text: str) -> Settings:
    path = tmp_path / "config.toml"
    path.write_text(text, encoding="utf-8")
    return Settings.load(path)


def test_network_settings_become_client_arguments(tmp_path):
    settings = _load(tmp_path, """
theme = "nord"

[network]
request_timeout = 45
total_timeout = 300.5
min_transfer_rate_kib = 8
max_response_mib = 256
""")
    assert settings.problem is None
    options = settings.client_options()
    assert options == {
        "request_timeout": 45.0, "total_timeout": 300.5,
        "min_transfer_rate": 8 * 1024.0, "max_response_bytes": 256 * 1024 * 1024,
    }
    client = VapClient("https://api.example.test", "sk_test_123456789", **options)
    assert (client.request_timeout, client.max_response_bytes) == (45.0, 256 * 1024 * 1024)


def test_no_network_table_keeps_the_clients_defaults(tmp_path):
    settings = _load(tmp_path, 'theme = "nord"\n')
    assert settings.client_options() == {}
    assert Settings().client_options() == {}


@pytest.mark.parametrize(("entry", "said"), [
    ("request_timeout = 0", "request_timeout must be a number more than 0, got 0"),
    ("total_timeout = -5", "total_timeout must be a number more than 0"),
    ('max_response_mib = "64"', "max_response_mib must be a number more than 0, got '64'"),
    ("max_response_mib = nan", "max_response_mib must be a number more than 0"),
    ("request_timeout = inf", "request_timeout must be a number more than 0"),
    ("request_timeout = true", "request_timeout must be a number more than 0, got True"),
    ("timeout = 5", "[network] timeout is not a setting (known: request_timeout, total_timeout"),
])
def test_a_bad_entry_is_reported_and_the_default_kept(tmp_path, entry, said):
    settings = _load(tmp_path, f"[network]\n{entry}\nmin_transfer_rate_kib = 4\n")
    assert said in (settings.problem or "")
    assert "using the defaults for those" in settings.problem
    # The good entry still applies, the bad one is left to the client's default.
    assert settings.client_options() == {"min_transfer_rate": 4 * 1024.0}
    VapClient("https://api.example.test", "sk_test_123456789", **settings.client_options())


def test_a_network_value_that_is_not_a_table_is_reported(tmp_path):
    settings = _load(tmp_path, "network = 5\n")
    assert "[network] must be a table" in (settings.problem or "")
    assert settings.client_options() == {}


def test_a_keymap_problem_and_a_network_problem_are_both_reported(tmp_path):
    settings = _load(tmp_path, '[keymap]\n"list.refresh" = 5\n[network]\nrequest_timeout = 0\n')
    assert "keymap entries list.refresh" in settings.problem
    assert "request_timeout must be a number" in settings.problem


def test_saving_the_theme_keeps_the_network_table(tmp_path):
    settings = _load(tmp_path, '[network]\nrequest_timeout = 60\nmystery = "kept as written"\n')
    settings.theme = "nord"
    settings.save()
    again = Settings.load(settings.path)
    assert again.theme == "nord"
    assert again.network == {"request_timeout": 60, "mystery": "kept as written"}
    assert again.client_options() == {"request_timeout": 60.0}


def test_the_profile_console_builds_its_client_with_the_settings(tmp_path, monkeypatch):
    from tests.credentials.backends import MemoryKeyring
    from vap_console.credentials import KeyStore
    from vap_console.launch import profile_console

    for name in ("XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME", "XDG_CACHE_HOME"):
        monkeypatch.setenv(name, str(tmp_path / name.lower()))
    store = KeyStore(backend=MemoryKeyring(),
                     env={"VAP_API_KEY": "sk_test_123456789", "VAP_BASE_URL": "https://api.example.test"})
    creds = store.resolve()
    settings = Settings(network={"request_timeout": 7, "max_response_mib": 1})
    client = profile_console(store, creds, settings)._client_factory()
    assert client.request_timeout == 7.0 and client.max_response_bytes == 1024 * 1024
    plain = profile_console(store, creds)._client_factory()
    assert (plain.request_timeout, plain.max_response_bytes) == (REQUEST_TIMEOUT, MAX_RESPONSE_BYTES)
