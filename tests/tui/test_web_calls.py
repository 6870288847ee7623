"""Web calls as a person meets them, end to end on the sandbox: the confirm that says what a call
costs, the call slots, drafts and deploying, and each of the call endpoints' errors explained."""

from __future__ import annotations

import asyncio
import io
import json
from pathlib import Path

import httpx
from rich.console import Console as RichConsole
from textual.widgets import Button, Input, Static

from tests.tui.console_scenes import LoseFirstCallAnswer, build_console, click, settle, until, web_call
from vap_console.sandbox.keys import by_name
from vap_console.tui.screens.agent_dialog import CreateAgentScreen
from vap_console.tui.screens.agents import AgentsScreen
from vap_console.tui.screens.webcall import WebCallConfirm, WebCallScreen
from vap_console.tui.widgets.banner import Banner
from vap_console.tui.widgets.field_error import FieldError
from vap_console.tui.widgets.key_bar import KeyBar
from vap_console.tui.widgets.rows import RowTable

SIZE = (120, 36)


def plain(widget: Static, width: int = 200) -> str:
    out = RichConsole(width=width, record=True, file=io.StringIO())
    out.print(widget.content)
    return out.export_text()


def screen_text(app) -> str:
    return "\n".join(plain(w) for w in app.screen.query(Static))


def banner(app) -> str:
    return app.screen.query_one(Banner).message


def rows(app) -> RowTable:
    return app.screen.query_one(RowTable)


def agent_id(console, prefix: str) -> str:
    return next(a.id for a in console.account.agents.values() if a.name.startswith(prefix))


class Recorder(httpx.AsyncBaseTransport):
    """Passes every request on and remembers it as "METHOD /path"."""

    def __init__(self, inner: httpx.AsyncBaseTransport) -> None:
        self.inner = inner
        self.seen: list[str] = []

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        self.seen.append(f"{request.method} {request.url.path}")
        return await self.inner.handle_async_request(request)

    def count(self, what: str) -> int:
        return self.seen.count(what)


def recorded(**options) -> tuple:
    made: list[Recorder] = []

    def wrap(inner: httpx.AsyncBaseTransport) -> Recorder:
        made.append(Recorder(inner))
        return made[-1]

    console = build_console(start_screen="agents", transport_wrapper=wrap, **options)
    return console, made[0]


async def test_w_asks_first_naming_the_agent_the_cost_and_the_slots_with_cancel_focused() -> None:
    console, sent = recorded()
    app = console.app
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert "web-call slots 0/4 in use" in plain(app.screen.query_one("#list-count", Static))
        rows(app).move_to_key(agent_id(console, "Kabir"))
        await pilot.press("w")
        await until(pilot, lambda: isinstance(app.screen, WebCallConfirm))
        await settle(pilot)
        text = screen_text(app)
        assert "Kabir – Feedback Calls" in text
        assert "billed from the moment it starts, even if nobody joins" in text
        assert "holds one of the account's concurrent-call slots until the participant leaves" in text
        assert "Call slots: 0/4 in use" in text
        assert app.focused is app.screen.query_one("#no", Button)
        await pilot.press("enter")  # the focused answer: no call
        await settle(pilot)
        assert isinstance(app.screen, AgentsScreen) and console.account.webcalls == []
        assert sent.count("POST /v1/webcall") == 0
        await web_call(pilot)
        assert isinstance(app.screen, WebCallScreen)
        assert "short-lived and good for this one room only" in screen_text(app)
        assert sent.count("POST /v1/webcall") == 1
        await pilot.press("escape")
        await until(pilot, lambda: "1/4 in use" in plain(app.screen.query_one("#list-count", Static)))


