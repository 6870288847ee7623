"""The console's connection as the person sees it: a 429 waited out with a countdown in the
banner, and a server that stopped answering looked at again by itself, with backoff.

A part of ``VapApp`` kept apart to keep the app's module short; it uses the app's ``connection``
reactive, clock, ``call_api`` and timers.
"""

from __future__ import annotations

import contextlib
import math
from collections.abc import Awaitable, Callable
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any

from vap_console.api import errors
from vap_console.tui.screens.base import ListScreen
from vap_console.tui.services import ConnectionState
from vap_console.tui.widgets.banner import Banner

if TYPE_CHECKING:
    from textual.app import App
    from textual.timer import Timer

    from vap_console.api import VapClient

    # To the type checker the mixin is the App it is mixed into: Textual's own timers, workers and
    # notify, with Textual's signatures. At run time it is a plain class (VapApp adds the App).
    _AppPart = App[int]
else:
    _AppPart = object

# While the server cannot be reached, the console looks again after 1, 2, 4 … at most 30 s; the
# first answer reloads every list that failed (ListScreen._connection_changed).
RECONNECT_FIRST = 1.0
RECONNECT_MAX = 30.0

# Waiting longer than this for a 429 is worse than showing the error and a Retry.
MAX_RATE_LIMIT_WAIT = 60.0
MAX_RATE_LIMIT_RETRIES = 3
RATE_LIMIT_BANNER = "HTTP 429, rate_limited"


class KeepsConnection(_AppPart):
    """Mixed into VapApp (which sets the attributes below in its __init__)."""

    connection: ConnectionState
    _limited_until: datetime | None
    _limited_timer: Timer | None
    _limited_banner: Banner | None
    _reconnect_timer: Timer | None
    _reconnect_delay: float

    if TYPE_CHECKING:
        # VapApp's own (not Textual's)
        def now(self) -> datetime: ...
        async def call_api(self, call: Callable[[VapClient], Awaitable[Any]], *, resend: bool = True) -> Any: ...

    # --- 429: said on screen, with a countdown, for as long as it is waited out ---

    def _client_waits(self, failure: errors.ApiError, seconds: float) -> None:
        # The client waits out a 429 itself before giving up: the person must see that wait too.
        if isinstance(failure, errors.RateLimited):
            self.rate_limited(seconds)

    def rate_limited(self, seconds: float) -> None:
        """A 429 is being waited out: a banner names it and counts Retry-After down."""
        self._limited_until = self.now() + timedelta(seconds=seconds)
        self.connection = "limited"
        if self._limited_timer is None:
            self._limited_timer = self.set_interval(1, self._show_rate_limit)
        self._show_rate_limit(first=True)

    def _limit_banner(self) -> Banner | None:
        # Only the area screens: dialogs and the wizard say their own waits in their own words.
        # The countdown's timer runs in its own task: it may fire while an area just switched to
        # is being built, before it has a banner (the next second's tick finds it).
        screen = self.screen
        banners = screen.query(Banner) if isinstance(screen, ListScreen) else None
        return banners.first() if banners else None

    def _show_rate_limit(self, first: bool = False) -> None:
        if self._limited_until is None:
            return
        left = max(0, math.ceil((self._limited_until - self.now()).total_seconds()))
        message = (f"{RATE_LIMIT_BANNER}: this key's request budget is spent. "
                   f"Trying again in {left} s (Retry-After).")
        banner = self._limit_banner()
        if banner is not self._limited_banner:
            self._clear_limit_banner()  # the person moved on to another screen
            self._limited_banner = banner
        if banner is not None:
            banner.show(message, info=True)
        elif first:
            self.notify(message, title="HTTP 429", severity="warning", timeout=3)

    def _rate_limit_over(self) -> None:
        if self._limited_until is None:
            return
        self._limited_until = None
        if self._limited_timer is not None:
            self._limited_timer.stop()
            self._limited_timer = None
        if self.connection == "limited":
            self.connection = "online"
        self._clear_limit_banner()
        self._limited_banner = None

    def _clear_limit_banner(self) -> None:
        banner = self._limited_banner
        if banner is not None and banner.is_attached and banner.message.startswith(RATE_LIMIT_BANNER):
            banner.clear()

    # --- offline: look at the server again by itself, with backoff ---

    def watch_connection(self, state: ConnectionState) -> None:
        if state == "offline":
            if self._reconnect_timer is None:
                self._reconnect_timer = self.set_timer(self._reconnect_delay, self._look_again)
        else:
            self._reconnect_delay = RECONNECT_FIRST
            if self._reconnect_timer is not None:
                self._reconnect_timer.stop()
                self._reconnect_timer = None

    def _look_again(self) -> None:
        self._reconnect_timer = None
        if self.connection == "offline":
            self.run_worker(self._probe(), group="reconnect", exclusive=True, exit_on_error=False)

    async def _probe(self) -> None:
        # GET /v1/voices: in the spec on every deployment, and small. An answer sets the
        # connection online, which reloads whatever failed; a failure is the offline state shown.
        with contextlib.suppress(errors.ApiError):
            await self.call_api(lambda client: client.list_voices())
        if self.connection == "offline" and self._reconnect_timer is None:
            self._reconnect_delay = min(self._reconnect_delay * 2, RECONNECT_MAX)
            self._reconnect_timer = self.set_timer(self._reconnect_delay, self._look_again)

