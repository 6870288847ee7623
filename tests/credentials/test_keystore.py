import time
from pathlib import Path

import keyring
import keyring.errors
import pytest

from vap_console.credentials import (
    CredentialsInputError,
    KeyringUnavailable,
    KeyStore,
    ProfileStore,
    check_api_key,
    mask,
)

from .backends import FailingKeyring, HangingKeyring, MemoryKeyring

KEY = "sk_live_0123456789abcdefWXYZ"


def test_mask_shows_the_last_four_only() -> None:
    assert mask(KEY) == "…WXYZ"
    assert mask("short") == "…••••"
    assert mask(None) == ""


def test_keys_go_to_the_keyring_under_the_service_and_profile(memory_keyring: MemoryKeyring) -> None:
    store = KeyStore()
    store.set("work", KEY + "\n")
    assert memory_keyring.items == {("vap-console", "work"): KEY}
    assert store.get("work") == KEY
    assert store.delete("work")
    assert not store.delete("work")
    assert store.get("work") is None


def test_resolution_order_env_then_session_then_keyring(
    memory_keyring: MemoryKeyring, tmp_path: Path
) -> None:
    profiles = ProfileStore(tmp_path)
    profiles.add("work", "https://api.example.com")
    env: dict[str, str] = {}
    store = KeyStore(profiles=profiles, env=env)

    none = store.resolve()
    assert (none.key, none.source, none.base_url, none.profile) == (
        None, "none", "https://api.example.com", "work"
    )
    assert not none.usable

    store.set("work", KEY)
    r = store.resolve()
    assert (r.key, r.source) == (KEY, "keyring")
    assert r.usable

    store.remember_for_session("work", "sk_session_key_9999")
    assert store.resolve("work").source == "session"

    env["VAP_API_KEY"] = "sk_from_env_key_1234"
    env["VAP_BASE_URL"] = "http://127.0.0.1:9999/"
    r = store.resolve()
    assert (r.key, r.source, r.base_url) == ("sk_from_env_key_1234", "env", "http://127.0.0.1:9999")


def test_env_key_wins_without_touching_a_broken_keyring(tmp_path: Path) -> None:
    store = KeyStore(
        profiles=ProfileStore(tmp_path),
        backend=FailingKeyring(keyring.errors.NoKeyringError("none")),
        env={"VAP_API_KEY": KEY, "VAP_BASE_URL": "https://api.example.com"},
    )
    r = store.resolve("ci")
    assert (r.source, r.profile, r.base_url) == ("env", "ci", "https://api.example.com")


def test_a_bad_vap_base_url_is_named(tmp_path: Path, memory_keyring: MemoryKeyring) -> None:
    store = KeyStore(profiles=ProfileStore(tmp_path), env={"VAP_BASE_URL": "api.example.com"})
    with pytest.raises(CredentialsInputError, match="VAP_BASE_URL"):
        store.resolve()


def test_the_key_is_not_in_repr_or_str(memory_keyring: MemoryKeyring, tmp_path: Path) -> None:
    store = KeyStore(profiles=ProfileStore(tmp_path))
    store.set("p", KEY)
    store.remember_for_session("q", KEY)
    r = store.resolve("p")
    for text in (repr(r), str(r), repr(store), str(store)):
        assert KEY not in text
    assert "…WXYZ" in str(r)


@pytest.mark.parametrize(
    ("error", "reason"),
    [
        (keyring.errors.NoKeyringError("No recommended backend"), "no keyring backend was found"),
        (keyring.errors.InitError("Failed to create the collection"), "failed to start"),
        (keyring.errors.KeyringLocked("locked"), "is locked"),
        (keyring.errors.PasswordSetError("denied"), "failed"),
        (OSError("dbus socket gone"), "failed"),
    ],
)
def test_every_keyring_failure_is_one_error_naming_the_fix(
    tmp_path: Path, error: Exception, reason: str
) -> None:
    store = KeyStore(profiles=ProfileStore(tmp_path), backend=FailingKeyring(error))
    for call in (lambda: store.get("p"), lambda: store.set("p", KEY), lambda: store.delete("p"),
                 lambda: store.resolve("p")):
        with pytest.raises(KeyringUnavailable) as info:
            call()
        message = str(info.value)
        assert reason in message
        for fix in ("gnome-keyring", "keyrings.alt", "VAP_API_KEY", "Unlock"):
            assert fix in message
        assert info.value.__cause__ is None and info.value.__suppress_context__


