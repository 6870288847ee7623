"""The console app and the factory everything else builds it with.

    make_app(client_factory=..., profile_name=..., base_url=...) -> VapApp

The app opens one API client on its first request (``await app.open_client()``, which ``call_api``
and mounting do; then ``app.client``) and closes it on exit. Every screen
runs its network I/O in workers; a worker that fails lands in ``VapApp.worker_failed`` — the one
place that turns an ApiError into the list's error state, a banner with Retry, or a toast.
"""

from __future__ import annotations

import asyncio
import contextlib
import importlib.util
from collections.abc import Awaitable, Callable
from contextlib import AsyncExitStack
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any, ClassVar, TypeVar
from urllib.parse import urlsplit

from textual import events, on
from textual.app import App
from textual.binding import Binding
from textual.dom import DOMNode
from textual.reactive import reactive
from textual.screen import Screen
from textual.widgets import Input
from textual.worker import Worker

from vap_console.api import VapClient, errors
from vap_console.credentials import KeyStore, LocalIndex, env_api_key
from vap_console.ledger import Ledger
from vap_console.tui import breakpoints
from vap_console.tui.areas import AREA_HELP, AREAS, LAZY_AREAS, PROFILES_MODULE
from vap_console.tui.call_book import CallBook
from vap_console.tui.commands import AreaCommands
from vap_console.tui.connection import MAX_RATE_LIMIT_RETRIES, MAX_RATE_LIMIT_WAIT, RECONNECT_FIRST, KeepsConnection
from vap_console.tui.failures import ApiFailed, HandlesFailures, HoldsUnsentInput, ShowsFailures
from vap_console.tui.keymap import known_binding_ids
from vap_console.tui.remembered import Remembered
from vap_console.tui.screens.answers_once import Palette
from vap_console.tui.screens.base import ListScreen
from vap_console.tui.screens.dialog import AreaMenu, Confirm, confirm_then
from vap_console.tui.screens.keys_help import KeysHelpScreen
from vap_console.tui.screens.numbers import NumbersScreen
from vap_console.tui.screens.rental import resume_remembered
from vap_console.tui.services import (
    AreasChanged,
    ConnectionObserved,
    ConnectionState,
    KnownNames,
    Services,
    Staleness,
)
from vap_console.tui.settings import Settings
from vap_console.tui.untrusted import LiteralApp
from vap_console.tui.widgets.banner import Banner

if TYPE_CHECKING:
    from textual.driver import Driver

    from vap_console.credentials import ResolvedCredentials
    from vap_console.ledger.accounts import AccountFiles

T = TypeVar("T")

def _area_screen(mode: str, services: Services | None) -> Callable[[], Any]:
    """How the app builds an area's screen, handing it the console's services. Areas other than
    Numbers are imported when first shown: start-up pays only for the first screen."""
    if mode == "numbers":
        return lambda: NumbersScreen(services)
    module, name = LAZY_AREAS[mode]
    return lambda: getattr(importlib.import_module(module), name)(services)



