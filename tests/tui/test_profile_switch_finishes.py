"""A profile switch started on Profiles finishes even when the person leaves Profiles (an area key)
while it is under way, and the area then on view shows the new profile's rows. Leaving cancelled
the screen's workers, the switch with them: the console was left on the new key with the old
profile's calls ledger (calls of one profile kept as another's), the old client, with its key,
never closed, and the area beneath showing what the old key read."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from tests.credentials.backends import MemoryKeyring
from tests.tui.console_scenes import settle, until
from vap_console.api import VapClient
from vap_console.credentials import KeyStore, LocalIndex
from vap_console.tui.app import make_app
from vap_console.tui.screens.profiles import ProfilesScreen
from vap_console.tui.widgets.rows import RowTable

pytestmark = pytest.mark.usefixtures("xdg_dirs")


async def test_leaving_profiles_while_it_switches_leaves_the_whole_console_on_the_new_profile(
        live_sandbox, tmp_path: Path) -> None:
    store = KeyStore(backend=MemoryKeyring())
    store.store_login("main", live_sandbox.base_url, "sk_sandbox_agent")
    store.store_login("other", live_sandbox.base_url, "sk_sandbox_verified")
    closed: list[VapClient] = []

    class Recorded(VapClient):
        async def __aexit__(self, *exc_info: object) -> None:
            await super().__aexit__(*exc_info)
            closed.append(self)

    first = Recorded(live_sandbox.base_url, "sk_sandbox_agent", max_retries=0)
    app = make_app(client_factory=lambda: first, profile_name="main", base_url=live_sandbox.base_url,
                   credentials=store, start_screen="voices",
                   local_index=LocalIndex("main", data_dir=tmp_path / "main"))
    async with app.run_test(size=(110, 30)) as pilot:
        await settle(pilot)
        await pilot.press("7")
        await until(pilot, lambda: isinstance(app.screen, ProfilesScreen))
        await settle(pilot)
        profiles = app.screen
        voices = app.screen_stack[-2]
        reloads: list[str] = []
        reload = voices.reload

        def counted() -> None:
            reloads.append(app.client.key_hint)
            reload()

        voices.reload = counted  # type: ignore[method-assign]
        # The switch is held where it puts the old profile's index away…
        old_index, gate, holding = app.local_index, asyncio.Event(), asyncio.Event()
        assert old_index is not None
        put_away = old_index.aclose

        async def held() -> None:
            holding.set()
            await gate.wait()
            await put_away()

        old_index.aclose = held  # type: ignore[method-assign]
        profiles.query_one(RowTable).move_to_key("other")
        await pilot.press("u")
        await until(pilot, holding.is_set)
        await pilot.press("4")  # …when the person goes back to Voices
        await until(pilot, lambda: app.screen is voices)
        gate.set()
        await settle(pilot)
        assert app.profile_name == "other" and app.client.key_hint.endswith("fied")
        assert app.calls is not None and app.calls.ledger.profile == "other"
        assert first in closed  # the old profile's client, and its key, let go
        assert reloads and reloads[-1].endswith("fied")  # Voices read again, with the new key
        assert app.is_running and app._exception is None
