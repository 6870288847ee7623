"""The console on a sandbox, and the scenes its snapshot tests and `make screenshots` share.

Every scene builds a fresh sandbox on a VirtualClock at the sandbox EPOCH, talks to it through
httpx.ASGITransport, waits for every worker, and freezes cursors, so a scene renders the same
SVG on every run.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
from textual.app import App
from textual.command import Command, CommandList, CommandPalette
from textual.pilot import Pilot
from textual.screen import Screen
from textual.widgets import Input, TextArea
from textual.worker import WorkerFailed, WorkerState

from tests.sandbox.socket_calls import instant
from vap_console.api import VapClient
from vap_console.credentials import LocalIndex
from vap_console.sandbox.app import create_app
from vap_console.sandbox.clock import VirtualClock
from vap_console.sandbox.keys import DEFAULT_KEY
from vap_console.tui.app import VapApp, make_app
from vap_console.tui.settings import Settings

BASE_URL = "http://sandbox.test"
SIZE = (120, 36)
REVOKED_KEY = "sk_sandbox_revoked"

EMPTY_BODIES: dict[str, object] = {
    "/v1/phone-numbers": {"items": [], "count": 0},
    "/v1/tools": {"items": [], "count": 0},
    "/v1/variables": {"items": [], "count": 0},
    "/v1/voices": {"defaultModel": "", "models": []},
    "/v1/agents/templates": {"items": [], "count": 0},
    "/v1/agents": {"items": [], "count": 0},
}


class EmptyLists(httpx.AsyncBaseTransport):
    """Answers the list GETs named with an empty list, as a new account would; the rest pass through."""

    def __init__(self, inner: httpx.AsyncBaseTransport, paths: set[str]) -> None:
        self.inner = inner
        self.paths = paths

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        if request.method == "GET" and request.url.path in self.paths:
            return httpx.Response(200, json=EMPTY_BODIES[request.url.path])
        return await self.inner.handle_async_request(request)


class Outage(httpx.AsyncBaseTransport):
    """The network between the console and the server: while ``down`` no connection is made."""

    def __init__(self, inner: httpx.AsyncBaseTransport, *, down: bool) -> None:
        self.inner = inner
        self.down = down

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        if self.down:
            raise httpx.ConnectError("connection refused", request=request)
        return await self.inner.handle_async_request(request)


@dataclass
class Console:
    app: VapApp
    clock: VirtualClock
    sandbox: Any  # the Starlette app; state in .state.sandbox
    api_key: str = DEFAULT_KEY

    @property
    def account(self) -> Any:
        """The sandbox account behind the console's key, to change the server under the console."""
        from vap_console.sandbox.keys import SANDBOX_KEYS

        return self.sandbox.state.sandbox.account(SANDBOX_KEYS[self.api_key])


def build_console(
    *,
    start_screen: str = "numbers",
    api_key: str = DEFAULT_KEY,
    empty: set[str] | None = None,
    index_dir: Path | None = None,
    settings: Settings | None = None,
    rate_limit: int = 600,
    clock: VirtualClock | None = None,
    max_retries: int = 2,
    transport_wrapper: Callable[[httpx.AsyncBaseTransport], httpx.AsyncBaseTransport] | None = None,
    client_options: dict[str, Any] | None = None,
    faults: str = "",
) -> Console:
    clock = clock or VirtualClock()
    sandbox = create_app(clock=clock, rate_limit=rate_limit, faults=instant(faults))  # its clock moved by hand
    transport: httpx.AsyncBaseTransport = httpx.ASGITransport(app=sandbox)
    if empty:
        transport = EmptyLists(transport, empty)
    if transport_wrapper is not None:
        transport = transport_wrapper(transport)

    async def advance(seconds: float) -> None:
        # Waiting (Retry-After, backoff) moves the virtual clock instead of real time.
        clock.advance(seconds)

    def client() -> VapClient:
        return VapClient(BASE_URL, api_key, transport=transport, sleep=advance, max_retries=max_retries,
                         **(client_options or {}))

    app = make_app(
        client_factory=client,
        profile_name="sandbox",
        base_url=BASE_URL,
        clock=clock.now,
        local_index=LocalIndex("sandbox", data_dir=index_dir) if index_dir else None,
        settings=settings or Settings(),
        start_screen=start_screen,
        on_sandbox=True,
    )
    app.sleep = advance
    return Console(app, clock, sandbox, api_key)