async def test_a_fifth_call_on_four_slots_is_explained_and_never_resent() -> None:
    console, sent = recorded()
    app = console.app
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        for _ in range(4):
            await web_call(pilot)
            assert isinstance(app.screen, WebCallScreen)
            await pilot.press("escape")
            await settle(pilot)
        await pilot.press("w")
        await until(pilot, lambda: isinstance(app.screen, WebCallConfirm))
        assert "4/4 in use — all taken" in screen_text(app)
        await pilot.press("y")
        await settle(pilot, expect_failed_workers=True)
        message = banner(app)
        assert "concurrency_limit_exceeded" in message and "4 of 4 slots are in use" in message
        assert "A slot frees when a caller leaves" in message
        assert sent.count("POST /v1/webcall") == 5 and len(console.account.webcalls) == 4
        # A slot comes back once a call's room closes; Retry asks again and the call starts.
        console.clock.advance(121)
        await click(pilot, "#banner-retry")
        await until(pilot, lambda: isinstance(app.screen, WebCallConfirm))
        assert sent.count("POST /v1/webcall") == 5
        await pilot.press("y")
        await until(pilot, lambda: isinstance(app.screen, WebCallScreen))
        assert sent.count("POST /v1/webcall") == 6


async def test_agent_start_failed_is_offered_as_a_retry_not_done_behind_the_persons_back() -> None:
    console, sent = recorded(api_key=by_name("flaky").key)
    app = console.app
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await web_call(pilot)
        assert "agent_start_failed" in banner(app) and "safe to try again" in banner(app)
        await settle(pilot)
        assert sent.count("POST /v1/webcall") == 1
        await click(pilot, "#banner-retry")
        await until(pilot, lambda: isinstance(app.screen, WebCallConfirm))
        await pilot.press("y")
        await until(pilot, lambda: isinstance(app.screen, WebCallScreen))
        assert sent.count("POST /v1/webcall") == 2


async def test_drafts_are_shown_explained_and_deployed_on_the_sandbox() -> None:
    console, sent = recorded()
    app = console.app
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert "D Deploy (sandbox)" in app.screen.query_one(KeyBar).render().plain
        meera = agent_id(console, "Meera")
        states = {rows(app).row_text(i)[0]: rows(app).row_text(i)[4] for i in range(rows(app).row_count)}
        assert states["Meera – EMI Reminders"] == "draft" and states["Kabir – Feedback Calls"] == "deployed"
        rows(app).move_to_key(meera)
        # A draft takes no calls: w says so and how to deploy it, asks nothing and sends nothing.
        await pilot.press("w")
        await until(pilot, lambda: "is a draft" in banner(app))
        await settle(pilot)
        assert not isinstance(app.screen, WebCallConfirm)
        message = banner(app)
        assert "Meera – EMI Reminders is a draft" in message and "nothing was started" in message
        assert "press D to deploy it here" in message
        assert sent.count("POST /v1/webcall") == 0
        await pilot.press("D")
        await until(pilot, lambda: console.account.agents[meera].deployed)
        await settle(pilot)
        assert rows(app).row_text(rows(app).keys.index(meera))[4] == "deployed"
        await web_call(pilot)
        assert isinstance(app.screen, WebCallScreen)


async def test_w_on_a_draft_of_a_real_service_points_to_the_dashboard_and_sends_nothing() -> None:
    console, sent = recorded()
    console.app.on_sandbox = False
    app = console.app
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        rows(app).move_to_key(agent_id(console, "Meera"))
        await pilot.press("w")
        await until(pilot, lambda: "is a draft" in banner(app))
        await settle(pilot)
        assert "deploy it in the dashboard" in banner(app) and "press D" not in banner(app)
        assert not isinstance(app.screen, WebCallConfirm)
        assert sent.count("POST /v1/webcall") == 0


async def test_deploy_is_offered_only_on_the_sandbox() -> None:
    console, sent = recorded()
    console.app.on_sandbox = False
    async with console.app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert "Deploy" not in console.app.screen.query_one(KeyBar).render().plain
        rows(console.app).move_to_key(agent_id(console, "Meera"))
        await pilot.press("D")
        await settle(pilot)
        assert not any(s.startswith("POST /sandbox") for s in sent.seen)


