"""The Profiles screen inside the console, against a sandbox served on loopback: keys are
verified for real (GET /v1/voices) and kept in an in-memory keyring."""

from __future__ import annotations

import keyring.errors
import pytest
from textual.widgets import Input

from tests.credentials.backends import FailingKeyring, MemoryKeyring
from tests.tui.console_scenes import click, click_again, fill_login, laid_out, quiet, settle, until
from vap_console.api import VapClient
from vap_console.credentials import KeyStore, LocalIndex, ProfileStore
from vap_console.tui.app import make_app
from vap_console.tui.screens.dialog import Confirm
from vap_console.tui.screens.login import LoginScreen
from vap_console.tui.screens.profiles import ProfilesScreen
from vap_console.tui.widgets.banner import Banner
from vap_console.tui.widgets.rows import RowTable

AGENT = "sk_sandbox_agent"
VERIFIED = "sk_sandbox_verified"
SIZE = (110, 30)

pytestmark = pytest.mark.usefixtures("xdg_dirs")


def console(base_url: str, store: KeyStore | None, profile: str = "main"):
    return make_app(
        client_factory=lambda: VapClient(base_url, AGENT, max_retries=0),
        profile_name=profile,
        base_url=base_url,
        credentials=store,
        start_screen="voices",
    )


async def open_profiles(pilot) -> ProfilesScreen:
    await settle(pilot)
    await pilot.press("7")
    await settle(pilot)
    assert isinstance(pilot.app.screen, ProfilesScreen)
    return pilot.app.screen


def rows(screen: ProfilesScreen) -> list[list[str]]:
    table = screen.query_one(RowTable)
    return [table.row_text(n) for n in range(table.row_count)]


@pytest.fixture
def two_profiles(live_sandbox) -> tuple[KeyStore, MemoryKeyring]:
    backend = MemoryKeyring()
    store = KeyStore(backend=backend)
    store.store_login("main", live_sandbox.base_url, AGENT)
    store.profiles.add("spare", live_sandbox.base_url)
    return store, backend


async def test_lists_profiles_with_source_and_masked_key_only(live_sandbox, two_profiles) -> None:
    store, _ = two_profiles
    app = console(live_sandbox.base_url, store)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_profiles(pilot)
        assert rows(screen) == [
            ["*", "main", live_sandbox.base_url, "keyring …gent"],
            ["", "spare", live_sandbox.base_url, "none"],
        ]
        assert AGENT not in app.export_screenshot()


async def test_add_verifies_the_key_and_keeps_it_in_the_keyring(live_sandbox, two_profiles) -> None:
    store, backend = two_profiles
    app = console(live_sandbox.base_url, store)
    async with app.run_test(size=SIZE) as pilot:
        await open_profiles(pilot)
        await pilot.press("a")
        await until(pilot, lambda: laid_out(app, "LoginScreen #login-save"))
        login = app.screen
        assert isinstance(login, LoginScreen)
        fill_login(login, "staging", live_sandbox.base_url, "sk_sandbox_revoked")
        await click(pilot, "#login-save")
        await settle(pilot)
        assert app.screen is login  # refused: the dialog stays, nothing kept
        assert ("vap-console", "staging") not in backend.items
        login.query_one("#key", Input).value = VERIFIED
        await click_again(pilot, "#login-save")
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, ProfilesScreen)
        assert ["", "staging", live_sandbox.base_url, "keyring …fied"] in rows(screen)
        assert screen.query_one(RowTable).cursor_key == "staging"
    assert backend.items[("vap-console", "staging")] == VERIFIED


async def test_use_points_the_console_at_the_profile_and_makes_it_active(
    live_sandbox, two_profiles
) -> None:
    store, _ = two_profiles
    store.store_login("other", live_sandbox.base_url, VERIFIED)
    app = console(live_sandbox.base_url, store)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_profiles(pilot)
        screen.query_one(RowTable).move_to_key("other")
        await pilot.press("u")
        await settle(pilot)
        assert app.profile_name == "other"
        assert app.client.key_hint.endswith("fied")
        assert ProfileStore().active().name == "other"
        assert isinstance(app.local_index.index, LocalIndex) and app.local_index.profile == "other"
        assert ["*", "other", live_sandbox.base_url, "keyring …fied"] in rows(screen)
        # The top line says the new server answers while Profiles is still up (not "connecting").
        assert app.screen is screen and app.connection == "online"
        voices = await app.client.list_voices()  # the new client works
        assert voices.models


async def test_use_a_profile_without_a_key_asks_for_one_first(live_sandbox, two_profiles) -> None:
    store, backend = two_profiles
    app = console(live_sandbox.base_url, store)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_profiles(pilot)
        screen.query_one(RowTable).move_to_key("spare")
        await pilot.press("u")
        await settle(pilot)
        login = app.screen
        assert isinstance(login, LoginScreen)
        assert login.query_one("#profile", Input).value == "spare"
        assert login.query_one("#base-url", Input).value == live_sandbox.base_url
        assert app.focused is login.query_one("#key", Input)
        login.query_one("#key", Input).value = VERIFIED
        await click_again(pilot, "#login-save")
        await settle(pilot)
        assert app.profile_name == "spare"
    assert backend.items[("vap-console", "spare")] == VERIFIED


