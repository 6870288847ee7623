"""What every area screen shares: status line, banner, a filterable list with its states, a detail pane.

A subclass says what a row is (COLUMNS, fetch, key_of, row_of) and how the detail reads
(render_detail). Workers run on the screen; when one fails the screen forwards it to
``VapApp.worker_failed``, which calls back ``api_failed`` for the list's own error state.

A page of 50,000 items takes a few hundred milliseconds to turn into rows (cleaning every cell,
the search strings, the columns' natural widths). The load worker does it on the UI loop in
slices of a few milliseconds, each run only when nothing else is waiting to (``spare_time``), so
keys are answered while a big list loads; the table then takes the finished rows at once. (A
thread would not do: building rows is Python code, and every time the UI loop gave up the GIL
to poll for input it waited up to 5 ms to get it back.) The detail pane is redrawn on every
cursor move that rests on a row (``_highlighted``): it is capped (pairs.capped), wrapped once
(pairs.Rendered) and shown in a DetailView that fills the pane and scrolls itself (no layout of the
screen a move). A replaced page is freed in slices of spare time too (``release``).

The garbage collector's full passes walked every object alive: with the huge areas loaded,
0.45–1 s on the UI loop every few keys. So what lives as long as a page is moved out of its sight
(``gc.freeze``): a page of FREEZE_AT items or more once parsed and again once its rows are built,
and once a process what start-up made, after the first list is shown; and while lists load, only
the young generations are collected (``no_full_collections``). Models, rows and Texts hold no
reference cycles, so a replaced page is still freed by reference counting; what a freeze keeps for
good is the cyclic garbage not yet collected then (the young generations are collected first;
measured: about a thousand objects a freeze, 16,000 at start-up).
"""

from __future__ import annotations

import gc
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from datetime import datetime
from typing import TYPE_CHECKING, Any, ClassVar, Generic, TypeVar

from rich.console import RenderableType
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.message import Message
from textual.screen import Screen
from textual.widgets import ContentSwitcher, Input, Static
from textual.worker import Worker, WorkerState

from vap_console.api import errors
from vap_console.tui import untrusted
from vap_console.tui.failures import describe_error
from vap_console.tui.pairs import DetailView, Rendered, capped
from vap_console.tui.services import ConnectionState, Services, services_of
from vap_console.tui.slices import SLICE, spare_time
from vap_console.tui.widgets.banner import Banner
from vap_console.tui.widgets.filter_box import FilterBox
from vap_console.tui.widgets.key_bar import KeyBar
from vap_console.tui.widgets.list_state import ListState
from vap_console.tui.widgets.no_relayout import ListSwitch
from vap_console.tui.widgets.rows import Column, Row, RowSet, RowSetBuilder, RowTable, prepare_rows
from vap_console.tui.widgets.status_bar import StatusBar

if TYPE_CHECKING:
    from vap_console.api import VapClient

T = TypeVar("T")

# How long the console's first screen may wait for its rows before it paints "Loading…".
FIRST_PAINT_WAIT = 0.3
# A page at least this long is frozen out of the garbage collector's full passes.
FREEZE_AT = 500


_frozen_at_start = False


def freeze_garbage_collection() -> None:
    """Move every object alive now out of the collector's passes (objects still die by reference
    count). The young generations are collected first, so recent cyclic garbage is not kept."""
    global _frozen_at_start
    _frozen_at_start = True
    gc.collect(1)
    gc.freeze()


_loading = 0
_thresholds = gc.get_threshold()


@contextmanager
def no_full_collections() -> Iterator[None]:
    """While lists load: young generations are still collected (their cyclic garbage too), but no
    full pass over the page being built (100-300 ms each, on the UI loop)."""
    global _loading, _thresholds
    if _loading == 0:
        _thresholds = gc.get_threshold()
        gc.set_threshold(_thresholds[0], _thresholds[1], 1_000_000)
    _loading += 1
    try:
        yield
    finally:
        _loading -= 1
        if _loading == 0:
            gc.set_threshold(*_thresholds)


