"""`vap login / logout / profiles`, called as functions with a fake stdin, against the real
client over an in-process HTTP transport that answers like the spec (section 5 and 7)."""

from __future__ import annotations

import asyncio
import io
import socket
import tomllib
from pathlib import Path

import keyring.errors
import pytest

from vap_console import auth_cli
from vap_console.credentials import KeyStore, LocalIndex, ProfileStore

from .backends import FailingKeyring, HangingKeyring, MemoryKeyring
from .fake_api import GOOD_KEY, verify_async

GOOD = GOOD_KEY
URL = "https://api.example.com"


def fake_verify(base_url: str, key: str) -> None:
    asyncio.run(verify_async(base_url, key))


class Pipe(io.StringIO):
    def isatty(self) -> bool:
        return False


def login(profile: str | None = None, base_url: str | None = URL, key: str = GOOD + "\n", **kw):
    return auth_cli.login(profile, base_url, stdin=Pipe(key), verify=fake_verify, **kw)


def config_file(xdg: dict[str, Path]) -> Path:
    return xdg["config"] / "vap-console" / "profiles.toml"


def test_login_verifies_stores_in_keyring_and_records_the_profile(
    memory_keyring: MemoryKeyring, xdg_dirs: dict[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    assert login() == 0
    out = capsys.readouterr().out
    assert "…ABCD" in out and GOOD not in out
    assert "Active profile: default" in out
    assert memory_keyring.items == {("vap-console", "default"): GOOD}
    doc = tomllib.loads(config_file(xdg_dirs).read_text())
    assert doc == {"active": "default", "profiles": {"default": {"base_url": URL}}}


def test_second_profile_is_not_made_active(memory_keyring: MemoryKeyring, capsys) -> None:
    assert login("work") == 0
    assert login("home", "https://home.example.com") == 0
    assert "Active profile is still 'work'" in capsys.readouterr().out
    assert ProfileStore().active().name == "work"


@pytest.mark.parametrize(
    ("key", "expect"),
    [
        ("sk_revoked_key_0401", "key rejected by api.example.com (HTTP 401 unauthorized)"),
        ("sk_test_noscope_key_0403", "lacks the agent scope"),
    ],
)
def test_a_refused_key_stores_nothing(
    memory_keyring: MemoryKeyring, xdg_dirs, capsys, key: str, expect: str
) -> None:
    assert login(key=key) == 1
    err = capsys.readouterr().err
    assert expect in err and "nothing was stored" in err
    assert err.count("\n") == 1 and key not in err
    assert memory_keyring.items == {}
    assert not config_file(xdg_dirs).exists()


def test_an_unreachable_server_says_so_and_stores_nothing(
    memory_keyring: MemoryKeyring, xdg_dirs, capsys
) -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    url = f"http://127.0.0.1:{port}"
    assert auth_cli.login("p", url, stdin=Pipe(GOOD)) == 1  # the real verifier, real socket
    err = capsys.readouterr().err
    assert f"could not reach {url}" in err and "nothing was stored" in err
    assert memory_keyring.items == {}
    assert not config_file(xdg_dirs).exists()


def test_failed_login_keeps_the_previous_key(memory_keyring: MemoryKeyring) -> None:
    assert login() == 0
    assert login(key="sk_revoked_key_0401") == 1
    assert memory_keyring.items == {("vap-console", "default"): GOOD}


def test_first_login_offers_the_public_base_url(memory_keyring, xdg_dirs, capsys) -> None:
    asked: list[str] = []
    assert auth_cli.login(None, None, stdin=Pipe(GOOD + "\n"), verify=lambda url, key: asked.append(url)) == 0
    assert asked == ["https://silk-api.rumik.ai"]
    assert "Base URL: https://silk-api.rumik.ai (the public service" in capsys.readouterr().err
    saved = tomllib.loads(config_file(xdg_dirs).read_text())
    assert saved["profiles"]["default"]["base_url"] == "https://silk-api.rumik.ai"


@pytest.mark.parametrize(("key", "url", "words"), [
    ("rk_test_0000000000000000000agent", "https://silk-api.rumik.ai", "sandbox test key"),
    ("sk_sandbox_agent", "https://silk-api.rumik.ai", "sandbox test key"),
    ("rk_live_abcdefghijklmnopqrstuvwx", "http://127.0.0.1:8787", "live key"),
])
def test_a_key_that_does_not_fit_the_host_gets_one_line(memory_keyring, capsys, key, url, words) -> None:
    auth_cli.login(None, url, stdin=Pipe(key + "\n"), verify=lambda u, k: None)
    err = capsys.readouterr().err
    lines = [line for line in err.splitlines() if "warning" in line]
    assert len(lines) == 1 and words in lines[0]
    assert key not in err and key[-4:] not in err


def test_a_key_that_fits_the_host_gets_no_warning(memory_keyring, capsys) -> None:
    auth_cli.login(None, "http://127.0.0.1:8787", stdin=Pipe("rk_test_0000000000000000000agent\n"),
                   verify=lambda u, k: None)
    assert "warning" not in capsys.readouterr().err


def test_relogin_reuses_the_profile_url_and_env_url_counts(
    memory_keyring, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("VAP_BASE_URL", "http://127.0.0.1:8787")
    assert login(base_url=None) == 0
    assert ProfileStore().get("default").base_url == "http://127.0.0.1:8787"
    monkeypatch.delenv("VAP_BASE_URL")
    assert login(base_url=None) == 0


@pytest.mark.parametrize(
    ("key", "rule"), [("", "must not be empty"), ("two words\n", "one word")]
)
def test_bad_piped_key_is_a_usage_error(memory_keyring, capsys, key: str, rule: str) -> None:
    assert login(key=key) == 2
    err = capsys.readouterr().err
    assert rule in err and "on stdin" in err
    assert memory_keyring.items == {}


def test_bad_base_url_names_the_flag(memory_keyring, capsys) -> None:
    assert login(base_url="http://remote.example.com") == 2
    assert "--base-url" in capsys.readouterr().err


def test_terminal_input_is_read_without_echo(memory_keyring, monkeypatch, capsys) -> None:
    prompts = []

    def fake_getpass(prompt: str, stream=None) -> str:
        prompts.append(prompt)
        return GOOD

    class Tty(io.StringIO):
        def isatty(self) -> bool:
            return True

    monkeypatch.setattr(auth_cli.getpass, "getpass", fake_getpass)
    assert auth_cli.login("p", URL, stdin=Tty(""), verify=fake_verify) == 0
    assert prompts == ["API key for profile 'p' (input hidden): "]


@pytest.mark.parametrize(
    "error",
    [keyring.errors.NoKeyringError("none"), keyring.errors.InitError("x"),
     keyring.errors.PasswordSetError("no")],
)
def test_keyring_failure_on_login_is_one_line_and_stores_nothing(
    xdg_dirs, capsys, error: Exception
) -> None:
    store = KeyStore(backend=FailingKeyring(error))
    assert login(keystore=store) == 1
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and "Traceback" not in err
    # The key was checked first: said good, then the ways on without a keyring.
    assert "…ABCD is good (verified at api.example.com)" in err
    assert "VAP_API_KEY" in err and "session only" in err and "gnome-keyring" in err
    assert "Nothing was stored" in err and GOOD not in err
    assert not config_file(xdg_dirs).exists()


def test_a_wrong_key_is_reported_even_without_a_keyring(xdg_dirs, capsys) -> None:
    store = KeyStore(backend=FailingKeyring(keyring.errors.NoKeyringError("none")))
    assert login(keystore=store, key="sk_live_wrong_key_0000\n") == 1
    err = capsys.readouterr().err
    assert "rejected" in err.lower() or "401" in err
    assert "keyring" not in err.lower()


def test_hanging_keyring_on_login_gives_up(xdg_dirs, capsys) -> None:
    backend = HangingKeyring()
    try:
        store = KeyStore(backend=backend, timeout=0.2)
        assert login(keystore=store) == 1
    finally:
        backend.release.set()
    assert "did not answer within 0.2 s" in capsys.readouterr().err
    assert not config_file(xdg_dirs).exists()


def test_profiles_lists_source_and_masked_key(memory_keyring, monkeypatch, capsys) -> None:
    login("work")
    login("home", "http://127.0.0.1:8787")
    KeyStore().delete("home")
    capsys.readouterr()
    assert auth_cli.profiles() == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].split() == ["PROFILE", "BASE", "URL", "KEY"]
    assert lines[1].split() == ["*", "work", URL, "keyring", "…ABCD"]
    assert lines[2].split() == ["home", "http://127.0.0.1:8787", "none"]

    monkeypatch.setenv("VAP_API_KEY", "sk_env_key_value_7777")
    assert auth_cli.profiles() == 0
    out = capsys.readouterr().out
    assert "env …7777" in out and "sk_env_key_value_7777" not in out and GOOD not in out


def test_profiles_with_none_says_how_to_start(memory_keyring, capsys) -> None:
    assert auth_cli.profiles() == 0
    assert "run `vap login`" in capsys.readouterr().out


def test_profiles_with_a_broken_keyring_waits_once_and_fails(xdg_dirs, capsys) -> None:
    ProfileStore().add("a", URL)
    ProfileStore().add("b", URL)
    backend = HangingKeyring()
    try:
        assert auth_cli.profiles(keystore=KeyStore(backend=backend, timeout=0.2)) == 1
    finally:
        backend.release.set()
    captured = capsys.readouterr()
    assert captured.out.count("unavailable") == 2
    assert captured.err.count("did not answer") == 1


def test_logout_removes_the_key_and_forget_drops_profile_and_index(
    memory_keyring, xdg_dirs, capsys
) -> None:
    login("work")
    login("home", "https://home.example.com")
    LocalIndex("work").add("agents", "ua_bot")
    assert auth_cli.logout("work") == 0
    assert ("vap-console", "work") not in memory_keyring.items
    assert ProfileStore().get("work") is not None
    assert auth_cli.logout("work", forget=True) == 0
    out = capsys.readouterr().out
    assert "had no key" in out and "Forgot profile 'work'" in out
    assert ProfileStore().get("work") is None
    assert ProfileStore().active().name == "home"
    assert LocalIndex("work").ids("agents") == []
    assert not LocalIndex("work").path.exists()


def test_logout_drops_the_session_only_key_as_well(memory_keyring, capsys) -> None:
    # A console that kept a key for this session only (its keyring failed) must not go on using it.
    login("work")
    store = KeyStore()
    store.remember_for_session("work", "sk_session_only_key_WXYZ")
    assert store.resolve("work").source == "session"
    assert auth_cli.logout("work", keystore=store) == 0
    resolved = store.resolve("work")
    assert (resolved.source, resolved.key) == ("none", None)


def test_logout_of_unknown_profile_fails(memory_keyring, capsys) -> None:
    assert auth_cli.logout("ghost") == 1
    assert "no profile named 'ghost'" in capsys.readouterr().err


def test_logout_with_broken_keyring_changes_nothing(xdg_dirs, capsys) -> None:
    ProfileStore().add("a", URL)
    store = KeyStore(backend=FailingKeyring(keyring.errors.NoKeyringError("none")))
    assert auth_cli.logout("a", forget=True, keystore=store) == 1
    assert "Nothing was changed" in capsys.readouterr().err
    assert ProfileStore().get("a") is not None


def test_a_huge_stdin_is_refused_without_reading_it_all(memory_keyring, capsys) -> None:
    class Endless(Pipe):
        def read(self, size: int = -1) -> str:
            assert size > 0, "stdin must be read with a bound"
            return "k" * size

    assert auth_cli.login(base_url=URL, stdin=Endless(""), verify=fake_verify) == 2
    assert "at most 512 characters" in capsys.readouterr().err
    assert memory_keyring.items == {}