async def test_remove_drops_key_profile_and_index_after_a_confirm(live_sandbox, two_profiles) -> None:
    store, backend = two_profiles
    store.store_login("spare", live_sandbox.base_url, VERIFIED)
    LocalIndex("spare").add("agents", "ua_helper")
    app = console(live_sandbox.base_url, store)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_profiles(pilot)
        screen.query_one(RowTable).move_to_key("spare")
        await pilot.press("d")
        await until(pilot, lambda: isinstance(app.screen, Confirm))
        await pilot.press("n")  # kept
        await settle(pilot)
        assert ProfileStore().get("spare") is not None
        await pilot.press("d")
        await until(pilot, lambda: isinstance(app.screen, Confirm))
        await pilot.press("y")
        await settle(pilot)
        assert [r[1] for r in rows(screen)] == ["main"]
    assert ("vap-console", "spare") not in backend.items
    assert ProfileStore().get("spare") is None
    assert not LocalIndex("spare").path.exists()


async def test_the_profile_in_use_cannot_be_removed(live_sandbox, two_profiles) -> None:
    store, backend = two_profiles
    app = console(live_sandbox.base_url, store)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_profiles(pilot)
        screen.query_one(RowTable).move_to_key("main")
        await pilot.press("d")
        await settle(pilot)
        assert "switch to another (u) before removing it" in screen.query_one(Banner).message
    assert ("vap-console", "main") in backend.items


async def test_a_failing_keyring_is_explained_once_and_nothing_breaks(live_sandbox) -> None:
    ProfileStore().add("main", live_sandbox.base_url)
    ProfileStore().add("spare", live_sandbox.base_url)
    store = KeyStore(backend=FailingKeyring(keyring.errors.InitError("no D-Bus session")))
    app = console(live_sandbox.base_url, store)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_profiles(pilot)
        assert [r[3] for r in rows(screen)] == ["unavailable", "unavailable"]
        message = screen.query_one(Banner).message
        assert "failed to start" in message and "keyrings.alt" in message
        # Removing needs the keyring: refused with the reason, nothing changed.
        screen.query_one(RowTable).move_to_key("spare")
        await pilot.press("d")
        await until(pilot, lambda: isinstance(app.screen, Confirm))
        await pilot.press("y")
        await settle(pilot)
        assert "Nothing was changed" in screen.query_one(Banner).message
    assert ProfileStore().get("spare") is not None


async def test_on_the_sandbox_console_profiles_say_they_are_not_used(live_sandbox) -> None:
    app = console(live_sandbox.base_url, None)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_profiles(pilot)
        assert "embedded sandbox" in screen.query_one(Banner).message
        await pilot.press("a")
        await quiet(pilot)
        assert app.screen is screen


async def test_escape_goes_back(live_sandbox, two_profiles) -> None:
    store, _ = two_profiles
    app = console(live_sandbox.base_url, store)
    async with app.run_test(size=SIZE) as pilot:
        await open_profiles(pilot)
        await pilot.press("escape")
        await until(pilot, lambda: not isinstance(app.screen, ProfilesScreen))


def test_snapshot_profiles(snap_compare, sandbox_transport) -> None:
    # A fixed address (the sandbox in-process) so the SVG is the same on every run.
    url = "http://localhost:8787"
    store = KeyStore(backend=MemoryKeyring())
    store.store_login("main", url, AGENT)
    store.profiles.add("staging", "https://staging.example.com")
    store.remember_for_session("staging", "sk_session_only_key_5678")
    store.profiles.add("ci", "https://api.example.com")
    app = make_app(
        client_factory=lambda: VapClient(url, AGENT, transport=sandbox_transport, max_retries=0),
        profile_name="main", base_url=url, credentials=store, start_screen="voices",
    )

    async def run_before(pilot) -> None:
        await open_profiles(pilot)

    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)


async def test_pressing_7_again_keeps_one_profiles_screen(live_sandbox, two_profiles) -> None:
    store, _ = two_profiles
    app = console(live_sandbox.base_url, store)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_profiles(pilot)
        depth = len(app.screen_stack)
        await pilot.press("7")
        await settle(pilot)
        assert app.screen is screen and len(app.screen_stack) == depth
        await pilot.press("escape")
        await until(pilot, lambda: not isinstance(app.screen, ProfilesScreen))


async def test_on_the_sandbox_profiles_offers_no_keys_that_cannot_work() -> None:
    from tests.tui.console_scenes import build_console
    from vap_console.tui.widgets.key_bar import KeyBar

    console_ = build_console()
    async with console_.app.run_test(size=SIZE) as pilot:
        app = console_.app
        await settle(pilot)
        await pilot.press("7")
        await settle(pilot)
        assert isinstance(app.screen, ProfilesScreen)
        bar = app.screen.query_one(KeyBar).render().plain
        assert "Add" not in bar and "Use" not in bar and "Remove" not in bar and "Back" in bar
        await pilot.press("a")
        await settle(pilot)
        assert isinstance(app.screen, ProfilesScreen)  # nothing opened
        assert "embedded sandbox" in app.screen.query_one(Banner).message