def freeze_after_start() -> None:
    """Once a process: what start-up made (modules, classes, styles, the first screen) lives as long
    as the console, and a full collection walking it took 100-150 ms, keys waiting."""
    if not _frozen_at_start:
        freeze_garbage_collection()


async def release_in_slices(heap: list[object]) -> None:
    """Drop the references in ``heap`` a few hundred at a time, in the UI loop's spare time (what
    they alone held is freed as they go)."""
    started = time.perf_counter()
    while heap:
        del heap[-256:]
        if time.perf_counter() - started > SLICE:
            await spare_time()
            started = time.perf_counter()


class ForwardsWorkerFailures:
    """Worker state messages do not bubble; screens hand failures to the app's single handler
    (``Services.worker_failed``), which asks them back through the hooks below."""

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        if event.worker.error is not None and event.worker.is_finished:
            services_of(self.app).worker_failed(event.worker, self)  # type: ignore[attr-defined]  # a Screen mixin: its app
        elif event.state == WorkerState.SUCCESS:
            self.worker_succeeded(event.worker)

    def api_failed(self, worker: Worker[Any], error: BaseException) -> bool:
        """Hook: show ``error`` in the screen's own words and say True, or leave it to the app."""
        return False

    def retry_for(self, group: str) -> Callable[[], object] | None:
        """Hook: what Retry in the banner runs after a failed worker of ``group``."""
        return None

    def worker_succeeded(self, worker: Worker[Any]) -> None:
        """Hook: a worker of this screen finished without error."""


