"""The login dialog: every field checked on submit, the key verified before it is kept, masked
on screen, and "this session only" when the keyring fails."""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

import keyring.errors
import pytest
from textual.app import App
from textual.widgets import Button, Input, Static

from tests.credentials.backends import FailingKeyring, HangingKeyring, MemoryKeyring
from tests.credentials.fake_api import GOOD_KEY, NOSCOPE_KEY, REVOKED_KEY, verify_async
from tests.tui.console_scenes import click, click_again, fill_login, quiet, until
from vap_console.credentials import (
    CredentialsInputError,
    KeyringUnavailable,
    KeyStore,
    ProfileStore,
    ResolvedCredentials,
)
from vap_console.tui.screens.login import LoginApp, LoginScreen, no_key_reason, resolve_or_login

URL = "https://api.example.com"
UNSET: Any = object()


pytestmark = pytest.mark.usefixtures("xdg_dirs")


class Host(App[None]):
    def __init__(self, screen: LoginScreen) -> None:
        super().__init__()
        self.login = screen
        self.result: Any = UNSET

    def on_mount(self) -> None:
        self.push_screen(self.login, callback=self._done)

    def _done(self, result: ResolvedCredentials | None) -> None:
        self.result = result


def login_screen(backend, **kw: Any) -> LoginScreen:
    return LoginScreen(KeyStore(backend=backend, timeout=kw.pop("timeout", 5.0)), verify=verify_async, **kw)


async def press_save(pilot) -> None:
    await click(pilot, "#login-save")
    await quiet(pilot)  # the key checked and kept (or refused), the dialog's answer shown


def text(screen: LoginScreen, selector: str) -> str:
    return str(screen.query_one(selector, Static).content)


async def test_a_good_key_is_verified_kept_in_the_keyring_and_the_profile_recorded(
    xdg_dirs: dict[str, Path],
) -> None:
    backend = MemoryKeyring()
    app = Host(login_screen(backend))
    async with app.run_test(size=(100, 40)) as pilot:
        fill_login(pilot.app.login, "work", URL, GOOD_KEY)
        svg = app.export_screenshot()
        await press_save(pilot)
    assert GOOD_KEY not in svg  # the key input is masked
    assert backend.items == {("vap-console", "work"): GOOD_KEY}
    assert isinstance(app.result, ResolvedCredentials)
    assert (app.result.source, app.result.profile, app.result.base_url) == ("keyring", "work", URL)
    doc = tomllib.loads((xdg_dirs["config"] / "vap-console" / "profiles.toml").read_text())
    assert doc["profiles"] == {"work": {"base_url": URL}} and doc["active"] == "work"


async def test_every_bad_field_is_named_with_its_rule_and_nothing_changes() -> None:
    backend = MemoryKeyring()
    app = Host(login_screen(backend))
    async with app.run_test(size=(100, 40)) as pilot:
        fill_login(pilot.app.login, "bad name", "http://remote.example.com", "two words")
        await press_save(pilot)
        screen = app.login
        assert "profile name 'bad name'" in text(screen, "#profile-error")
        assert "http:// is only for 127.0.0.0/8, [::1] or localhost" in text(screen, "#base-url-error")
        assert "API key: must be one word" in text(screen, "#key-error")
        assert screen.query_one("#profile", Input).value == "bad name"
        assert screen.query_one("#key", Input).value == "two words"
        assert app.focused is screen.query_one("#profile", Input)
    assert app.result is UNSET
    assert backend.items == {}
    assert ProfileStore().load().profiles == {}


