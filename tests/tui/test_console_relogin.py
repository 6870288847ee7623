"""A refused key leads to the login screen: at start (a stored key since revoked) and mid-session (a 401)."""

from __future__ import annotations

import pytest
from textual.widgets import Input

from tests.credentials.backends import MemoryKeyring
from tests.tui.console_scenes import click, settle
from vap_console.api import VapClient
from vap_console.credentials import KeyStore
from vap_console.tui.app import make_app
from vap_console.tui.screens.login import LoginApp, LoginScreen, resolve_or_login
from vap_console.tui.screens.voices import VoicesScreen
from vap_console.tui.widgets.rows import RowTable

REVOKED = "sk_sandbox_revoked"
VERIFIED = "sk_sandbox_verified"
SIZE = (120, 36)

pytestmark = pytest.mark.usefixtures("xdg_dirs")


def test_a_revoked_stored_key_opens_the_login_screen_saying_so(live_sandbox, monkeypatch) -> None:
    store = KeyStore(backend=MemoryKeyring())
    store.store_login("work", live_sandbox.base_url, REVOKED)
    shown: list[LoginApp] = []
    monkeypatch.setattr(LoginApp, "run", lambda self: shown.append(self))
    assert resolve_or_login(store, check_stored=True) is None
    (app,) = shown
    args = app._screen_args
    assert (args["profile"], args["base_url"]) == ("work", live_sandbox.base_url)
    assert "refused" in args["reason"] and "HTTP 401" in args["reason"]


def test_a_good_stored_key_opens_the_console_directly(live_sandbox, monkeypatch) -> None:
    store = KeyStore(backend=MemoryKeyring())
    store.store_login("work", live_sandbox.base_url, VERIFIED)
    monkeypatch.setattr(LoginApp, "run", lambda self: pytest.fail("login screen shown"))
    creds = resolve_or_login(store, check_stored=True)
    assert creds is not None and creds.source == "keyring"


async def test_a_401_during_the_session_offers_the_login_and_a_new_key_carries_on(live_sandbox) -> None:
    store = KeyStore(backend=MemoryKeyring())
    store.store_login("work", live_sandbox.base_url, REVOKED)  # revoked since it was stored
    app = make_app(
        client_factory=lambda: VapClient(live_sandbox.base_url, REVOKED, max_retries=0),
        profile_name="work",
        base_url=live_sandbox.base_url,
        credentials=store,
        start_screen="voices",
    )
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, expect_failed_workers=True)  # the refused key fails its worker
        login = app.screen
        assert isinstance(login, LoginScreen)
        assert "HTTP 401" in login._reason
        assert login.query_one("#profile", Input).value == "work"
        login.query_one("#key", Input).value = VERIFIED
        await click(pilot, "#login-save")
        await settle(pilot, expect_failed_workers=True)
        assert isinstance(app.screen, VoicesScreen)
        assert app.connection == "online"
        assert app.client.key_hint.endswith("fied")
        assert app.screen.query_one(RowTable).row_count > 0
        assert store.resolve("work").key == VERIFIED