def console_with_outage(*, down: bool, **options: Any) -> tuple[Console, Outage]:
    """A console (``build_console(**options)``) whose network the test cuts and restores with
    ``outage.down``; ``down``: whether it starts cut."""
    outages: list[Outage] = []

    def wrap(inner: httpx.AsyncBaseTransport) -> Outage:
        outages.append(Outage(inner, down=down))
        return outages[-1]

    console = build_console(transport_wrapper=wrap, **options)
    return console, outages[0]


# How long `until` waits for a state before the test fails. It bounds a failure and never paces a
# success, so it is generous: a loaded machine (two busy loops on two cores, the suite's bar) makes
# a test slower, never red. Well inside pytest's 120 s per test.
DEADLINE = 60.0


async def until(pilot: Pilot, predicate: Callable[[], object], timeout: float = DEADLINE) -> None:
    """Wait until the predicate holds: for what lands a few message hops after a worker ends.

    ``timeout`` only bounds a failure; pass a shorter one only where the state must come soon.

    Between looks it only sleeps, and the app goes on by itself (its messages, workers and the
    screen's own update timer run on this loop). Not Pilot.pause(0.02): each of those posted a
    callback to every widget of the screen and painted it, so a wait cost CPU in proportion to
    how long the machine took: a third of a wizard test's CPU went on waiting.
    """
    app = pilot.app
    deadline = time.monotonic() + timeout
    while not predicate():
        if app._exception is not None:  # the app stopped on an error: the state will never come
            raise AssertionError(f"the app failed while waiting for "
                                 f"{getattr(predicate, '__name__', predicate)}") from app._exception
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout:g} s waiting for "
                                 f"{getattr(predicate, '__name__', predicate)}")
        await asyncio.sleep(0.02)


def laid_out(app: App, selector: str) -> bool:
    """Whether the current screen shows a widget matching ``selector`` laid out where a click on
    it lands (a dialog or a button that has just appeared may not be laid out yet)."""
    found = app.screen.query(selector)
    if not found:
        return False
    widget = found.first()
    region = widget.region
    if not region.area:
        return False
    try:
        hit, _ = app.screen.get_widget_at(region.x, region.y)
    except Exception:  # noqa: BLE001 - nothing there yet
        return False
    return hit is widget or widget in hit.ancestors


async def click(pilot: Pilot, selector: str) -> None:
    """Click what ``selector`` names once it is on screen where the click lands, as a person
    clicks what they see; fails if the click lands elsewhere."""
    await until(pilot, lambda: laid_out(pilot.app, selector))
    assert await pilot.click(selector), f"the click on {selector} landed elsewhere"


async def click_again(pilot: Pilot, selector: str) -> None:
    """Click a button pressed moments ago. A Button ignores clicks for 0.2 s after a press (its
    press effect); a person's second press comes later than that, and a test's must too."""
    from textual.widgets import Button

    button = pilot.app.screen.query_one(selector, Button)
    await until(pilot, lambda: not button.has_class("-active"))
    await click(pilot, selector)


def _queued(app: App) -> bool:
    """Whether a message or callback waits anywhere: the app, every screen on the stack and their
    widgets, or a redraw a screen has put off (Talk's, at most 10 a second: ``drawing_due``).
    (Textual keeps these in private attributes; the suite pins its version.)"""
    nodes = [app, *(node for screen in app.screen_stack for node in screen.walk_children(with_self=True))]
    return any(not node._message_queue.empty() or node._next_callbacks or getattr(node, "drawing_due", False)
               for node in nodes)


def _working(app: App) -> bool:
    return any(worker.state in (WorkerState.PENDING, WorkerState.RUNNING) for worker in app.workers)


async def quiet(pilot: Pilot, *, workers: bool = True, timeout: float = DEADLINE) -> None:
    """Wait until the app has nothing left to do: no message or callback queued anywhere and (with
    ``workers``) no worker pending or running, seen twice in a row with a pause between.

    For checking that something did NOT happen, or a picture: it looks once every consequence of
    what the test did has played out, however slow the machine, instead of after a fixed time.
    (Pilot.pause() alone does not: it returns when the process looks idle, and a process the
    machine does not schedule looks idle.) A loop that never settles fails after ``timeout``.

    The pause between two looks is a frame's sleep and a paint of what is due (what
    Pilot.pause() ends with); not Pilot.pause() itself, whose wait for the screen posts a
    callback to every widget each time: on the wizard that was a tenth of a test's CPU, and the
    looks here already see every queue.
    """
    app = pilot.app
    deadline = time.monotonic() + timeout
    calm = 0
    while calm < 2:
        if time.monotonic() > deadline:
            raise AssertionError(f"the app did not settle within {timeout:g} s")
        await asyncio.sleep(1 / 60)
        app.screen._on_timer_update()  # lay out and paint what is due now, as Pilot.pause() does
        busy = _queued(app) or (workers and _working(app))
        calm = 0 if busy else calm + 1