class ListScreen(ForwardsWorkerFailures, Screen[None], Generic[T]):
    AREA: ClassVar[str] = ""
    LABEL: ClassVar[str] = ""
    NOUN: ClassVar[str] = "items"
    EMPTY: ClassVar[str] = "Nothing here yet."
    COLUMNS: ClassVar[Sequence[Column]] = ()
    AUTO_FOCUS = "#rows"

    BINDINGS = [
        Binding("slash", "filter", "Filter", id="list.filter", tooltip="Type to filter the rows"),
        Binding("r", "refresh", "Refresh", id="list.refresh", tooltip="Load the list again from the server"),
        Binding("escape", "leave_filter", "Back to list", show=False, id="list.leave_filter",
                tooltip="Clear the filter and return to the rows"),
    ]

    class Loaded(Message):
        def __init__(self, items: list[Any], rows: RowSet | None = None, keyed: dict[str, Any] | None = None) -> None:
            super().__init__()
            self.items = items
            # Built by the load worker; worked out on arrival when missing.
            self.rows = rows
            self.keyed = keyed

    def __init__(self, services: Services | None = None) -> None:
        super().__init__()
        self._services = services
        # What Retry runs for a failed worker, by group: set as each request starts.
        self.retries: dict[str, Callable[[], object]] = {"load": self.reload}
        self.items: dict[str, T] = {}
        self._loaded_once = False
        # A row to put the cursor on once the next load lands (a tool just created, say).
        self.select_after_load: str | None = None
        # The last load failed for want of a server: it is tried again once the server answers.
        self._failed_offline = False
        # Set while the connection is lost: when the rows on show were loaded before it.
        self._offline_since: datetime | None = None
        self._holding_paint = False

    @property
    def services(self) -> Services:
        return self._services if self._services is not None else services_of(self.app)

    # --- to override ---

    async def fetch(self, client: VapClient) -> list[T]:
        raise NotImplementedError

    def key_of(self, item: T) -> str:
        return item.id  # type: ignore[attr-defined]  # every listed model has an id; others override this

    def row_of(self, item: T) -> Row:
        raise NotImplementedError

    def render_detail(self, item: T) -> RenderableType:
        return str(item)

    def compose_detail(self) -> ComposeResult:
        yield DetailView(id="detail")

    def detail_of(self, item: T) -> RenderableType:
        """What the detail pane shows of ``item``: ``render_detail`` made literal and capped (a
        screen adds what goes above it here)."""
        return capped(untrusted.safe(self.render_detail(item)))

    def show_detail(self, item: T | None) -> None:
        detail = self.query_one("#detail", Static)  # a DetailView, or a screen's own Static
        # Capped, and wrapped once: redrawn on every cursor move, it must not grow with what the
        # server sends.
        detail.update(Rendered(self.detail_of(item)) if item is not None else "")
        # Stacked under a narrow list, an empty pane would take half the screen from the list's
        # "nothing here" or error and its Retry (console.tcss hides it then).
        self.set_class(item is None, "-no-detail")

    def after_load(self, items: list[T]) -> None:
        """Hook: runs after rows are shown."""

    def count_note(self) -> str:
        """Hook: said after the count under the list (the Agents screen's call slots)."""
        return ""

    # --- layout ---

    def compose(self) -> ComposeResult:
        yield StatusBar(self.LABEL, self.services)
        yield Banner()
        with Horizontal(id="body"):
            with Vertical(id="list-pane"):
                yield FilterBox(placeholder=f"filter {self.NOUN}…", id="filter", select_on_focus=False)
                with ListSwitch(initial="state", id="list-switch"):
                    yield ListState(id="state")
                    yield RowTable(self.COLUMNS, id="rows")
                yield Static(id="list-count")
            with VerticalScroll(id="detail-pane"):
                yield from self.compose_detail()
        yield KeyBar()

    def on_mount(self) -> None:
        self.query_one("#filter").display = False
        self.services.follow_connection(self, self._connection_changed, init=False)
        self.reload()
        if not self.services.painted:
            self._hold_first_paint()

    def _hold_first_paint(self) -> None:
        # The console's first screen appears with its rows rather than flashing "Loading…" for the
        # moment a quick server takes: painting waits for the first load, at most FIRST_PAINT_WAIT.
        # (It also spares a full paint of the screen in the middle of start-up.)
        self._holding_paint = True
        # On the app: a timer of this screen would die with it and leave the screen unpainted.
        self.app.set_timer(FIRST_PAINT_WAIT, self._release_paint)

    def _release_paint(self) -> None:
        if self._holding_paint:
            self._holding_paint = False
            self.services.painted = True
            self.refresh()

    def _compositor_refresh(self) -> None:
        # Every paint of a screen goes through here, the one after a layout pass too (which
        # App.batch_update does not hold back), so this is where the first paint waits.
        if not self._holding_paint:
            super()._compositor_refresh()

    def on_unmount(self) -> None:
        self._release_paint()

    def _connection_changed(self, state: ConnectionState) -> None:
        if state == "offline" and self._loaded_once and self._offline_since is None:
            # The rows stay, said to be from before the connection was lost.
            self._offline_since = self.services.now()
            self._update_count()
        # The server answers again: "could not connect" here is stale news, and rows kept
        # through the outage may be too. Reload now if on screen, else when next shown; but a load
        # under way is left to land: restarting it on every flicker of the connection, a list
        # the server takes 20 s to send would never arrive (it fails by itself if out of reach).
        if state == "online" and (self._failed_offline or self._offline_since is not None):
            self._failed_offline = False
            if self.is_loading():
                return
            self.services.stale.mark(self.AREA)
            if self.app.screen is self:
                self.reload()

    # --- loading ---

    def reload(self) -> None:
        self.services.stale.clear(self.AREA)
        if not self._loaded_once:
            self.query_one(ListState).show_loading(self.NOUN)
            self.query_one("#list-switch", ContentSwitcher).current = "state"
        self.load()

    def is_loading(self) -> bool:
        """Whether this list's load is under way."""
        return any(worker.node is self and worker.group == "load" and not worker.is_finished
                   for worker in self.workers)

    def reload_if_stale(self) -> None:
        if not self.is_mounted:
            # Asked from another task (a worker's or another screen's invalidate, a timer) in the
            # moment this area, just switched to, is being built: its widgets are not there yet.
            # Asked again once it is up (its on_mount has loaded it, unless the data changed since).
            self.call_later(self.reload_if_stale)
            return
        if self.AREA in self.services.stale:
            self.reload()

    def on_screen_resume(self) -> None:
        # A list whose load failed is reloaded too when stale (the server came back meanwhile).
        self.reload_if_stale()

    async def load_items(self) -> list[T]:
        """The list's items (from the server; a screen may read them elsewhere)."""
        return await self.services.call_api(self.fetch)

    @work(exclusive=True, group="load", exit_on_error=False)
    async def load(self) -> None:
        with no_full_collections():
            items = await self.load_items()
            big = len(items) >= FREEZE_AT
            if big:
                freeze_garbage_collection()  # the items: young collections need not walk them again
            keyed, rows = await self.build_rows(items)
            if big:
                freeze_garbage_collection()  # and the rows, before full collections resume
        self.post_message(self.Loaded(items, rows, keyed))

    async def build_rows(self, items: list[T]) -> tuple[dict[str, T], RowSet]:
        """Every item by key, and the rows, built in slices of the UI loop's spare time."""
        keyed: dict[str, T] = {}
        builder = RowSetBuilder(self.COLUMNS)
        key_of, row_of, add = self.key_of, self.row_of, builder.add
        started = time.perf_counter()
        for n, item in enumerate(items):
            keyed[key_of(item)] = item
            add(row_of(item))
            if n % 16 == 15 and time.perf_counter() - started > SLICE:
                await spare_time()
                started = time.perf_counter()
        return keyed, builder.finish()

    def retry_for(self, group: str) -> Callable[[], object] | None:
        return self.retries.get(group)

    def release(self, heap: list[object]) -> None:
        """Free what a replaced page held (its items and rows) in slices of spare time: 50,000
        models and rows took some 50 ms to free at once, on the UI loop."""
        if len(heap) >= FREEZE_AT:
            self.run_worker(release_in_slices(heap), group="release", exit_on_error=False)

    @on(Loaded)
    def _loaded(self, message: Loaded) -> None:
        self._loaded_once = True
        if self._offline_since is not None:
            self._offline_since = None
            self.banner().clear()  # the outage it told of is over
        if message.rows is None or message.keyed is None:
            message.keyed = {self.key_of(item): item for item in message.items}
            message.rows = prepare_rows(self.COLUMNS, [self.row_of(item) for item in message.items])
        replaced: list[object] = list(self.items.values())
        self.items = message.keyed
        table = self.query_one(RowTable)
        replaced += table.set_rows(message.rows, keep_key=self.select_after_load)
        self.release(replaced)
        self.select_after_load = None
        switcher = self.query_one("#list-switch", ContentSwitcher)
        if message.items:
            self.query_one(ListState).show_rows()
            switcher.current = "rows"
        else:
            self.query_one(ListState).show_empty(self.EMPTY)
            switcher.current = "state"
        self._update_count()
        self.show_detail(self.items.get(table.cursor_key or ""))
        self.after_load(message.items)
        self._release_paint()
        freeze_after_start()

    def api_failed(self, worker: Worker[Any], error: BaseException) -> bool:
        if worker.group != "load":
            return False
        # The server out of reach (not one list slow or cut off): the console looks again by itself.
        offline = isinstance(error, errors.TransportError) and error.unreachable
        if offline and self._loaded_once:
            # Rows on show stay: marked as from before the outage, reloaded once the server answers.
            if self._offline_since is None:
                self._offline_since = self.services.now()
            self._failed_offline = True
            self._update_count()
            self.banner().show(f"{describe_error(error)} The rows below are as of "
                               f"{self._offline_since:%H:%M} UTC; the list reloads by itself once the "
                               "server answers.", info=True)
            return True
        self._loaded_once = False
        self._offline_since = None
        self._failed_offline = offline
        self.items = {}
        self.query_one(RowTable).set_rows([])
        after = ("The console tries again by itself and loads the list as soon as the server answers; "
                 "press r to try now." if self._failed_offline else "Press r to retry.")
        self.query_one(ListState).show_error(f"{describe_error(error)}\n\n{after}")
        self.query_one("#list-switch", ContentSwitcher).current = "state"
        self.query_one("#list-count", Static).update("")
        self.show_detail(None)
        self._release_paint()
        return True

    @on(ListState.RetryRequested)
    def _state_retry(self) -> None:
        self.reload()

    def worker_succeeded(self, worker: Worker[Any]) -> None:
        # An action that worked makes an older failure's banner stale. A reload in the background
        # is not the person's action: it leaves the banner alone (``r`` clears it itself).
        if worker.group != "load":
            self.banner().clear()

    # --- list interaction ---

    @property
    def current(self) -> T | None:
        key = self.query_one(RowTable).cursor_key
        return self.items.get(key) if key is not None else None

    @on(RowTable.Highlighted)
    def _highlighted(self, event: RowTable.Highlighted) -> None:
        if event.key != event.table.cursor_key:
            # Keys came faster than details are drawn: the cursor has moved on, and the row it
            # rests on has its own Highlighted queued. Only that one's detail is drawn.
            return
        self.show_detail(self.items.get(event.key) if event.key is not None else None)

    def _update_count(self) -> None:
        table = self.query_one(RowTable)
        shown, total = table.row_count, table.total_count
        if table.filter_text:
            text = untrusted.content(f"{shown} of {total} {self.NOUN} match “{table.filter_text}”", multiline=False)
        else:
            # "1 call", not "1 calls": every NOUN is a plural made with a final s.
            noun = self.NOUN[:-1] if total == 1 and self.NOUN.endswith("s") else self.NOUN
            text = untrusted.content(f"{total} {noun}")
        note = self.count_note()
        if note:
            text = text + untrusted.content(f" · {note}")
        if self._offline_since is not None:
            text = text + untrusted.content(
                f" · offline: as of {self._offline_since:%H:%M} UTC, reloaded when the server answers",
                "$warning")
        # A fixed one-line box: no need to lay the screen out again for a new count.
        self.query_one("#list-count", Static).update(text, layout=False)

    def action_refresh(self) -> None:
        self.banner().clear()
        self.reload()

    def action_filter(self) -> None:
        if not self.is_mounted:  # `/` typed while this screen is still being built
            self.call_after_refresh(self.action_filter)
            return
        box = self.query_one("#filter", Input)
        box.display = True
        # Focus now, not when idle (Widget.focus): the keys typed next must find the box focused.
        self.set_focus(box)

    def action_leave_filter(self) -> None:
        self.banner().clear()
        box = self.query_one("#filter", Input)
        table = self.query_one(RowTable)
        # Every row back in this very handler, not on the Input.Changed the emptied box would post:
        # that came a frame later, and each frame a key waits for is up to 33 ms (Textual's update
        # timer skips a tick after a slow one).
        if box.value:
            with box.prevent(Input.Changed):
                box.value = ""
        if table.filter_text:
            table.filter("")
            self._update_count()
        box.display = False
        table.focus()

    @on(Input.Changed, "#filter")
    def _filter_changed(self, event: Input.Changed) -> None:
        table = self.query_one(RowTable)
        # The detail follows through RowTable.Highlighted, only when the row under the cursor changes.
        table.filter(event.value)
        self._update_count()

    @on(Input.Submitted, "#filter")
    def _filter_done(self) -> None:
        self.query_one(RowTable).focus()

    # --- shared helpers ---

    async def known_ids(self, kind: str) -> list[str]:
        index = self.services.local_index
        if index is None:
            return []
        return await index.ids(kind)

    def banner(self) -> Banner:
        return self.query_one(Banner)


def is_not_supported(error: BaseException) -> bool:
    return isinstance(error, errors.NotSupported)
