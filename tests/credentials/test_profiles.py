import tomllib
from pathlib import Path

import pytest

from vap_console.credentials import (
    CredentialsInputError,
    ProfilesFileError,
    ProfileStore,
    UnknownProfile,
    check_base_url,
)


def test_first_profile_becomes_active_and_is_written_where_platformdirs_says(
    xdg_dirs: dict[str, Path],
) -> None:
    store = ProfileStore()
    store.add("work", "https://api.example.com/")
    store.add("home", "https://other.example.com")
    assert store.path == xdg_dirs["config"] / "vap-console" / "profiles.toml"
    doc = tomllib.loads(store.path.read_text())
    assert doc == {
        "active": "work",
        "profiles": {
            "work": {"base_url": "https://api.example.com"},
            "home": {"base_url": "https://other.example.com"},
        },
    }


def test_switch_and_remove_move_the_active_marker(tmp_path: Path) -> None:
    store = ProfileStore(tmp_path)
    store.add("a", "https://a.example.com")
    store.add("b", "https://b.example.com")
    assert store.set_active("b").name == "b"
    assert store.active().name == "b"
    assert store.remove("b")
    assert store.active().name == "a"
    assert not store.remove("b")
    assert store.remove("a")
    assert store.active() is None
    assert store.load().profiles == {}


def test_switching_to_an_unknown_profile_names_the_known_ones(tmp_path: Path) -> None:
    store = ProfileStore(tmp_path)
    store.add("a", "https://a.example.com")
    with pytest.raises(UnknownProfile, match=r"'nope'.*known: a"):
        store.set_active("nope")
    assert store.active().name == "a"


def test_adding_again_updates_the_url_without_duplicating(tmp_path: Path) -> None:
    store = ProfileStore(tmp_path)
    store.add("a", "https://a.example.com")
    store.add("a", "https://new.example.com")
    assert [(p.name, p.base_url) for p in store.load().profiles.values()] == [
        ("a", "https://new.example.com")
    ]


@pytest.mark.parametrize(
    ("url", "rule"),
    [
        ("", "must not be empty"),
        ("api.example.com", "must start with https://"),
        ("ftp://api.example.com", "must start with https://"),
        ("https://", "no host"),
        ("https://user:hunter2@api.example.com", "must not contain a user name or password"),
        ("https://api.example.com/?token=abc", "query"),
        ("http://api.example.com", r"http:// is only for 127.0.0.0/8, \[::1\] or localhost"),
        ("https://api.example.com:notaport", "not a valid URL"),
    ],
)
def test_bad_base_urls_are_refused_with_the_rule_and_nothing_is_written(
    tmp_path: Path, url: str, rule: str
) -> None:
    store = ProfileStore(tmp_path)
    with pytest.raises(CredentialsInputError, match=rule):
        store.add("a", url)
    assert not store.path.exists()


def test_the_password_in_a_refused_url_is_not_repeated() -> None:
    with pytest.raises(CredentialsInputError) as info:
        check_base_url("https://user:hunter2@api.example.com")
    assert "hunter2" not in str(info.value)


@pytest.mark.parametrize(
    ("url", "normal"),
    [
        ("http://127.0.0.1:8787", "http://127.0.0.1:8787"),
        ("http://localhost:8787/", "http://localhost:8787"),
        ("http://[::1]:8787", "http://[::1]:8787"),
        ("https://API.example.com/v1", "https://api.example.com"),
        ("https://gw.example.com/vap/", "https://gw.example.com/vap"),
    ],
)
def test_base_urls_are_normalised(url: str, normal: str) -> None:
    assert check_base_url(url) == normal


def test_a_broken_file_is_reported_with_its_path(tmp_path: Path) -> None:
    store = ProfileStore(tmp_path)
    store.path.write_text("active = \n")
    with pytest.raises(ProfilesFileError, match=r"profiles\.toml: not valid TOML"):
        store.load()


def test_a_hand_edited_active_name_that_does_not_exist_falls_back(tmp_path: Path) -> None:
    store = ProfileStore(tmp_path)
    store.path.write_text('active = "gone"\n[profiles.x]\nbase_url = "https://x.example.com"\n')
    assert store.active().name == "x"
