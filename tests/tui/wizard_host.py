"""What the wizard and timeline tests share: a console stand-in on the sandbox and a POST spy.

The host is the smallest app the wizard needs (``client``, ``now()``, ``local_index``) so these
tests do not depend on the rest of the console; tests/tui/test_wizard_console.py goes through
the real console.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Awaitable, Callable
from contextlib import AsyncExitStack
from pathlib import Path

import httpx
from textual.app import App
from textual.pilot import Pilot
from textual.widgets import DataTable, Input

from tests.tui.console_scenes import DEADLINE, click, quiet, until
from vap_console.api import VapClient
from vap_console.api.polling import PollSchedule
from vap_console.credentials import LocalIndex
from vap_console.sandbox.app import create_app
from vap_console.sandbox.clock import VirtualClock
from vap_console.tui.failures import ShowsFailures
from vap_console.tui.remembered import Remembered
from vap_console.tui.screens.rental import RentalScreen, resume_remembered
from vap_console.tui.screens.wizard import RentalWizard
from vap_console.tui.untrusted import LiteralApp

BASE_URL = "http://sandbox.test"
POST_PATH = "/v1/phone-numbers"


def fast_schedule() -> PollSchedule:
    return PollSchedule(fast=0.02, slow=0.05, offline_max=0.1)

Action = Callable[[httpx.AsyncBaseTransport, httpx.Request], Awaitable[httpx.Response]]


class Spy(httpx.AsyncBaseTransport):
    """Records every rental POST; ``plan`` replaces the next POSTs' handling, one action each."""

    def __init__(self, inner: httpx.AsyncBaseTransport) -> None:
        self.inner = inner
        self.plan: list[Action] = []
        self.posts: list[httpx.Request] = []
        self.gets = 0
        self.get_paths: Counter[str] = Counter()  # GETs by path, counted as they are sent
        self.down = False  # True: the server cannot be reached at all

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        if self.down:
            raise httpx.ConnectError("connection refused")
        if request.method == "GET":
            self.gets += 1
            self.get_paths[request.url.path] += 1
        if request.method == "POST" and request.url.path == POST_PATH:
            # Read the streamed body once so the test can look at what was sent.
            await request.aread()
            self.posts.append(request)
            if self.plan:
                return await self.plan.pop(0)(self.inner, request)
        return await self.inner.handle_async_request(request)

    @property
    def keys(self) -> list[str]:
        return [r.headers["Idempotency-Key"] for r in self.posts]


def answer(status: int, body: dict, headers: dict | None = None) -> Action:
    async def act(inner: httpx.AsyncBaseTransport, request: httpx.Request) -> httpx.Response:
        await request.aread()
        return httpx.Response(status, json=body, headers=headers)

    return act


def lose_answer(*, after_sending: bool) -> Action:
    """The connection breaks: after the server handled the POST, or before it got there."""

    async def act(inner: httpx.AsyncBaseTransport, request: httpx.Request) -> httpx.Response:
        if after_sending:
            response = await inner.handle_async_request(request)
            await response.aread()
        else:
            await request.aread()
        raise httpx.ReadError("connection reset by peer")

    return act


async def no_wait(seconds: float) -> None:
    return None


class Host(ShowsFailures, LiteralApp[None]):
    """Stands in for the console: one client on an in-process sandbox, its clock, a local index,
    and the console's one handler of failures."""

    def __init__(self, *, key: str, clock: VirtualClock, index: LocalIndex, docs_dir: Path,
                 rate_limit: int = 600, faults: str | None = None, open_wizard: bool = True,
                 open_rental: str | None = None, resume: bool = False,
                 served_url: str | None = None) -> None:
        super().__init__()
        self.clock = clock
        self.local_index = Remembered(index, self.notify)
        self.sandbox = create_app(clock=clock, rate_limit=rate_limit, faults=faults)
        self.spy = Spy(httpx.ASGITransport(app=self.sandbox))
        self.key = key
        self.docs_dir = docs_dir
        self.open_wizard = open_wizard
        self.open_rental = open_rental
        self.resume = resume
        self.served_url = served_url
        self.bells = 0
        self.toasts: list[str] = []
        self._stack = AsyncExitStack()
        self.client: VapClient

    async def on_mount(self) -> None:
        if self.served_url is not None:  # a sandbox served over real HTTP
            client = VapClient(self.served_url, self.key, sleep=no_wait)
        else:
            client = VapClient(BASE_URL, self.key, transport=self.spy, sleep=no_wait)
        self.client = await self._stack.enter_async_context(client)
        if self.open_rental is not None:
            self.push_screen(RentalScreen(self.open_rental))
        elif self.open_wizard:
            self.push_screen(RentalWizard(self, start_dir=self.docs_dir))
        if self.resume:
            resume_remembered(self)

    async def on_unmount(self) -> None:
        await self._stack.aclose()

    def now(self):
        return self.clock.now()

    async def call_api(self, call, *, resend: bool = True):
        """Straight to the client: no console here to wait out a 429 or keep a connection state."""
        return await call(self.client)

    def bell(self) -> None:
        self.bells += 1

    def notify(self, message: str, **kwargs) -> None:  # type: ignore[override]
        self.toasts.append(message)
        super().notify(message, **kwargs)