@pytest.mark.parametrize(
    ("key", "says"),
    [(REVOKED_KEY, "Key rejected by api.example.com (HTTP 401 unauthorized)"),
     (NOSCOPE_KEY, "lacks the agent scope")],
)
async def test_a_refused_key_keeps_the_form_and_stores_nothing(key: str, says: str) -> None:
    backend = MemoryKeyring()
    app = Host(login_screen(backend))
    async with app.run_test(size=(100, 40)) as pilot:
        fill_login(pilot.app.login, "work", URL, key)
        await press_save(pilot)
        screen = app.login
        status = text(screen, "#login-status")
        assert says in status and "Nothing was stored" in status and key not in status
        assert [screen.query_one(f"#{f}", Input).value for f in ("profile", "base-url", "key")] == [
            "work", URL, key
        ]
        assert not screen.query_one("#login-save", Button).disabled
        assert not screen.query_one("#login-session", Button).display or not screen.has_class("-keyring-failed")
    assert app.result is UNSET
    assert backend.items == {}
    assert ProfileStore().load().profiles == {}


async def test_when_the_keyring_fails_the_key_can_be_used_for_this_session_only(
    xdg_dirs: dict[str, Path],
) -> None:
    screen = login_screen(FailingKeyring(keyring.errors.NoKeyringError("none")))
    app = Host(screen)
    async with app.run_test(size=(100, 40)) as pilot:
        session_button = screen.query_one("#login-session", Button)
        assert not session_button.region  # hidden until the keyring fails
        fill_login(pilot.app.login, "work", URL, GOOD_KEY)
        await press_save(pilot)
        status = text(screen, "#login-status")
        assert "The key is valid" in status and "no keyring backend was found" in status
        assert "keyrings.alt" in status and "VAP_API_KEY" in status
        assert session_button.region
        await click(pilot, "#login-session")
        await quiet(pilot)
    assert isinstance(app.result, ResolvedCredentials)
    assert (app.result.source, app.result.key) == ("session", GOOD_KEY)
    resolved = screen.keystore.resolve("work")
    assert (resolved.source, resolved.key, resolved.base_url) == ("session", GOOD_KEY, URL)
    # The profile (no secret) is recorded; the key is in no file.
    assert ProfileStore().get("work").base_url == URL
    for path in xdg_dirs["config"].parent.rglob("*"):
        if path.is_file():
            assert GOOD_KEY not in path.read_text(errors="replace")


async def test_a_hanging_keyring_gives_up_and_offers_the_session() -> None:
    backend = HangingKeyring()
    screen = login_screen(backend, timeout=0.3)
    app = Host(screen)
    try:
        async with app.run_test(size=(100, 40)) as pilot:
            fill_login(pilot.app.login, "work", URL, GOOD_KEY)
            await press_save(pilot)
            assert "did not answer within 0.3 s" in text(screen, "#login-status")
            assert screen.has_class("-keyring-failed")
    finally:
        backend.release.set()


async def test_enter_moves_to_the_next_empty_field_then_submits() -> None:
    backend = MemoryKeyring()
    app = Host(login_screen(backend, profile="work", base_url=URL))
    async with app.run_test(size=(100, 40)) as pilot:
        assert app.focused is app.login.query_one("#key", Input)
        for ch in GOOD_KEY:
            await pilot.press(ch)
        await pilot.press("enter")
        await quiet(pilot)
    assert app.result.source == "keyring"
    assert backend.items == {("vap-console", "work"): GOOD_KEY}


async def test_escape_cancels_with_nothing_stored() -> None:
    backend = MemoryKeyring()
    app = Host(login_screen(backend))
    async with app.run_test(size=(100, 40)) as pilot:
        fill_login(pilot.app.login, "work", URL, GOOD_KEY)
        await pilot.press("escape")
        await quiet(pilot)
    assert app.result is None and backend.items == {}


async def test_the_start_app_returns_the_credentials() -> None:
    backend = MemoryKeyring()
    app = LoginApp(KeyStore(backend=backend), profile="default", base_url=URL,
                   reason="No API key for profile 'default'.", verify=verify_async)
    async with app.run_test(size=(100, 40)) as pilot:
        await quiet(pilot)
        screen = app.screen
        assert "No API key for profile 'default'" in text(screen, "#login-reason")
        screen.query_one("#key", Input).value = GOOD_KEY
        await click(pilot, "#login-save")
        await quiet(pilot)
    assert app.return_value is not None and app.return_value.source == "keyring"