def test_a_backend_error_that_echoes_the_key_is_scrubbed(tmp_path: Path) -> None:
    store = KeyStore(
        profiles=ProfileStore(tmp_path),
        backend=FailingKeyring(keyring.errors.PasswordSetError(f"cannot store {KEY}")),
    )
    with pytest.raises(KeyringUnavailable) as info:
        store.set("p", KEY)
    assert KEY not in str(info.value)
    assert "…WXYZ" in str(info.value)


def test_a_hanging_keyring_times_out(hanging_keyring: HangingKeyring, tmp_path: Path) -> None:
    store = KeyStore(profiles=ProfileStore(tmp_path), timeout=0.3)
    started = time.monotonic()
    with pytest.raises(KeyringUnavailable, match=r"did not answer within 0.3 s"):
        store.set("p", KEY)
    assert time.monotonic() - started < 2


def test_default_timeout_is_a_few_seconds() -> None:
    assert 2 <= KeyStore().timeout <= 10


@pytest.mark.parametrize(
    ("key", "rule"),
    [("", "must not be empty"), ("   \n", "must not be empty"), ("sk one", "one word"),
     ("sk\x00x", "one word"), ("k" * 513, "at most 512")],
)
def test_bad_keys_are_refused_and_not_echoed(
    memory_keyring: MemoryKeyring, key: str, rule: str
) -> None:
    with pytest.raises(CredentialsInputError, match=rule) as info:
        KeyStore().set("p", key)
    assert memory_keyring.items == {}
    if key.strip():
        assert key not in str(info.value)


def test_check_api_key_strips_a_piped_newline() -> None:
    assert check_api_key(KEY + "\r\n") == KEY


def test_a_key_of_512_characters_is_kept() -> None:
    assert check_api_key("k" * 512) == "k" * 512


def test_a_long_many_line_backend_error_is_one_line_of_200_characters(tmp_path: Path) -> None:
    first = "denied by policy " + "x" * 300
    store = KeyStore(profiles=ProfileStore(tmp_path),
                     backend=FailingKeyring(keyring.errors.PasswordSetError(first + "\nsecond line\nthird")))
    with pytest.raises(KeyringUnavailable) as info:
        store.set("p", KEY)
    shown = ("PasswordSetError: " + first)[:200]
    assert f"storing the key failed ({shown})" in str(info.value)
    assert "second line" not in str(info.value) and "\n" not in str(info.value)


def test_credentials_say_plainly_when_there_is_no_key_or_no_base_url(tmp_path: Path) -> None:
    store = KeyStore(profiles=ProfileStore(tmp_path), backend=MemoryKeyring(), env={})
    assert str(store.resolve("p")) == "profile p (none no key) at no base URL"
    store.remember_for_session("p", KEY)
    assert str(store.resolve("p")) == "profile p (session …WXYZ) at no base URL"


@pytest.mark.secret_service
def test_round_trip_through_the_real_secret_service(secret_service, tmp_path: Path) -> None:
    store = KeyStore(profiles=ProfileStore(tmp_path))
    profile = f"vaptest{int(time.time() * 1000) % 10**9}"
    try:
        store.set(profile, KEY)
        assert store.get(profile) == KEY
        assert keyring.get_password("vap-console", profile) == KEY
        assert store.resolve(profile).source == "keyring"
    finally:
        assert store.delete(profile)
    assert store.get(profile) is None
    assert not store.delete(profile)


def test_store_login_rolls_the_keyring_back_when_the_profile_cannot_be_written(
    memory_keyring: MemoryKeyring, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    profiles = ProfileStore(tmp_path)
    store = KeyStore(profiles=profiles)
    store.store_login("old", "https://api.example.com", "sk_previous_key_0000")

    def disk_full(*args: object) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(profiles, "add", disk_full)
    with pytest.raises(OSError):
        store.store_login("old", "https://api.example.com", KEY)
    with pytest.raises(OSError):
        store.store_login("new", "https://api.example.com", KEY)
    assert memory_keyring.items == {("vap-console", "old"): "sk_previous_key_0000"}


@pytest.mark.parametrize(
    ("env", "says_dbus"),
    [({}, True), ({"DBUS_SESSION_BUS_ADDRESS": "unix:path=/run/user/1000/bus"}, False)],
)
def test_no_backend_names_a_missing_dbus_session_on_linux(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, env: dict[str, str], says_dbus: bool
) -> None:
    monkeypatch.setattr("sys.platform", "linux")
    store = KeyStore(profiles=ProfileStore(tmp_path), env=env,
                     backend=FailingKeyring(keyring.errors.NoKeyringError("none")))
    with pytest.raises(KeyringUnavailable) as info:
        store.get("p")
    assert ("no D-Bus session" in str(info.value)) is says_dbus