def wizard_of(app: App) -> RentalWizard:
    screens = [s for s in app.screen_stack if isinstance(s, RentalWizard)]
    assert screens, f"no wizard open; screen stack is {app.screen_stack}"
    return screens[-1]


def values(wizard: RentalWizard) -> dict[str, str]:
    return {w.id: w.value for w in wizard.query(Input) if w.id}


def set_value(wizard: RentalWizard, input_id: str, value: str) -> None:
    wizard.query_one(f"#{input_id}", Input).value = value


async def pick_from_search(pilot: Pilot, wizard: RentalWizard, pattern: str = "", *,
                           city: str = "", ending: str | None = None) -> None:
    """Search, then Enter on the first result (or the one whose number ends with ``ending``)."""
    set_value(wizard, "pattern", pattern)
    set_value(wizard, "city", city)
    await click(pilot, "#search")
    table = wizard.query_one("#results", DataTable)
    await until(pilot, lambda: table.row_count > 0)
    numbers = [str(row.value) for row in table.rows]
    row = next(i for i, n in enumerate(numbers) if n.endswith(ending)) if ending is not None else 0
    table.move_cursor(row=row)
    table.focus()
    await until(pilot, lambda: table.cursor_row == row and table.has_focus)
    await pilot.press("enter")
    await until(pilot, lambda: wizard.query_one("#number", Input).value == numbers[row])


async def next_step(pilot: Pilot, wizard: RentalWizard, expect: str) -> None:
    await pilot.press("pagedown")
    await until(pilot, lambda: wizard.step == expect)
    if expect == "requirements":
        await until(pilot, lambda: "Loading" not in str(wizard.query_one("#requirements").content)
                    or wizard.banner.message)
    await quiet(pilot)


async def fill_end_user(pilot: Pilot, wizard: RentalWizard) -> None:
    set_value(wizard, "eu-name", "Acme Telecom Pvt Ltd")
    set_value(wizard, "eu-email", "ops@acme.example")
    set_value(wizard, "eu-address_line1", "12 MG Road")
    set_value(wizard, "eu-city", "Bengaluru")
    set_value(wizard, "eu-postal_code", "560001")
    set_value(wizard, "eu-country", "IN")
    set_value(wizard, "eu-registration_number", "U64200KA2020PTC123456")
    await quiet(pilot)  # every field checked


async def fill_documents(pilot: Pilot, wizard: RentalWizard) -> None:
    set_value(wizard, "doc-0-field-gstin", "29ABCDE1234F1ZW")
    set_value(wizard, "doc-0-path", "kyc/incorporation.pdf")
    set_value(wizard, "doc-1-path", "kyc/electricity-bill.pdf")
    set_value(wizard, "doc-2-field-pan", "ABCDE1234F")
    set_value(wizard, "doc-2-path", "kyc/pan-card.png")
    await quiet(pilot)  # every field and file checked


async def to_documents(pilot: Pilot, wizard: RentalWizard) -> None:
    """Walk a fresh wizard to the Documents step: a number typed, the end user filled in."""
    set_value(wizard, "number", "912272401010")
    await next_step(pilot, wizard, "requirements")
    await next_step(pilot, wizard, "enduser")
    await fill_end_user(pilot, wizard)
    await next_step(pilot, wizard, "documents")


async def to_review(pilot: Pilot, wizard: RentalWizard, *, pattern: str | None = None,
                    number: str | None = None, city: str = "", ending: str | None = None) -> None:
    """Walk a fresh wizard to the review step with a complete application.

    With ``pattern`` (or ``city``) the number comes from a search; otherwise it is typed.
    """
    if pattern is not None or city:
        await pick_from_search(pilot, wizard, pattern or "", city=city, ending=ending)
    else:
        set_value(wizard, "number", number or "912272401010")
    await next_step(pilot, wizard, "requirements")
    if wizard.requirements is not None and wizard.requirements.verified_kyc:
        await next_step(pilot, wizard, "review")
        return
    await next_step(pilot, wizard, "enduser")
    await fill_end_user(pilot, wizard)
    await next_step(pilot, wizard, "documents")
    await fill_documents(pilot, wizard)
    await next_step(pilot, wizard, "review")


