"""QA 14: the top line names a VAP_API_KEY session `env`, and follows the profile made active."""

from __future__ import annotations

import pytest

from tests.credentials.backends import MemoryKeyring
from tests.tui.console_scenes import click, fill_login, laid_out, settle, until
from vap_console.credentials import KeyStore
from vap_console.launch import profile_console
from vap_console.ledger.accounts import account_tag
from vap_console.tui.screens.login import LoginScreen
from vap_console.tui.screens.profiles import ProfilesScreen
from vap_console.tui.widgets.status_bar import StatusBar

AGENT = "sk_sandbox_agent"
VERIFIED = "sk_sandbox_verified"
SIZE = (110, 30)

pytestmark = pytest.mark.usefixtures("xdg_dirs")


def top_line(app) -> str:
    return str(app.screen.query_one(StatusBar).render())


async def test_an_env_key_session_says_env_and_follows_the_profile_added(live_sandbox) -> None:
    store = KeyStore(backend=MemoryKeyring(), env={"VAP_API_KEY": AGENT, "VAP_BASE_URL": live_sandbox.base_url})
    creds = store.resolve()
    assert creds.profile == "default" and creds.source == "env"
    app = profile_console(store, creds)
    # Env sessions against different servers (or with different keys) keep apart what they remember.
    assert app.local_index.profile == "account-" + account_tag(live_sandbox.base_url, AGENT)
    assert account_tag("http://127.0.0.1:1", AGENT) != account_tag("http://127.0.0.1:2", AGENT)
    ledger = app.calls.ledger.path
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert "profile env " in top_line(app)
        assert "default" not in top_line(app)
        await pilot.press("7")
        await settle(pilot)
        await pilot.press("a")
        await until(pilot, lambda: laid_out(app, "LoginScreen #login-save"))
        login = app.screen
        assert isinstance(login, LoginScreen)
        fill_login(login, "qa1", live_sandbox.base_url, VERIFIED)
        await click(pilot, "#login-save")
        await settle(pilot)
        assert isinstance(app.screen, ProfilesScreen)
        # qa1 is the only profile, so the active one: the console now runs on it (the env key still wins).
        assert app.profile_name == "qa1"
        assert "profile qa1 (env key)" in top_line(app)
        # Still the same account (the env key at the same server): the same calls ledger.
        assert app.calls.ledger.path == ledger


def test_a_live_key_for_a_local_sandbox_is_warned_about_at_start(live_sandbox) -> None:
    live = KeyStore(backend=MemoryKeyring(), env={"VAP_API_KEY": "rk_live_abcdefghijklmnopqrstuvwx",
                                                   "VAP_BASE_URL": live_sandbox.base_url})
    app = profile_console(live, live.resolve())
    assert len(app.start_warnings) == 1 and "live key" in app.start_warnings[0]
    test_key = KeyStore(backend=MemoryKeyring(), env={"VAP_API_KEY": AGENT, "VAP_BASE_URL": live_sandbox.base_url})
    assert profile_console(test_key, test_key.resolve()).start_warnings == []


def test_a_sandbox_env_key_keeps_its_calls_out_of_the_profiles_ledger(live_sandbox) -> None:
    from vap_console.credentials import ProfileStore

    keyring = MemoryKeyring()
    ProfileStore().add("work", "https://api.example.com")
    KeyStore(backend=keyring, env={}).set("work", "rk_live_abcdefghijklmnopqrstuvwx")
    real = KeyStore(backend=keyring, env={})
    own = profile_console(real, real.resolve())
    sandbox = KeyStore(backend=keyring, env={"VAP_API_KEY": AGENT, "VAP_BASE_URL": live_sandbox.base_url})
    env = profile_console(sandbox, sandbox.resolve())
    assert own.calls.ledger.path.name == "work.sqlite3"  # where it always was
    assert env.calls.ledger.path != own.calls.ledger.path
    assert env.local_index.profile != own.local_index.profile
