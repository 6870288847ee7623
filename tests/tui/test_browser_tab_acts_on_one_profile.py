"""A console `vap web` serves acts on its one profile only: from the page no profile is added,
switched to or removed, other profiles are not listed, and no key is typed in (a refused key says
to run `vap login` on the serving machine). The same console in a terminal still does all of it."""

from __future__ import annotations

import pytest

from tests.credentials.backends import MemoryKeyring
from tests.tui.console_scenes import settle
from vap_console import launch
from vap_console.api import VapClient
from vap_console.credentials import KeyStore, ProfileStore
from vap_console.tui.app import make_app
from vap_console.tui.screens.dialog import Confirm
from vap_console.tui.screens.login import LoginApp, LoginScreen
from vap_console.tui.screens.profiles import ProfilesScreen
from vap_console.tui.widgets.banner import Banner
from vap_console.tui.widgets.rows import RowTable

AGENT = "sk_sandbox_agent"
REVOKED = "sk_sandbox_revoked"
SIZE = (110, 30)
SENTENCE = "served to a browser (`vap web`) for profile 'main' only"

pytestmark = pytest.mark.usefixtures("xdg_dirs")


def console(base_url: str, store: KeyStore, key: str = AGENT, *, in_browser: bool = True):
    app = make_app(client_factory=lambda: VapClient(base_url, key, max_retries=0), profile_name="main",
                   base_url=base_url, credentials=store, start_screen="voices")
    app.in_browser = in_browser
    return app


@pytest.fixture
def profiles(live_sandbox) -> tuple[KeyStore, MemoryKeyring]:
    backend = MemoryKeyring()
    store = KeyStore(backend=backend)
    store.store_login("main", live_sandbox.base_url, AGENT)
    store.store_login("spare", live_sandbox.base_url, "sk_sandbox_verified")
    return store, backend


def banner_text(screen: ProfilesScreen) -> str:
    return screen.query_one(Banner).message


async def test_in_a_browser_profiles_lists_its_own_and_refuses_add_use_remove(live_sandbox, profiles) -> None:
    store, backend = profiles
    before = dict(backend.items)
    app = console(live_sandbox.base_url, store)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("7")
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, ProfilesScreen)
        table = screen.query_one(RowTable)
        assert [table.row_text(n)[1] for n in range(table.row_count)] == ["main"]  # not 'spare'
        assert SENTENCE in banner_text(screen) and "`vap login`" in banner_text(screen)
        for action in ("add", "use", "remove"):
            assert not screen.check_action(action, ()), action  # not offered in the key bar
        for key in ("a", "u", "d", "enter"):
            await pilot.press(key)
            await settle(pilot)
            assert app.screen is screen, key  # no login dialog, no confirm
        assert not any(isinstance(s, (LoginScreen, Confirm)) for s in app.screen_stack)
        assert app.profile_name == "main"
    assert backend.items == before
    assert set(ProfileStore().load().profiles) == {"main", "spare"}


async def test_the_same_console_in_a_terminal_still_offers_them(live_sandbox, profiles) -> None:
    store, _ = profiles
    app = console(live_sandbox.base_url, store, in_browser=False)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("7")
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, ProfilesScreen) and screen.query_one(RowTable).row_count == 2
        assert all(screen.check_action(action, ()) for action in ("add", "use", "remove"))
        assert SENTENCE not in banner_text(screen)


async def test_in_a_browser_a_refused_key_says_where_to_log_in_and_asks_for_none(live_sandbox) -> None:
    backend = MemoryKeyring()
    store = KeyStore(backend=backend)
    store.store_login("main", live_sandbox.base_url, REVOKED)  # revoked since it was stored
    app = console(live_sandbox.base_url, store, key=REVOKED)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, expect_failed_workers=True)
        assert not any(isinstance(s, LoginScreen) for s in app.screen_stack)
        said = [n.message for n in app._notifications]
        assert any("HTTP 401" in m and "`vap login --profile main` on the machine serving this page" in m
                   for m in said), said
    assert backend.items == {("vap-console", "main"): REVOKED}


def test_the_launcher_in_a_browser_opens_no_login_screen(live_sandbox, monkeypatch, capsys) -> None:
    monkeypatch.setenv(launch.IN_BROWSER, "1")
    monkeypatch.setattr(LoginApp, "run", lambda self: pytest.fail("a login screen in the browser"))
    ran = []
    monkeypatch.setattr(launch, "_run", lambda app: ran.append(app) or 0)
    store = KeyStore(backend=MemoryKeyring())
    monkeypatch.setattr(launch, "KeyStore", lambda: store, raising=False)
    import vap_console.credentials as credentials

    monkeypatch.setattr(credentials, "KeyStore", lambda: store)
    # no key: one line saying where to log in, nothing run
    store.profiles.add("main", live_sandbox.base_url)
    assert launch.console_main(profile="main") == 1
    assert "vap login --profile main` on the machine serving this page" in capsys.readouterr().err
    assert ran == []
    # a stored key, even one since revoked: the console opens on it, in browser mode, unchecked
    store.store_login("main", live_sandbox.base_url, REVOKED)
    assert launch.console_main(profile="main") == 0
    [app] = ran
    assert app.in_browser and app.profile_name == "main"
