"""A list that failed to load offers Retry: reachable with Tab, pressed with Enter or a click."""

from __future__ import annotations

import asyncio

import httpx
from textual.widgets import Button

from tests.tui.console_scenes import build_console, click, console_with_outage, settle, until
from vap_console.tui.widgets.list_state import ListState
from vap_console.tui.widgets.rows import RowTable

SIZE = (120, 36)


async def test_retry_of_a_failed_list_is_reached_with_tab_and_works() -> None:
    console, outage = console_with_outage(down=True, start_screen="tools")
    async with console.app.run_test(size=SIZE) as pilot:
        app = console.app
        await settle(pilot, expect_failed_workers=True)
        state = app.screen.query_one(ListState)
        assert state.kind == "error" and "Could not connect" in str(state.query_one("#state-text").content)
        await pilot.press("tab")
        assert isinstance(app.focused, Button) and app.focused.id == "state-retry"
        outage.down = False
        await pilot.press("enter")
        await until(pilot, lambda: app.screen.query_one(RowTable).total_count > 0)


async def test_a_click_on_retry_loads_the_list_again() -> None:
    console, outage = console_with_outage(down=True, start_screen="tools")
    async with console.app.run_test(size=SIZE) as pilot:
        app = console.app
        await settle(pilot, expect_failed_workers=True)
        outage.down = False
        await click(pilot, "#state-retry")
        await until(pilot, lambda: app.screen.query_one(RowTable).total_count > 0)


class Stalled(httpx.AsyncBaseTransport):
    """A server that sends the status line and headers of the list, then nothing more."""

    def __init__(self, inner: httpx.AsyncBaseTransport) -> None:
        self.inner = inner
        self.stall = True

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        # The console's own look at the server while offline (GET /v1/voices) always stalls: were
        # it answered, the list would load again by itself, and Retry would prove nothing.
        if not self.stall and request.url.path != "/v1/voices":
            return await self.inner.handle_async_request(request)

        async def trickle():
            yield b'{"items": ['
            await asyncio.Event().wait()  # the rest never comes

        return httpx.Response(200, headers={"content-type": "application/json"}, content=trickle())


async def test_a_stalled_list_says_so_and_offers_retry() -> None:
    stalls: list[Stalled] = []

    def wrap(inner: httpx.AsyncBaseTransport) -> Stalled:
        stalls.append(Stalled(inner))
        return stalls[0]

    # A short deadline for the test; the console's own default is 30 s (config.toml [network]).
    console = build_console(start_screen="tools", transport_wrapper=wrap, max_retries=0,
                            client_options={"request_timeout": 0.5, "total_timeout": 1.0})
    async with console.app.run_test(size=SIZE) as pilot:
        app = console.app
        state = app.screen.query_one(ListState)
        await until(pilot, lambda: state.kind == "error", timeout=30)
        assert "stalled" in str(state.query_one("#state-text").content)
        stalls[0].stall = False
        # The Retry button is built with the first error: click() waits until it is laid out.
        await click(pilot, "#state-retry")
        await until(pilot, lambda: app.screen.query_one(RowTable).total_count > 0)


class RealIds(httpx.AsyncBaseTransport):
    """The sandbox's answers with the real service's kind of x-request-id (a uuid) in place of its own."""

    def __init__(self, inner: httpx.AsyncBaseTransport, request_id: str) -> None:
        self.inner = inner
        self.request_id = request_id

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        response = await self.inner.handle_async_request(request)
        response.headers["x-request-id"] = self.request_id
        return response


async def test_a_list_error_names_the_request_for_support_shortened() -> None:
    # A refused key makes the list fail; the answer carries a real-service id (a uuid).
    long_id = "7f3c1a2b-9d4e-4f00-8a1b-0123456789ab"
    console = build_console(start_screen="tools", api_key="sk_sandbox_revoked", max_retries=0,
                            transport_wrapper=lambda inner: RealIds(inner, long_id))
    async with console.app.run_test(size=SIZE) as pilot:
        app = console.app
        await settle(pilot, expect_failed_workers=True)
        state = app.screen.query_one(ListState)
        await until(pilot, lambda: state.kind == "error")
        shown = str(state.query_one("#state-text").content)
        assert "(HTTP 401, unauthorized, request 7f3c1a2b…)" in shown, shown
        assert long_id not in shown
