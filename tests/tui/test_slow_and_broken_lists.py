"""A slow list is waited out, and one broken endpoint holds up no other: the console on a real
socket (tests/slow_server.py), the sandbox behind it, while the person switches areas.

Deadlines are the defaults scaled down (httpx's per-read timeout 0.3 s where it is 10 s, the
attempt's 20 s where it is 30 s). The slow list is held until the test lets it go, rather than
timed: by then the broken one has failed three times, well past the 0.3 s read timeout.
"""

from __future__ import annotations

import asyncio

import pytest
from textual.widgets import Static

from tests.slow_server import Behaviour, Close, Held, Stall, Trickle, UnkindServer
from tests.tui.console_scenes import click, until
from vap_console.api import VapClient
from vap_console.sandbox.app import create_app
from vap_console.sandbox.keys import DEFAULT_KEY
from vap_console.tui.app import VapApp, make_app
from vap_console.tui.settings import Settings
from vap_console.tui.widgets.list_state import ListState
from vap_console.tui.widgets.rows import RowTable

SIZE = (120, 36)
RENTALS, AGENTS, TOOLS = "/v1/phone-numbers", "/v1/agents", "/v1/tools"
# The defaults' shape, scaled: a read timeout shorter than the slow answer, an attempt's
# deadline longer.
DEADLINES = {"timeout": 0.3, "request_timeout": 20.0, "total_timeout": 60.0}


def console_on(server: UnkindServer) -> VapApp:
    return make_app(
        client_factory=lambda: VapClient(server.url, DEFAULT_KEY, **DEADLINES),
        profile_name="slow", base_url=server.url, settings=Settings(),
    )


def state_of(app: VapApp) -> tuple[str, str, int]:
    """The list on screen: its state (loading, error, empty…), its text, its row count."""
    state = app.screen.query_one(ListState)
    return state.kind, str(state.query_one("#state-text").content), app.screen.query_one(RowTable).total_count


def count_line(app: VapApp) -> str:
    return str(app.screen.query_one("#list-count", Static).render())


async def test_a_slow_list_lands_while_a_broken_one_fails_at_once_and_areas_change() -> None:
    release = asyncio.Event()
    async with UnkindServer(create_app(), {RENTALS: Held(release), AGENTS: Close()}) as server:
        app = console_on(server)
        async with app.run_test(size=SIZE) as pilot:
            await until(pilot, lambda: server.asked[RENTALS] == 1)
            assert state_of(app)[0] == "loading"
            await pilot.press("6")
            # The agents list the server hangs up on says so within a few seconds (three
            # attempts), while the rentals are still on their way.
            await until(pilot, lambda: state_of(app)[0] == "error", timeout=15)
            kind, text, _ = state_of(app)
            assert "GET /v1/agents" in text and "Press r to retry" in text
            # One list's failure is not the server's: the console is not offline, and looks
            # at nothing again by itself (an offline console would probe and reload it).
            assert app.connection != "offline"
            assert not release.is_set() and server.asked[RENTALS] == 1
            await pilot.press("2")
            await until(pilot, lambda: state_of(app)[2] > 0)  # Tools: the server answers others
            await pilot.press("1")
            assert state_of(app)[0] == "loading"
            await pilot.press("6", "1")
            release.set()
            await until(pilot, lambda: state_of(app)[2] > 0)
            assert "numbers" in count_line(app)
            # Asked once: not cut off by the read timeout, nor restarted by an area switch.
            assert server.asked[RENTALS] == 1
            assert server.asked[AGENTS] == 3  # its first attempt and two retries, then no more
            await pilot.press("6")
            kind, text, _ = state_of(app)
            assert kind == "error" and "GET /v1/agents" in text


async def test_a_slow_reload_after_an_outage_is_not_restarted_when_the_connection_flickers() -> None:
    release = asyncio.Event()
    async with UnkindServer(create_app()) as server:
        app = console_on(server)
        async with app.run_test(size=SIZE) as pilot:
            await until(pilot, lambda: state_of(app)[2] > 0)
            rows = state_of(app)[2]
            server.behaviours[RENTALS] = Held(release)
            await server.go_down()
            await pilot.press("r")
            await until(pilot, lambda: "offline: as of" in count_line(app))
            await server.come_up()
            # The console finds the server again by itself and reloads the rows kept: slowly.
            await until(pilot, lambda: server.asked[RENTALS] == 2)
            # Meanwhile the connection drops and comes back again (the Tools list cannot connect;
            # the console's own look at the server finds it back).
            await server.go_down()
            await pilot.press("2")
            await until(pilot, lambda: app.connection == "offline")
            await server.come_up()
            await until(pilot, lambda: app.connection == "online")
            await pilot.press("1")
            assert state_of(app)[2] == rows  # still the rows kept, still on their way
            release.set()
            await until(pilot, lambda: "offline" not in count_line(app))
            assert state_of(app)[2] == rows
            # The reload under way was left to land, not asked for again at each flicker.
            assert server.asked[RENTALS] == 2


@pytest.mark.parametrize(("behaviour", "said"), [
    (Stall(), "stopped arriving"),  # the head, then nothing: the read timeout
    (Trickle(0.05), "did not arrive in full within"),  # a byte at a time: the deadlines
])
async def test_a_stalled_or_trickling_list_ends_in_an_error_with_retry(behaviour: Behaviour, said: str) -> None:
    async with UnkindServer(create_app(), {TOOLS: behaviour}) as server:
        app = make_app(
            client_factory=lambda: VapClient(server.url, DEFAULT_KEY, timeout=0.3, request_timeout=1.0,
                                             total_timeout=4.0),
            profile_name="slow", base_url=server.url, settings=Settings(), start_screen="tools",
        )
        async with app.run_test(size=SIZE) as pilot:
            await until(pilot, lambda: state_of(app)[0] == "error", timeout=30)
            text = state_of(app)[1]
            assert said in text and "GET /v1/tools" in text
            assert app.connection != "offline"
            del server.behaviours[TOOLS]
            await click(pilot, "#state-retry")
            await until(pilot, lambda: state_of(app)[2] > 0)