def test_reasons_say_why_the_login_screen_is_shown() -> None:
    none = ResolvedCredentials(None, "none", URL, "work")
    assert no_key_reason(none, None) == "No API key for profile 'work': enter one to continue."
    assert "No profile yet" in no_key_reason(ResolvedCredentials(None, "none", None, "default"), None)
    failed = no_key_reason(None, KeyringUnavailable("it is locked"))
    assert "it is locked" in failed and "session only" in failed


def test_snapshot_login_first_start(snap_compare) -> None:
    app = LoginApp(KeyStore(backend=MemoryKeyring()), profile="default",
                   reason=no_key_reason(None, None),
                   verify=verify_async)
    assert snap_compare(app, terminal_size=(100, 34))


def test_snapshot_login_keyring_unavailable_offers_session(snap_compare) -> None:
    # A fixed environment: the message says whether a D-Bus session exists.
    store = KeyStore(backend=FailingKeyring(keyring.errors.NoKeyringError("none")), env={})
    app = LoginApp(store, profile="default", base_url=URL, verify=verify_async)

    async def run_before(pilot) -> None:
        app.screen.query_one("#key", Input).value = GOOD_KEY
        await click(pilot, "#login-save")
        await quiet(pilot)

    assert snap_compare(app, terminal_size=(100, 34), run_before=run_before)


def test_start_with_a_usable_key_opens_no_login_screen(monkeypatch: pytest.MonkeyPatch) -> None:
    backend = MemoryKeyring()
    store = KeyStore(backend=backend)
    store.store_login("work", URL, GOOD_KEY)
    monkeypatch.setattr(LoginApp, "run", lambda self: pytest.fail("login screen shown"))
    creds = resolve_or_login(store)
    assert (creds.source, creds.profile, creds.base_url) == ("keyring", "work", URL)


@pytest.mark.parametrize(
    ("backend", "expect_reason"),
    [(MemoryKeyring(), "No API key for profile 'work'"),
     (FailingKeyring(keyring.errors.InitError("dbus")), "session only")],
)
def test_start_without_a_usable_key_shows_the_login_screen_with_the_reason(
    monkeypatch: pytest.MonkeyPatch, backend, expect_reason: str
) -> None:
    ProfileStore().add("work", URL)
    shown: list[LoginApp] = []

    def run(self: LoginApp) -> None:
        shown.append(self)
        return None

    monkeypatch.setattr(LoginApp, "run", run)
    assert resolve_or_login(KeyStore(backend=backend)) is None
    (app,) = shown
    args = app._screen_args
    assert (args["profile"], args["base_url"]) == ("work", URL)
    assert expect_reason in args["reason"]