async def settle(pilot: Pilot, *, expect_failed_workers: bool = False) -> None:
    """Wait until no worker runs and the screen has drawn; stop cursors blinking.

    ``expect_failed_workers``: a worker may fail on purpose (a refused key fails its worker and the
    app handles it); whether the failed worker is still listed is a matter of timing, so let it pass.
    """
    app = pilot.app

    async def workers_done() -> None:
        try:
            await app.workers.wait_for_complete()
        except WorkerFailed:
            if not expect_failed_workers:
                raise

    await workers_done()
    await quiet(pilot)  # every message handled, every worker they started ended
    await workers_done()  # reports a worker that failed meanwhile
    for widget in app.screen.query("Input, TextArea"):
        if isinstance(widget, (Input, TextArea)):
            widget.cursor_blink = False
    await quiet(pilot)


def palette_first_match(app: App) -> str | None:
    """The text of the command the open palette highlights (what Enter runs); None while there is none."""
    screen = app.screen
    if not isinstance(screen, CommandPalette):
        return None
    options = screen.query_one(CommandList)
    if options.highlighted is None:
        return None
    option = options.get_option_at_index(options.highlighted)
    return str(option.hit.text) if isinstance(option, Command) else None


async def run_from_palette(pilot: Pilot, command: str) -> None:
    """Open the command palette (ctrl+p), type ``command`` and run the first match, as a person would:
    once the palette, searching in the background, lists the command first."""
    await pilot.press("ctrl+p")
    await until(pilot, lambda: isinstance(pilot.app.screen, CommandPalette))
    await pilot.press(*command)
    await until(pilot, lambda: command.lower() in (palette_first_match(pilot.app) or "").lower())
    await pilot.press("enter")


async def web_call(pilot: Pilot) -> None:
    """Ask for a web call (w) and say yes to its confirm once it is up, as a person would."""
    from vap_console.tui.screens.webcall import WebCallConfirm

    await pilot.press("w")
    await until(pilot, lambda: isinstance(pilot.app.screen, WebCallConfirm))
    await pilot.press("y")
    await settle(pilot, expect_failed_workers=True)


def fill_login(login: Screen, profile: str, base_url: str, key: str) -> None:
    """Put a profile's name, server and API key in the login screen's fields (as pasted)."""
    for field_id, value in (("profile", profile), ("base-url", base_url), ("key", key)):
        login.query_one(f"#{field_id}", Input).value = value


Steps = Callable[[Pilot], Awaitable[None]]


class LoseFirstCallAnswer(httpx.AsyncBaseTransport):
    """The first POST /v1/webcall reaches the server, which starts the call, and its answer is
    lost on the way back (the connection resets); every Idempotency-Key sent is kept."""

    def __init__(self, inner: httpx.AsyncBaseTransport) -> None:
        self.inner = inner
        self.keys: list[str | None] = []

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        if request.method == "POST" and request.url.path == "/v1/webcall":
            self.keys.append(request.headers.get("Idempotency-Key"))
            if len(self.keys) == 1:
                response = await self.inner.handle_async_request(request)
                await response.aread()
                raise httpx.ReadError("connection reset by peer")
        return await self.inner.handle_async_request(request)


async def _web_call_asked_again(pilot: Pilot) -> None:
    """A web call whose answer was lost, then Retry: the question before asking again."""
    from vap_console.tui.screens.webcall import WebCallConfirm

    await pilot.press("w")
    await until(pilot, lambda: isinstance(pilot.app.screen, WebCallConfirm))
    await pilot.press("y")
    await settle(pilot, expect_failed_workers=True)
    await click(pilot, "#banner-retry")
    await until(pilot, lambda: isinstance(pilot.app.screen, WebCallConfirm))


async def _nothing(pilot: Pilot) -> None:
    return None


def keys(*presses: str) -> Steps:
    async def run(pilot: Pilot) -> None:
        for key in presses:
            await pilot.press(key)
            await settle(pilot)

    return run


