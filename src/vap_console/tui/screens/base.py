"""What every area screen shares: status line, banner, a filterable list with its states, a detail pane.

A subclass says what a row is (COLUMNS, fetch, key_of, row_of) and how the detail reads
(render_detail). Workers run on the screen; when one fails the screen forwards it to
``VapApp.worker_failed``, which calls back ``api_failed`` for the list's own error state.
"""

from __future__ import annotations

from collections.abc import Sequence
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
from vap_console.tui.widgets.banner import Banner
from vap_console.tui.widgets.filter_box import FilterBox
from vap_console.tui.widgets.key_bar import KeyBar
from vap_console.tui.widgets.list_state import ListState
from vap_console.tui.widgets.rows import Column, Row, RowTable
from vap_console.tui.widgets.status_bar import StatusBar

if TYPE_CHECKING:
    from vap_console.api import VapClient
    from vap_console.tui.app import VapApp

T = TypeVar("T")

# How long the console's first screen may wait for its rows before it paints "Loading…".
FIRST_PAINT_WAIT = 0.3


class ForwardsWorkerFailures:
    """Worker state messages do not bubble; screens hand failures to the app's single handler."""

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        if event.worker.error is not None and event.worker.is_finished:
            self.app.worker_failed(event.worker, self)  # type: ignore[attr-defined]
        elif event.state == WorkerState.SUCCESS:
            self.worker_succeeded(event.worker)

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
        def __init__(self, items: list[Any]) -> None:
            super().__init__()
            self.items = items

    def __init__(self) -> None:
        super().__init__()
        self.items: dict[str, T] = {}
        self._loaded_once = False
        # A row to put the cursor on once the next load lands (a tool just created, say).
        self.select_after_load: str | None = None
        # The last load failed for want of a server: it is tried again once the server answers.
        self._failed_offline = False
        self._holding_paint = False

    @property
    def vap(self) -> VapApp:
        return self.app  # type: ignore[return-value]

    # --- to override ---

    async def fetch(self, client: VapClient) -> list[T]:
        raise NotImplementedError

    def key_of(self, item: T) -> str:
        return item.id  # type: ignore[attr-defined]

    def row_of(self, item: T) -> Row:
        raise NotImplementedError

    def render_detail(self, item: T) -> RenderableType:
        return str(item)

    def compose_detail(self) -> ComposeResult:
        yield Static(id="detail")

    def show_detail(self, item: T | None) -> None:
        detail = self.query_one("#detail", Static)
        detail.update(untrusted.safe(self.render_detail(item)) if item is not None else "")

    def after_load(self, items: list[T]) -> None:
        """Hook: runs after rows are shown."""

    # --- layout ---

    def compose(self) -> ComposeResult:
        yield StatusBar(self.LABEL)
        yield Banner()
        with Horizontal(id="body"):
            with Vertical(id="list-pane"):
                yield FilterBox(placeholder=f"filter {self.NOUN}…", id="filter", select_on_focus=False)
                with ContentSwitcher(initial="state", id="list-switch"):
                    yield ListState(id="state")
                    yield RowTable(self.COLUMNS, id="rows")
                yield Static(id="list-count")
            with VerticalScroll(id="detail-pane"):
                yield from self.compose_detail()
        yield KeyBar()

    def on_mount(self) -> None:
        self.query_one("#filter").display = False
        self.watch(self.app, "connection", self._connection_changed, init=False)
        self.reload()
        if not self.vap.painted:
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
            self.vap.painted = True
            self.refresh()

    def _compositor_refresh(self) -> None:
        # Every paint of a screen goes through here, the one after a layout pass too (which
        # App.batch_update does not hold back), so this is where the first paint waits.
        if not self._holding_paint:
            super()._compositor_refresh()

    def on_unmount(self) -> None:
        self._release_paint()

    def _connection_changed(self, state: str) -> None:
        # Another screen reached the server: "could not connect" here is stale news.
        if state == "online" and self._failed_offline:
            self._failed_offline = False
            self.vap.stale.add(self.AREA)
            if self.app.screen is self:
                self.reload()

    # --- loading ---

    def reload(self) -> None:
        self.vap.stale.discard(self.AREA)
        if not self._loaded_once:
            self.query_one(ListState).show_loading(self.NOUN)
            self.query_one("#list-switch", ContentSwitcher).current = "state"
        self.load()

    def reload_if_stale(self) -> None:
        if self.AREA in self.vap.stale:
            self.reload()

    def on_screen_resume(self) -> None:
        # A list whose load failed is reloaded too when stale (the server came back meanwhile).
        self.reload_if_stale()

    @work(exclusive=True, group="load", exit_on_error=False)
    async def load(self) -> None:
        items = await self.vap.call_api(self.fetch)
        self.post_message(self.Loaded(items))

    def retry_load(self) -> None:
        self.reload()

    @on(Loaded)
    def _loaded(self, message: Loaded) -> None:
        self._loaded_once = True
        self.items = {self.key_of(item): item for item in message.items}
        table = self.query_one(RowTable)
        table.set_rows([self.row_of(item) for item in message.items], keep_key=self.select_after_load)
        self.select_after_load = None
        switcher = self.query_one("#list-switch", ContentSwitcher)
        if message.items:
            switcher.current = "rows"
        else:
            self.query_one(ListState).show_empty(self.EMPTY)
            switcher.current = "state"
        self._update_count()
        self.show_detail(self.items.get(table.cursor_key or ""))
        self.after_load(message.items)
        self._release_paint()

    def api_failed(self, worker: Worker[Any], error: BaseException) -> bool:
        if worker.group != "load":
            return False
        from vap_console.tui.app import describe_error

        self._loaded_once = False
        self._failed_offline = isinstance(error, (errors.ConnectionFailed, errors.TimedOut))
        self.items = {}
        self.query_one(RowTable).set_rows([])
        self.query_one(ListState).show_error(f"{describe_error(error)}\n\nPress r to retry.")
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
        self.show_detail(self.items.get(event.key) if event.key is not None else None)

    def _update_count(self) -> None:
        table = self.query_one(RowTable)
        shown, total = table.row_count, table.total_count
        if table.filter_text:
            text = untrusted.content(f"{shown} of {total} {self.NOUN} match “{table.filter_text}”", multiline=False)
        else:
            text = untrusted.content(f"{total} {self.NOUN}")
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
        if box.value:
            box.value = ""
        box.display = False
        self.query_one(RowTable).focus()

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
        index = self.vap.local_index
        if index is None:
            return []
        return await index.ids(kind)

    def banner(self) -> Banner:
        return self.query_one(Banner)


def is_not_supported(error: BaseException) -> bool:
    return isinstance(error, errors.NotSupported)