async def test_account_refusals_are_explained(tmp_path: Path) -> None:
    for name, words in (("nobalance", "Top up the account's balance"),
                        ("blocked", "paused after a failed payment")):
        console, sent = recorded(api_key=by_name(name).key)
        async with console.app.run_test(size=SIZE) as pilot:
            await settle(pilot)
            await web_call(pilot)
            assert words in banner(console.app), name
            assert sent.count("POST /v1/webcall") == 1


async def test_not_configured_is_explained_and_not_asked_again() -> None:
    console, sent = recorded(api_key=by_name("noagents").key)
    async with console.app.run_test(size=SIZE) as pilot:
        await settle(pilot, expect_failed_workers=True)
        text = screen_text(console.app)
        assert "not_configured" in text and "Voice agents are not available on this deployment" in text
        assert sent.count("GET /v1/agents") == 1


class NoAgentList(httpx.AsyncBaseTransport):
    """A server like the real one: GET /v1/agents/{ref} but no list."""

    def __init__(self, inner: httpx.AsyncBaseTransport) -> None:
        self.inner = inner

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        if request.method == "GET" and request.url.path == "/v1/agents":
            return httpx.Response(404, json={"error": "Not Found"})
        return await self.inner.handle_async_request(request)


async def test_without_a_list_agents_are_read_one_by_one_and_checked_when_added(tmp_path: Path) -> None:
    console = build_console(start_screen="agents", index_dir=tmp_path, transport_wrapper=NoAgentList)
    app = console.app
    app.local_index.index.add("agent", agent_id(console, "Meera"))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert rows(app).row_text(0)[0] == "Meera – EMI Reminders" and rows(app).row_text(0)[4] == "draft"
        await pilot.press("a")
        await settle(pilot)
        app.screen.query_one("#id-input", Input).value = "ua_nobody"
        await pilot.press("enter")
        await settle(pilot)
        assert "no agent with this id" in app.screen.query_one("#id-error", FieldError).message
        kabir = next(a for a in console.account.agents.values() if a.name.startswith("Kabir"))
        app.screen.query_one("#id-input", Input).value = kabir.handle
        await pilot.press("enter")
        await settle(pilot)
        assert "Kabir – Feedback Calls" in [rows(app).row_text(i)[0] for i in range(rows(app).row_count)]


class ChangedTemplate(httpx.AsyncBaseTransport):
    """The templates' first entry asks muga for a description, which muga does not take."""

    def __init__(self, inner: httpx.AsyncBaseTransport) -> None:
        self.inner = inner
        self.posts = 0

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        response = await self.inner.handle_async_request(request)
        if request.method == "POST" and request.url.path == "/v1/agents":
            self.posts += 1
        if request.url.path == "/v1/agents/templates":
            body = json.loads(await response.aread())
            body["items"][0]["ttsConfig"].update(model="muga", voice="", description="A calm voice")
            return httpx.Response(200, json=body)
        return response


async def test_a_template_voice_that_does_not_fit_is_named_before_anything_is_sent() -> None:
    made: list[ChangedTemplate] = []
    console = build_console(start_screen="templates",
                            transport_wrapper=lambda inner: made.append(ChangedTemplate(inner)) or made[-1])
    app = console.app
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("a")
        await until(pilot, lambda: isinstance(app.screen, CreateAgentScreen))
        await pilot.press(*"Night desk", "enter")
        await settle(pilot)
        message = app.screen.query_one("#tts-error", FieldError).message
        assert "Nothing was sent" in message
        assert "ttsConfig.description: must be empty: muga takes no description" in message
        assert made[0].posts == 0


async def test_an_agent_made_from_a_template_is_said_to_be_a_draft() -> None:
    console = build_console(start_screen="templates")
    app = console.app
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("a")
        await until(pilot, lambda: isinstance(app.screen, CreateAgentScreen))
        await pilot.press(*"Night desk", "enter")
        await settle(pilot)
        assert any("It is a draft" in n.message for n in app._notifications)