async def _tool_form_invalid(pilot: Pilot) -> None:
    await pilot.press("n")
    await settle(pilot)
    screen = pilot.app.screen
    screen.query_one("#f-name", Input).value = "9 lookup"
    screen.query_one("#f-config-url", Input).value = "crm.example/{customer_id}?q={order_ref}"
    screen.query_one("#f-config-timeoutMs", Input).value = "-5"
    screen.query_one("#f-config-params", TextArea).text = "phone={caller_number}\n=oops"
    screen.query_one("#f-config-llmParams", TextArea).text = "order_ref: the order number"
    await settle(pilot)
    await pilot.press("ctrl+s")
    await settle(pilot)


async def open_tool_try(pilot: Pilot, name: str) -> Any:
    """On Tools, highlight the tool called ``name`` and press x, as a person would: the Try dialog."""
    from vap_console.tui.screens.tool_try_dialog import ToolTryDialog

    await settle(pilot)
    screen = pilot.app.screen
    for _ in range(20):  # bounded: a tool not listed fails below, not forever
        current = getattr(screen, "current", None)
        if current is not None and current.name == name:
            break
        await pilot.press("down")
        await settle(pilot)
    await pilot.press("x")
    await until(pilot, lambda: isinstance(pilot.app.screen, ToolTryDialog))
    await settle(pilot)
    return pilot.app.screen


async def _tool_try(pilot: Pilot) -> None:
    """Try on the seeded order_status (an argument, an API-key secret), an order number typed: the
    request as it will go, nothing sent (its host is not on loopback: a picture needs no network)."""
    await open_tool_try(pilot, "order_status")
    await pilot.press(*"A-1042")
    await settle(pilot)


async def _palette(pilot: Pilot) -> None:
    await pilot.press("ctrl+p")
    await until(pilot, lambda: isinstance(pilot.app.screen, CommandPalette))
    # Unfiltered, the palette lists its providers' commands in the order they happen to arrive;
    # a search that one command matches draws the same picture every time.
    await pilot.press(*"go to voices")
    await until(pilot, lambda: "Voices" in (palette_first_match(pilot.app) or ""))
    await settle(pilot)


async def _create_agent(pilot: Pilot) -> None:
    await pilot.press("a")
    await settle(pilot)
    await pilot.press(*"Front desk 2")
    await settle(pilot)


@dataclass
class Scene:
    start: str
    steps: Steps = _nothing
    api_key: str = DEFAULT_KEY
    empty: set[str] = field(default_factory=set)
    transport_wrapper: Callable[[httpx.AsyncBaseTransport], httpx.AsyncBaseTransport] | None = None

    def build(self) -> Console:
        return build_console(start_screen=self.start, api_key=self.api_key, empty=self.empty,
                             transport_wrapper=self.transport_wrapper)

    async def run(self, pilot: Pilot) -> None:
        await settle(pilot)
        await self.steps(pilot)
        await settle(pilot)


AREA_PATHS = {
    "numbers": "/v1/phone-numbers",
    "tools": "/v1/tools",
    "variables": "/v1/variables",
    "voices": "/v1/voices",
    "templates": "/v1/agents/templates",
    "agents": "/v1/agents",
}

SCENES: dict[str, Scene] = {}
for _area, _path in AREA_PATHS.items():
    SCENES[_area] = Scene(_area)
    SCENES[f"{_area}_empty"] = Scene(_area, empty={_path})
    SCENES[f"{_area}_error"] = Scene(_area, api_key=REVOKED_KEY)
SCENES.update({
    "numbers_filtered": Scene("numbers", keys("slash", *"pune")),
    "tool_form_errors": Scene("tools", _tool_form_invalid),
    "tool_builtin_delete": Scene("tools", keys("d")),
    "tool_try": Scene("tools", _tool_try),
    "create_agent_dialog": Scene("templates", _create_agent),
    "webcall_confirm": Scene("agents", keys("w")),
    "webcall_dialog": Scene("agents", keys("w", "y")),
    "agent_draft_refused": Scene("agents", keys("down", "down", "w")),
    "webcall_ask_again": Scene("agents", _web_call_asked_again, transport_wrapper=LoseFirstCallAnswer),
    "delete_agent_confirm": Scene("agents", keys("d")),
    "keys_help": Scene("tools", keys("question_mark")),
    "rental": Scene("numbers", keys("down", "down", "down", "enter")),  # the active rental
    "add_rental_by_id": Scene("numbers", keys("a")),
    "wizard": Scene("numbers", keys("n")),
    "profiles": Scene("numbers", keys("7")),
    "palette": Scene("numbers", _palette),
    "voice_sample_prompt": Scene("voices", keys("down", "p")),  # mulberry: presets and descriptions
})
