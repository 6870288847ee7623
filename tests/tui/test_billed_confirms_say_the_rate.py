"""The confirm before every billed call (a web call, Talk, an outbound call) says what a minute
costs where the server publishes a rate (the sandbox: with its call slots), and says plainly that
none is published where it is not (the real service: its slots answer has no price)."""

from __future__ import annotations

import json

import httpx
import pytest
from textual.widgets import Input, Static

from tests.tui.console_scenes import build_console, settle, until
from tests.tui.test_calls_screen import active_trunk
from tests.tui.test_web_calls import agent_id, rows
from vap_console.tui.screens.call_dialog import PlaceCallConfirm, PlaceCallDialog
from vap_console.tui.screens.talk import TalkConfirm
from vap_console.tui.screens.webcall import WebCallConfirm

PUBLISHED = "Rate: 3 credits per started minute, as this server publishes it."
NONE_PUBLISHED = ("Rate: this server publishes no per-minute price; what a call cost (its credits) is on "
                  "its record once it has ended.")


class NoPriceLimits(httpx.AsyncBaseTransport):
    """GET /v1/agent/limits answered as the real service answers it: the slots, no price."""

    def __init__(self, inner: httpx.AsyncBaseTransport) -> None:
        self.inner = inner

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        response = await self.inner.handle_async_request(request)
        if request.url.path != "/v1/agent/limits" or response.status_code != 200:
            return response
        body = json.loads(await response.aread())
        body.pop("credits_per_started_minute", None)  # none before the sandbox published one
        return httpx.Response(200, json=body)


async def ask(pilot, console, key: str) -> None:
    """The agent's billed call asked about, up to its confirm."""
    rows(pilot.app).move_to_key(agent_id(console, "Kabir"))
    await pilot.press(key)
    if key == "o":
        await until(pilot, lambda: isinstance(pilot.app.screen, PlaceCallDialog)
                    and pilot.app.screen.query("#call-from"))
        pilot.app.screen.query_one("#call-to", Input).value = "+919812340001"
        pilot.app.screen.query_one("#call-from", Input).value = active_trunk(console)
        await pilot.press("ctrl+s")
    confirm = {"w": WebCallConfirm, "t": TalkConfirm, "o": PlaceCallConfirm}[key]
    await until(pilot, lambda: isinstance(pilot.app.screen, confirm))
    await settle(pilot)


@pytest.mark.parametrize("key", ["w", "t", "o"])
@pytest.mark.parametrize(("wrapper", "said"), [(None, PUBLISHED), (NoPriceLimits, NONE_PUBLISHED)],
                         ids=["sandbox", "no-price"])
async def test_every_billed_call_confirm_says_the_rate_or_that_none_is_published(key, wrapper, said) -> None:
    console = build_console(start_screen="agents", transport_wrapper=wrapper)
    async with console.app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        await ask(pilot, console, key)
        text = " ".join(" ".join(str(w.content) for w in pilot.app.screen.query(Static)).split())
        assert "billed" in text and said in text
        await pilot.press("escape")  # and nothing is started
        await settle(pilot)
        assert console.account.webcalls == [] and not console.account.calls