def test_env_key_without_a_base_url_is_an_error_not_a_login(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("VAP_API_KEY", GOOD_KEY)
    monkeypatch.setattr(LoginApp, "run", lambda self: pytest.fail("login screen shown"))
    with pytest.raises(CredentialsInputError, match="set VAP_BASE_URL") as info:
        resolve_or_login(KeyStore(backend=MemoryKeyring()))
    assert GOOD_KEY not in str(info.value)


async def test_a_keyring_known_broken_at_start_offers_the_session_at_once() -> None:
    backend = FailingKeyring(keyring.errors.NoKeyringError("none"))
    screen = login_screen(backend, profile="work", base_url=URL, keyring_failed=True)
    app = Host(screen)
    async with app.run_test(size=(100, 40)) as pilot:
        assert screen.query_one("#login-session", Button).region
        screen.query_one("#key", Input).value = REVOKED_KEY
        await click(pilot, "#login-session")
        await quiet(pilot)
        assert "Key rejected" in text(screen, "#login-status")  # checked before it is used
        assert app.result is UNSET
        screen.query_one("#key", Input).value = GOOD_KEY
        await click_again(pilot, "#login-session")
        # Checked, kept, then the dialog closes and hands its result back: a few hops, not one.
        await until(pilot, lambda: app.result is not UNSET)
    assert (app.result.source, app.result.key, app.result.profile) == ("session", GOOD_KEY, "work")
    assert screen.keystore.resolve("work").source == "session"


async def test_the_public_base_url_is_offered_so_only_the_key_is_typed() -> None:
    app = Host(login_screen(MemoryKeyring(), profile="work"))
    async with app.run_test(size=(100, 40)) as pilot:
        await quiet(pilot)
        assert app.login.query_one("#base-url", Input).value == "https://silk-api.rumik.ai"
        assert app.focused is app.login.query_one("#key", Input)
        assert app.login.query_one("#key", Input).placeholder == "rk_live_…"


async def test_a_key_that_does_not_fit_the_host_is_warned_about_as_typed() -> None:
    app = Host(login_screen(MemoryKeyring(), profile="work"))
    async with app.run_test(size=(100, 40)) as pilot:
        screen = app.login
        await pilot.press(*"rk_test_0000000000000000000agent")
        await quiet(pilot)
        warning = text(screen, "#key-warning")
        assert "sandbox test key" in warning and "silk-api.rumik.ai" in warning and "0000" not in warning
        screen.query_one("#base-url", Input).value = "http://127.0.0.1:8787"
        await quiet(pilot)
        assert text(screen, "#key-warning") == ""
        screen.query_one("#key", Input).value = "rk_live_abcdefghijklmnopqrstuvwx"
        await quiet(pilot)
        assert "live key" in text(screen, "#key-warning") and "uvwx" not in text(screen, "#key-warning")



# What a first start said on a machine without a D-Bus session (the new user's): the longest reason.
NO_DBUS = KeyringUnavailable("no keyring backend was found (there is no D-Bus session, which a Secret Service needs)")


@pytest.mark.slow
@pytest.mark.parametrize("size", [(80, 24), (100, 30)])
async def test_after_a_click_into_base_url_tab_goes_to_the_api_key_and_the_key_lands_there(
    size: tuple[int, int],
) -> None:
    # With the reason and the session-only button the form scrolls on these terminals, and the
    # buttons' row stays docked while the fields move: tried at every place the form scrolls to.
    app = LoginApp(KeyStore(backend=MemoryKeyring()), profile="default", base_url=None,
                   reason=no_key_reason(None, NO_DBUS), verify=verify_async, keyring_failed=True)
    async with app.run_test(size=size) as pilot:
        await quiet(pilot)
        screen = app.screen
        form = screen.query_one("#login-dialog")
        base_url, key = screen.query_one("#base-url", Input), screen.query_one("#key", Input)
        assert app.focused is key and form.max_scroll_y > 0  # the empty field, scrolled down to
        for offset in range(round(form.max_scroll_y) + 1):
            key.value = ""
            form.scroll_to(y=offset, animate=False, immediate=True)
            await quiet(pilot)
            if not screen.region.contains_region(base_url.region):
                continue  # a person clicks only what is on screen
            await click(pilot, "#base-url")
            await until(pilot, lambda: app.focused is base_url)
            await pilot.press("tab")
            await until(pilot, lambda: app.focused is not base_url)
            assert app.focused is key, f"scrolled {offset}: Tab went to {app.focused!r}"
            # The first keys typed land in the key field; the rest of the key is put in at once
            # (40-odd presses at each place the form scrolls to made this a 15 s test).
            await pilot.press(*GOOD_KEY[:4])
            await until(pilot, lambda: key.value == GOOD_KEY[:4])
            key.value = GOOD_KEY
            await pilot.press("tab")
            await until(pilot, lambda: app.focused is not key)
            assert app.focused is screen.query_one("#login-save", Button)  # then the buttons
        assert app.return_value is None  # nothing was submitted on the way
