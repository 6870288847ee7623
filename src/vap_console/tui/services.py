"""What a screen or widget may ask of the console, and nothing more.

Screens and widgets are handed a :class:`Services` in their constructor (as davep's tinboard
hands its API object to its screens) instead of reaching for the app: they can then be built and
tested against any host that provides these few things, and the app can import them without an
import cycle. ``VapApp`` provides it; a contract in pyproject.toml forbids ``tui.screens`` and
``tui.widgets`` to import ``tui.app``.

Narrower views exist for the parts that also run in the wizard's test host (which has a client,
a clock and a local index, not the console's areas): :class:`Clock`, :class:`ApiHost` and
:class:`WizardHost` (an ApiHost with ``call_api``).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from datetime import datetime
from typing import TYPE_CHECKING, Any, Literal, Protocol, TypeVar, cast

from textual.message import Message

if TYPE_CHECKING:
    from textual.app import App
    from textual.dom import DOMNode
    from textual.worker import Worker

    from vap_console.api import VapClient
    from vap_console.credentials import ResolvedCredentials
    from vap_console.tui.call_book import CallBook
    from vap_console.tui.remembered import Remembered

T = TypeVar("T")

# What the status line says of the server: answering, not reachable, refusing the key, or asking
# the console to slow down (a 429 being waited out).
ConnectionState = Literal["connecting", "online", "offline", "rejected", "limited"]


class Clock(Protocol):
    def now(self) -> datetime: ...


class ApiHost(Clock, Protocol):
    """A client, a clock and the local index: what following a rental needs."""

    @property
    def client(self) -> VapClient: ...

    @property
    def local_index(self) -> Remembered | None: ...


class WizardHost(ApiHost, Protocol):
    """What the rental wizard needs: an ApiHost whose calls go through one door. The console's
    ``call_api`` waits out a 429 on the status line and keeps the connection state; the wizard's
    test host calls its client straight."""

    async def call_api(self, call: Callable[[VapClient], Awaitable[T]], *, resend: bool = True) -> T: ...


class KnownNames:
    """Names one area learnt that another shows: the tool behind a variable, the variables a
    tool's placeholders may name. Filled by whichever list loaded last."""

    def __init__(self) -> None:
        self.variables: set[str] = set()
        self.tools: dict[str, str] = {}  # tool id -> name


class Staleness:
    """Areas whose data changed elsewhere: their screens reload when next shown."""

    def __init__(self) -> None:
        self._areas: set[str] = set()

    def mark(self, *areas: str) -> None:
        self._areas.update(areas)

    def clear(self, area: str) -> None:
        self._areas.discard(area)

    def __contains__(self, area: object) -> bool:
        return area in self._areas


class Services(WizardHost, Protocol):
    """The console as its screens see it."""

    connection: ConnectionState
    # The embedded sandbox: its sandbox-only actions (deploying an agent) are offered.
    on_sandbox: bool
    # False until the console's first screen has painted (it may hold its paint for its rows).
    painted: bool
    stale: Staleness
    names: KnownNames
    profile_name: str
    # What the status line calls the profile ("env" for a VAP_API_KEY session with no profile).
    profile_label: str
    base_url: str
    # The credential store (a KeyStore), or None on the sandbox.
    credentials: Any
    # Served to a browser (`vap web`): the console acts on its one profile only, and no key is
    # typed into the page (it may cross a network in clear text).
    in_browser: bool
    # This profile's calls ledger (None when the console keeps none: a test's app without a
    # data directory). Every call started is kept there the moment its id is known.
    calls: CallBook | None

    def invalidate(self, *areas: str) -> None: ...

    async def switch_profile(self, credentials: ResolvedCredentials) -> None:
        """Point the console at another profile: a new client, every area reloads."""
        ...

    def worker_failed(self, worker: Worker[Any], node: Any) -> None: ...

    def follow_connection(self, node: DOMNode, callback: Callable[[ConnectionState], None], *,
                          init: bool) -> None:
        """Call ``callback`` with each new connection state for as long as ``node`` lives."""
        ...


class ConnectionObserved(Message):
    """A screen talking to the server on its own (a rental's polling) saw it answer or not."""

    def __init__(self, state: ConnectionState) -> None:
        super().__init__()
        self.state: ConnectionState = state


class AreasChanged(Message):
    """Data of these areas changed (a rental moved on): the console reloads them."""

    def __init__(self, *areas: str) -> None:
        super().__init__()
        self.areas = areas


def services_of(app: App[Any]) -> Services:
    """The services of a screen built without them: by a test host, which does not pass them
    in. (The console's own screens are always handed theirs.)"""
    return cast("Services", app)


def host_of(app: App[Any]) -> ApiHost:
    """Like services_of, for the parts the wizard's test host runs too."""
    return cast("ApiHost", app)