async def test_voices_say_how_each_engine_is_steered() -> None:
    console = build_console(start_screen="voices")
    app = console.app
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        lines = {}
        for key in ("muga", "mulberry", "mulberry-1.6"):
            rows(app).move_to_key(key)
            await settle(pilot)
            lines[key] = plain(app.screen.query_one("#detail", Static))
        assert "Steered by one leading tone tag ([neutral] [happy]" in lines["muga"]
        assert "no descriptions" in lines["muga"]
        assert "a description (4 offered) or a preset voice (speaker_1" in lines["mulberry"]
        assert "Steered by a preset voice (ira, aisha, siya, zoya) · no phone calls" in lines["mulberry-1.6"]


class HeldCall(httpx.AsyncBaseTransport):
    """Holds POST /v1/webcall until released, as a slow server does."""

    def __init__(self, inner: httpx.AsyncBaseTransport) -> None:
        self.inner = inner
        self.release = asyncio.Event()
        self.waiting = False

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        if request.method == "POST" and request.url.path == "/v1/webcall":
            self.waiting = True
            await self.release.wait()
        return await self.inner.handle_async_request(request)


async def test_a_call_being_started_is_never_cut_off_by_another_w() -> None:
    made: list[HeldCall] = []
    console = build_console(start_screen="agents",
                            transport_wrapper=lambda inner: made.append(HeldCall(inner)) or made[-1])
    app = console.app
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("w")
        await until(pilot, lambda: isinstance(app.screen, WebCallConfirm))
        await pilot.press("y")
        await until(pilot, lambda: made[0].waiting)
        await pilot.press("w")
        await until(pilot, lambda: any("being started" in n.message for n in app._notifications))
        assert not isinstance(app.screen, WebCallConfirm)
        made[0].release.set()
        await until(pilot, lambda: isinstance(app.screen, WebCallScreen))
        assert len(console.account.webcalls) == 1


async def test_retry_after_a_lost_answer_shows_the_first_call_and_takes_no_second_slot() -> None:
    made: list[LoseFirstCallAnswer] = []
    console = build_console(start_screen="agents",
                            transport_wrapper=lambda inner: made.append(LoseFirstCallAnswer(inner)) or made[-1])
    app = console.app
    count = lambda: plain(app.screen.query_one("#list-count", Static))  # noqa: E731
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        rows(app).move_to_key(agent_id(console, "Kabir"))
        await web_call(pilot)
        assert isinstance(app.screen, AgentsScreen)
        message = banner(app)
        assert "outcome_unknown" in message and "running and billing now" in message
        assert len(console.account.webcalls) == 1  # started, its answer lost
        await until(pilot, lambda: "1/4 in use" in count())
        await click(pilot, "#banner-retry")
        await until(pilot, lambda: isinstance(app.screen, WebCallConfirm))
        question = screen_text(app)
        assert "Ask again for the web call with Kabir – Feedback Calls?" in question
        assert "that call may already be running and billing" in question
        assert "Call slots: 1/4 in use; the first try, if it is running, is one of them" in question
        assert "a server that does not starts a second call, billed" in question
        assert made[0].keys == made[0].keys[:1]  # nothing sent before the yes
        await pilot.press("y")
        await until(pilot, lambda: isinstance(app.screen, WebCallScreen))
        first = console.account.webcalls[0]
        assert plain(app.screen.query_one("#value-call", Static)).strip() == first["callId"]
        assert plain(app.screen.query_one("#value-room", Static)).strip() == first["roomName"]
        assert len(console.account.webcalls) == 1
        assert made[0].keys[0] is not None and made[0].keys == [made[0].keys[0]] * 2
        await pilot.press("escape")
        await until(pilot, lambda: "1/4 in use" in count())
        # Once the call's credentials are shown, the next w is a new call with a key of its own.
        await web_call(pilot)
        assert isinstance(app.screen, WebCallScreen) and len(console.account.webcalls) == 2
        assert made[0].keys[2] != made[0].keys[0]