class VapApp(ShowsFailures, KeepsConnection, LiteralApp[int]):
    CSS_PATH = "console.tcss"
    TITLE = "vap console"
    # Classes every screen gets from the terminal's size; console.tcss lays out by them.
    HORIZONTAL_BREAKPOINTS = breakpoints.HORIZONTAL
    VERTICAL_BREAKPOINTS = breakpoints.VERTICAL
    # The areas by name; an instance hands its screens its services (see __init__).
    MODES: ClassVar[dict[str, Any]] = {mode: _area_screen(mode, None) for mode, _label, _key in AREAS}
    COMMANDS = App.COMMANDS | {AreaCommands}
    BINDINGS = [
        *(
            Binding(key, f"area('{mode}')", label, show=False, id=f"area.{mode}", tooltip=AREA_HELP[mode])
            for mode, label, key in AREAS
        ),
        Binding("7", "profiles", "Profiles", show=False, id="area.profiles", tooltip="Profiles and their API keys"),
        Binding("question_mark", "keys_help", "Keys", id="app.keys", tooltip="Show the keys of this screen"),
        Binding("q", "quit", "Quit", id="app.quit", tooltip="Leave the console"),
        Binding("ctrl+c", "quit", "Quit", show=False, priority=True, id="app.interrupt", tooltip="Leave the console"),
    ]

    # Shown in every screen's status line; "limited" while a 429 is waited out.
    connection: reactive[ConnectionState] = reactive("connecting")

    def __init__(
        self,
        *,
        client_factory: Callable[[], VapClient],
        profile_name: str,
        base_url: str,
        clock: Callable[[], datetime] | None = None,
        local_index: LocalIndex | None = None,
        settings: Settings | None = None,
        credentials: Any = None,
        start_screen: str = "numbers",
        on_sandbox: bool = False,
        ledger: Ledger | None = None,
    ) -> None:
        # Textual opens the app on DEFAULT_MODE: opening straight on the area spares a blank default
        # screen and the mode switch after it (which parses all the CSS again).
        # Textual reads both class variables in App.__init__ and offers no per-instance argument:
        # an instance attribute shadows them, which mypy refuses for a ClassVar.
        self.DEFAULT_MODE = start_screen  # type: ignore[misc]  # per instance on purpose, see above
        # Each area's screen is handed this app as its services (tui/services.py) rather than
        # finding the app itself.
        self.MODES = {mode: _area_screen(mode, self) for mode in type(self).MODES}  # type: ignore[misc]  # as DEFAULT_MODE
        super().__init__()
        self._opening: asyncio.Future[None] | None = None
        self._client_factory = client_factory
        self._clock = clock
        self._exit_stack = AsyncExitStack()
        self._client: VapClient | None = None
        self.profile_name = profile_name
        # What the top line calls the profile: "env" for a VAP_API_KEY session with no profile.
        self.profile_label = profile_name
        self.base_url = base_url
        # Read and written off the UI loop (its file is locked and fsynced on every change).
        self.local_index = Remembered(local_index, self._index_failed) if local_index is not None else None
        # The calls ledger: the account's (ledger/accounts.py), else beside the local index (the
        # sandbox's dies with its temp dir).
        if ledger is None and local_index is not None:
            ledger = Ledger(profile_name, data_dir=local_index.path.parent.parent)
        self.calls = CallBook(ledger, self._ledger_failed, self.now) if ledger is not None else None
        self.settings = settings if settings is not None else Settings()
        self.credentials = credentials
        if start_screen not in self.MODES:
            raise ValueError(f"start_screen must be one of {', '.join(self.MODES)}, not {start_screen!r}")
        self.start_screen = start_screen
        # The embedded sandbox (vap --sandbox): its sandbox-only actions (deploying an agent, which
        # the real service does in its dashboard) are offered.
        self.on_sandbox = on_sandbox
        # Served to a browser by `vap web` (the launcher sets it): no profile is added, switched
        # or removed from the page, and no key typed into it.
        self.in_browser = False
        # One-line warnings to show once the console is up (a key that does not fit its host).
        self.start_warnings: list[str] = []
        # Areas whose data changed elsewhere; their screens reload when next shown.
        self.stale = Staleness()
        # Variable names seen last, so the tool form can tell known placeholders from unknown ones.
        self.names = KnownNames()
        # How the app waits out a 429; tests swap in one that advances a virtual clock.
        self.sleep: Callable[[float], Awaitable[None]] = asyncio.sleep
        # False until the first screen has painted (it may wait a moment for its rows).
        self.painted = False
        # The last "quit and lose what was typed?" question: quit pressed while it is on top means it.
        self._quit_question: Confirm | None = None
        # While a 429 is waited out: when the next attempt goes, and the timer redrawing the banner.
        self._limited_until: datetime | None = None
        self._limited_timer: Any = None
        self._limited_banner: Banner | None = None
        # While offline: the timer of the next look at the server, and how long until the one after.
        self._reconnect_timer: Any = None
        self._reconnect_delay = RECONNECT_FIRST
        # Under `vap web`, a refused key is said once (every screen's next load would say it again).
        self._said_key_refused = False

    # --- the contract ---

    @property
    def client(self) -> VapClient:
        if self._client is None:
            raise RuntimeError("the API client is not open: it could not be opened, or not yet")
        return self._client

    def now(self) -> datetime:
        return self._clock() if self._clock is not None else datetime.now(UTC)

    # --- life cycle ---

    async def open_client(self) -> VapClient:
        """The API client, opened on first use: the start screen's first request goes out while
        the screen is still being built, rather than after."""
        if self._opening is None:
            self._opening = asyncio.ensure_future(self._open_client())
        opening = self._opening
        try:
            await asyncio.shield(opening)
        except Exception:
            if self._opening is opening:
                self._opening = None  # a Retry tries to open it again
            raise
        return self.client

    async def _open_client(self) -> None:
        client = await self._exit_stack.enter_async_context(self._client_factory())
        client.on_wait = self._client_waits
        # The embedded sandbox's port is known only once its process serves: the client says it.
        self.base_url = client.base_url
        self._client = client
        resume_remembered(self)

    async def on_mount(self) -> None:
        if self.settings.theme in self.available_themes:
            self.theme = self.settings.theme
        else:
            self.notify(
                f"theme {self.settings.theme!r} is not one of the console's themes; using {self.theme!r} "
                "(ctrl+p, then “theme”, lists them).",
                title="config.toml", severity="warning", markup=False,
            )
        if self.settings.keymap:
            self.set_keymap(self.settings.keymap)
            unknown = sorted(set(self.settings.keymap) - known_binding_ids())
            if unknown:
                self.notify(
                    f"[keymap] {', '.join(unknown)}: no binding has this id, so nothing was remapped "
                    "(press ? on a screen to see its ids).",
                    title="config.toml", severity="warning", markup=False,
                )
        if self.settings.problem:
            self.notify(self.settings.problem, title="config.toml", severity="warning")
        for warning in self.start_warnings:
            self.notify(warning, title="API key", severity="warning", timeout=12, markup=False)
        with contextlib.suppress(Exception):  # the start screen's list says why, with Retry
            await self.open_client()

    async def on_unmount(self) -> None:
        if self.local_index is not None:
            await self.local_index.aclose()  # an id just remembered is written before the exit
        if self.calls is not None:
            await self.calls.aclose()  # a call just started is kept before the exit
        await self._exit_stack.aclose()

    def _ledger_failed(self, message: str) -> None:
        self.notify(message, title="calls ledger", severity="warning", timeout=10)

    def _index_failed(self, message: str) -> None:
        self.notify(message, title="local index", severity="warning", timeout=10)

    async def switch_profile(self, credentials: ResolvedCredentials) -> None:
        """Point the console at another profile (the Profiles screen): a new client, areas reload."""
        key, base_url = credentials.key, credentials.base_url
        if not key or not base_url:
            raise ValueError(f"profile {credentials.profile!r} has no usable key and base URL")
        # The account's ledger and ids (ledger/accounts.py): chosen first, off the UI loop (it reads
        # files), so that nothing else runs between the switch of client and of ledger.
        files = await asyncio.to_thread(self._account_files, credentials)
        options = self.settings.client_options()
        factory = lambda: VapClient(base_url, key, **options)  # noqa: E731 - one line, read where it is used
        stack = AsyncExitStack()
        client = await stack.enter_async_context(factory())
        client.on_wait = self._client_waits
        old_stack, self._exit_stack = self._exit_stack, stack
        self._client_factory, self._client = factory, client
        self.profile_name, self.base_url = credentials.profile, base_url
        self.profile_label = profile_label(credentials, stored=True)
        old_index, self.local_index = self.local_index, Remembered(files.index, self._index_failed)
        if old_index is not None:
            await old_index.aclose()
        old_calls, self.calls = self.calls, CallBook(files.ledger, self._ledger_failed, self.now)
        if old_calls is not None:
            await old_calls.aclose()
        self.connection = "connecting"
        self.invalidate(*self.MODES)  # the area on view reloads now (Profiles may have been left meanwhile)
        resume_remembered(self)
        await old_stack.aclose()

    def _account_files(self, credentials: ResolvedCredentials) -> AccountFiles:
        from vap_console.ledger.accounts import account_files

        store = self.credentials if isinstance(self.credentials, KeyStore) else KeyStore()
        return account_files(store, credentials)

    def get_driver_class(self) -> type[Driver]:
        driver = super().get_driver_class()
        if driver.__module__ == "textual.drivers.linux_driver" and driver.__name__ == "LinuxDriver":
            # Textual's terminal driver, with a bracketed paste read whole (tui/whole_paste.py).
            # Imported here: the module needs termios, which only that platform's driver has.
            from vap_console.tui.terminal_driver import TerminalDriver

            return TerminalDriver
        return driver

    def watch_theme(self, theme: str) -> None:
        # Only a change made while the console runs is the person's choice to remember (App.is_mounted
        # is a method, so it was always true here: a theme set before the run overwrote config.toml).
        if self.settings.theme != theme and self.is_running:
            self.settings.theme = theme
            try:
                self.settings.save()
            except OSError as exc:
                self.notify(f"Could not remember the theme: {exc}", severity="warning")

    def _fatal_error(self) -> None:
        # Textual's default prints a traceback with local variables, which could hold the API key.
        # A person gets one line; tests still see the exception through the pilot.
        error = self._exception
        self.bell()
        self._exit_renderables.append(
            f"vap: the console stopped on an internal error ({type(error).__name__}: {error})."
        )
        self._close_messages_no_wait()

    def on_key(self, event: events.Key) -> None:
        # A key is forwarded on arrival to whatever has focus then, and reaches the app afterwards
        # only if that widget ignored it. A printable one arriving here while a text box has focus
        # was typed just before the box took it (right after `/`, or the key opening a form):
        # it belongs in the box. (The box's own keys never get here: a text box keeps them.)
        # The boxes that can be typed into this way do not select their text on focus, or the
        # next key would replace what was typed ahead.
        focused = self.focused
        if isinstance(focused, Input) and event.is_printable and event.character:
            event.prevent_default()  # no binding may run for it: the box would have had it
            focused.insert_text_at_cursor(event.character)

    # --- areas ---

    async def action_area(self, mode: str) -> None:
        if mode not in self.MODES:
            return
        if self.profiles_available:
            module = importlib.import_module(PROFILES_MODULE)
            if isinstance(self.screen, module.ProfilesScreen):
                # Profiles sits on top of the area it was opened from: going to an area leaves it,
                # the area it covered included, and it does not wait there to reappear.
                await self.pop_screen()
        if self.current_mode != mode:
            await self.switch_mode(mode)

    def action_area_menu(self) -> None:
        """The areas as a menu, for the mouse: a click on the top line opens it."""

        async def go(action: str | None) -> None:
            if action:
                await self.run_action(action)

        if not isinstance(self.screen, AreaMenu):
            current = next((label for mode, label, _key in AREAS if mode == self.current_mode), "")
            self.push_screen(AreaMenu(current), go)

    @property
    def profiles_available(self) -> bool:
        return importlib.util.find_spec(PROFILES_MODULE) is not None

    def action_profiles(self) -> None:
        if not self.profiles_available:
            self.notify("Profiles are managed with `vap login`, `vap logout` and `vap profiles`.")
            return
        module = importlib.import_module(PROFILES_MODULE)
        if not isinstance(self.screen, module.ProfilesScreen):
            self.push_screen(module.ProfilesScreen())

    def action_command_palette(self) -> None:
        if self.use_command_palette and not Palette.is_open(self):  # type: ignore[arg-type]  # Textual annotates App[object], invariant
            self.push_screen(Palette(id="--command-palette"))

    def action_keys_help(self) -> None:
        if isinstance(self.screen, KeysHelpScreen):
            return
        self.push_screen(KeysHelpScreen(self.screen))

    async def action_quit(self) -> None:
        """q and ctrl+c: leave, but ask first while a form (the rental wizard…) holds unsent input."""
        if self._quit_question is not None and self.screen is self._quit_question:
            self.exit()  # asked already: pressing quit again means it
            return
        unsent = [s for s in self.screen_stack if isinstance(s, HoldsUnsentInput) and s.is_dirty()]
        if not unsent:
            self.exit()
            return
        self._quit_question = Confirm(
            "Quit the console? What you typed has not been sent and will be lost.\n\n"
            "Stay keeps it; press ctrl+c again to quit anyway.",
            yes="Quit and discard", no="Stay", danger=True,
        )
        confirm_then(self, self._quit_question, self.exit)

    def invalidate(self, *areas: str) -> None:
        """Data of these areas changed: reload the one on screen now, the others when shown."""
        self.stale.mark(*areas)
        if isinstance(self.screen, ListScreen):
            self.screen.reload_if_stale()

    def follow_connection(self, node: DOMNode, callback: Callable[[ConnectionState], None], *,
                          init: bool) -> None:
        node.watch(self, "connection", callback, init=init)

    @on(ConnectionObserved)
    def _connection_observed(self, message: ConnectionObserved) -> None:
        self.connection = message.state

    @on(AreasChanged)
    def _areas_changed(self, message: AreasChanged) -> None:
        self.invalidate(*message.areas)

    # --- API calls and their failures ---

    async def call_api(self, call: Callable[[VapClient], Awaitable[T]], *, resend: bool = True) -> T:
        """Run one client call; a 429 waits Retry-After and tries again, the rest propagate.

        ``resend=False``: never send it again, not even after a 429 (a web call: it would start a
        second billed call if the first had gone through after all). The 429 is shown instead.
        """
        attempts = 0
        await self.open_client()
        while True:
            try:
                result = await call(self.client)
            except errors.RateLimited as err:
                attempts += 1
                if attempts > MAX_RATE_LIMIT_RETRIES or not resend:
                    self._rate_limit_over()
                    raise
                wait = min(err.retry_after if err.retry_after is not None else 1.0, MAX_RATE_LIMIT_WAIT)
                self.rate_limited(wait)
                await self.sleep(wait)
                continue
            except errors.TransportError as err:
                self._rate_limit_over()
                # Only a server out of reach is the console's connection lost. One that was reached
                # and then took too long or hung up failed this request alone: its list shows the
                # error with Retry, and the others (a slow list still loading) carry on.
                if err.unreachable:
                    self.connection = "offline"
                raise
            except errors.Unauthorized:
                self._rate_limit_over()
                self.connection = "rejected"
                self.offer_login()
                raise
            except BaseException:
                self._rate_limit_over()
                raise
            self._rate_limit_over()
            self.connection = "online"
            return result

    # --- 401 during a session: the login screen, to give the profile a key that works ---

    def offer_login(self) -> None:
        """Open the login screen for this profile, once per refusal; a new key switches the client."""
        # Imported on the first 401: start-up need not pay for the login screen.
        from vap_console.tui.screens.login import LoginScreen

        store = self.credentials
        # The sandbox has no profiles; VAP_API_KEY would shadow any key typed: the 401 is shown as is.
        if not isinstance(store, KeyStore) or env_api_key(store.env):
            return
        if self.in_browser:
            if not self._said_key_refused:
                self._said_key_refused = True
                self.notify(browser_key_refused(self.profile_name), title="API key refused", severity="error",
                            timeout=30, markup=False)
            return
        if any(isinstance(screen, LoginScreen) for screen in self.screen_stack):
            return
        reason = (f"{urlsplit(self.base_url).netloc or self.base_url} refused this profile's key (HTTP 401 "
                  "unauthorized): revoked or expired. Enter a new key, or Cancel.")
        self.push_screen(
            LoginScreen(store, profile=self.profile_name, base_url=self.base_url, reason=reason),
            self._logged_in_again,
        )

    def _logged_in_again(self, credentials: ResolvedCredentials | None) -> None:
        if credentials is not None:
            self.run_worker(self._use_new_key(credentials), group="relogin", exclusive=True, exit_on_error=False)

    async def _use_new_key(self, credentials: ResolvedCredentials) -> None:
        await self.switch_profile(credentials)
        self.invalidate()  # the screen on view loads again with the new key; the others when shown
        self.notify(f"Profile {credentials.profile!r} now uses key {credentials.masked}.")

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        # The app's own workers (following remembered rentals, a new key after a 401): their
        # failures go where every screen's go.
        if event.worker.node is self and event.worker.error is not None and event.worker.is_finished:
            self.worker_failed(event.worker, self)

    def worker_failed(self, worker: Worker[Any], node: object) -> None:
        """Where every failed worker is reported (screens forward their worker events here): the
        screen may show it itself, else it goes to the one handler with the screen's Retry."""
        error = worker.error
        if error is None or isinstance(error, asyncio.CancelledError):
            return
        if isinstance(node, HandlesFailures):
            if node.api_failed(worker, error):
                return
            failure = ApiFailed(error, node.retry_for(worker.group), origin=node if isinstance(node, Screen) else None)
        else:
            failure = ApiFailed(error)
        self.on_api_failed(failure)


def browser_key_refused(profile: str) -> str:
    return (f"The server refused profile {profile!r}'s key (HTTP 401). A key is not typed into a browser: "
            f"run `vap login --profile {profile}` on the machine serving this page, then reload it.")


def profile_label(credentials: ResolvedCredentials, *, stored: bool) -> str:
    """How the top line names the session: the profile, and when VAP_API_KEY supplies the key, env."""
    if credentials.source != "env":
        return credentials.profile
    return f"{credentials.profile} (env key)" if stored else "env"


def make_app(
    *,
    client_factory: Callable[[], VapClient],
    profile_name: str,
    base_url: str,
    clock: Callable[[], datetime] | None = None,
    local_index: Any = None,
    settings: Settings | None = None,
    credentials: Any = None,
    start_screen: str = "numbers",
    on_sandbox: bool = False,
    ledger: Ledger | None = None,
) -> VapApp:
    return VapApp(
        client_factory=client_factory,
        profile_name=profile_name,
        base_url=base_url,
        clock=clock,
        local_index=local_index,
        settings=settings,
        credentials=credentials,
        start_screen=start_screen,
        on_sandbox=on_sandbox,
        ledger=ledger,
    )