async def confirm_rent(pilot: Pilot, wizard: RentalWizard) -> None:
    await pilot.press("pagedown")
    await click(pilot, "#yes")
    await pilot.pause()


def rental_screen(app: App) -> RentalScreen | None:
    screen = app.screen
    return screen if isinstance(screen, RentalScreen) else None


async def rental_shown(pilot: Pilot, app: App, timeout: float = DEADLINE) -> RentalScreen:
    """Wait until the rental screen is up with its rental loaded; that screen."""
    await until(pilot, lambda: rental_screen(app) is not None and rental_screen(app).rental is not None,
                timeout)
    return rental_screen(app)


def rental_gets(app: App, rental_id: str) -> int | None:
    """How many GETs of the rental the app has sent, when a Spy sees them (a Host on its in-process
    sandbox); None otherwise (the console, or a Host on a served sandbox)."""
    spy = getattr(app, "spy", None)
    if spy is None or getattr(app, "served_url", None) is not None:
        return None
    return spy.get_paths[f"{POST_PATH}/{rental_id}"]


async def answer_after_now(pilot: Pilot, app: App, screen: RentalScreen) -> None:
    """Wait until ``screen`` shows the answer to a poll sent after this moment (after the sandbox
    clock was moved, say), or has stopped polling.

    With a Spy: once the second poll after now has been sent, the answer to the first (sent after
    now) has been handed to the screen, which a pause lets it take. Without one: until the screen
    shows a new answer, which may have been asked for just before now.
    """
    asked = rental_gets(app, screen.rental_id)
    if asked is None:
        shown = screen.rental
        await until(pilot, lambda: screen.rental is not shown or not screen.polling)
        return
    await until(pilot, lambda: rental_gets(app, screen.rental_id) >= asked + 2 or not screen.polling)
    await pilot.pause()


async def follow_to(pilot: Pilot, app: App, status: str, *, clock: VirtualClock | None = None,
                    step_seconds: float = 5, limit: int = 40) -> str:
    """Advance the sandbox clock (``clock``, else the app's own) until the rental screen shows
    ``status`` or settles elsewhere; the status it shows then. Each step waits for the screen to
    show the server's answer at the new time, so no status is skipped on a slow machine."""
    clock = clock or app.clock
    await until(pilot, lambda: rental_screen(app) is not None)
    screen = rental_screen(app)
    await until(pilot, lambda: screen.rental is not None)
    for _ in range(limit):
        if screen.rental.status == status or screen.rental.is_terminal or not screen.polling:
            break
        clock.advance(step_seconds)
        await answer_after_now(pilot, app, screen)
    await until(pilot, lambda: not screen.polling or screen.rental.status == status)
    return screen.rental.status


async def rent_async(host: Host, number: str, docs: dict[str, Path] | None = None,
                     key: str | None = None) -> str:
    """Create a rental on the host's sandbox (documents sent when ``docs`` is given); its id."""
    return await rent_on_sandbox(host.sandbox, key or host.key, number, docs)


async def rent_on_sandbox(sandbox, key: str, number: str,  # a Starlette app
                          docs: dict[str, Path] | None = None) -> str:
    """Create a rental with ``key`` on an in-process sandbox, as an earlier run would have; its id.

    With ``docs`` (make_kyc_set's files) the application is complete: end user and documents.
    """
    from vap_console.api import RentalApplication, RentalDocument
    from vap_console.api.models import EndUser

    transport = httpx.ASGITransport(app=sandbox)
    async with VapClient(BASE_URL, key, transport=transport, sleep=no_wait) as client:
        documents = [
            RentalDocument(document_type_id=type_id, data_fields=fields, path=docs[type_id])
            for type_id, fields in (("business_registration", {"gstin": "29ABCDE1234F1ZW"}),
                                    ("address_proof", {}), ("signatory_id", {"pan": "ABCDE1234F"}))
        ] if docs else []
        application = RentalApplication(
            requested_number=number,
            end_user=EndUser(name="Acme Telecom Pvt Ltd") if docs else None,
            documents=documents,
        )
        return (await client.rent_number(application)).id


def rent_now(host: Host, number: str, docs: dict[str, Path] | None = None,
             key: str | None = None) -> str:
    import asyncio

    return asyncio.run(rent_async(host, number, docs, key))
