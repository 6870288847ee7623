"""Calls: every call this profile's console and CLI started or were told of (the local ledger:
the service has no list of calls), what each said and what it cost.

The list is read from the ledger, never from the network, so it is there offline and in a few
milliseconds for 10,000 calls. Calls not yet ended are read again (``GET /v1/calls/{id}``) every
``POLL_SECONDS`` until they end, in one worker; a call whose record cannot be read is marked so
in the list and its detail says why. The detail shows the transcript turn by turn, the end
reason, the summary, the answer times of a call the console held and the tool calls the record
lists, and whether there is a recording: ``s`` reads the record again for a fresh
signed URL and saves the WAV, fetched without the API key. ``o`` places an outbound call,
``a`` adds a call started elsewhere, ``e`` exports the ledger, ``c`` shows spend.
"""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rich.console import Group, RenderableType
from rich.text import Text
from textual import on, work
from textual.binding import Binding
from textual.message import Message
from textual.worker import Worker

from vap_console.api import errors
from vap_console.api.models.calls import CallRecord
from vap_console.ledger import CallEntry, CallIdTaken, Ledger
from vap_console.ledger.export import export as render_export
from vap_console.local_files import call_audio_name, write_private
from vap_console.tui import format as fmt
from vap_console.tui import untrusted
from vap_console.tui.failures import describe_error
from vap_console.tui.screens.base import ListScreen
from vap_console.tui.screens.call_dialog import PlacesCalls
from vap_console.tui.screens.call_to_test import TurnsCallsIntoTests
from vap_console.tui.screens.dialog import ExportFormat
from vap_console.tui.screens.numbers import fields_table
from vap_console.tui.screens.prompt_id import PromptIdScreen
from vap_console.tui.widgets.rows import Column, Row, RowTable, make_row

if TYPE_CHECKING:
    from vap_console.api import VapClient
    from vap_console.tui.call_book import CallBook
    from vap_console.tui.screens.spend import SpendScreen

NO_LEDGER = "This console keeps no calls ledger (no data directory was given to it)."
STATUS_STYLES = {"completed": "green", "failed": "red", "expired": "yellow", "calling": "cyan",
                 "in_progress": "cyan bold", "outcome unknown": "magenta"}
UNKNOWN_HELP = (
    "The request to place this call got no answer: the phone may have rung. Nothing was sent again. "
    "To look it up: find the call in the dashboard and press a here with its id (it replaces this "
    "line), or run `vap calls place … --idempotency-key {key}` with the same agent, number and caller: "
    "a server that honours the key answers with that call; one that does not places a second call, "
    "billed too."
)


def duration(seconds: float | None) -> str:
    if seconds is None:
        return fmt.NONE
    whole = int(seconds)
    return f"{whole // 60}:{whole % 60:02d}"


def credits_text(value: float | None) -> str:
    return fmt.NONE if value is None else f"{value:g}"


def when(noted_at: str, *, short: bool = False) -> str:
    """A ledger time (UTC) as the console shows times; ``short``: the list's "11-02 09:00"."""
    try:
        moment = datetime.fromisoformat(noted_at.replace("Z", "+00:00"))
    except ValueError:
        return noted_at
    return moment.astimezone(UTC).strftime("%m-%d %H:%M") if short else fmt.when(moment)


def status_cell(entry: CallEntry) -> Text:
    text = Text(entry.shown_status, style=STATUS_STYLES.get(entry.shown_status, ""))
    if entry.read_error and not entry.ended:
        text.append(" ⚠", style="bold red")
    return text


def figures_parts(e: CallEntry) -> list[RenderableType]:
    """A call's figures in its detail (issues 34, 33): the answer times the console measured (only
    on a call it held), and each tool call the record listed (only where it lists them: the
    sandbox; the real service's record has none, and nothing is said then)."""
    parts: list[RenderableType] = []
    if e.answer_times:
        from vap_console.api.figures import Times  # its module only when a call has them

        parts += [Text("\nAnswer times", style="bold underline"), Text(Times.of(e.answer_times).in_words())]
    if e.tool_calls:
        parts.append(Text("\nTool calls", style="bold underline"))
        parts += [untrusted.text(f"⚙ {made.in_words()}", "" if made.held else "red", multiline=False)
                  for made in e.tool_calls]
    return parts


async def read_call(call_id: str, client: VapClient) -> CallRecord:
    return await client.get_call(call_id)


def add_or_resolve(ledger: Ledger, record: CallRecord, lost_row: int | None, at: datetime) -> None:
    """In the ledger's thread: a call added by hand; with ``lost_row``, the answer to that lost
    placement (highlighted when ``a`` was pressed)."""
    if lost_row is not None and ledger.get(record.id) is None:
        ledger.resolve_unknown(lost_row, record.id)
    ledger.cache_record(record, at=at)


class CallsScreen(TurnsCallsIntoTests, PlacesCalls, ListScreen[CallEntry]):
    AREA = "calls"
    LABEL = "Calls"
    NOUN = "calls"
    EMPTY = ("No calls yet. A web call (w on Agents) or an outbound call (o) is kept here the moment "
             "it starts; a adds a call started elsewhere by its id.")
    COLUMNS = (
        Column("When (UTC)", 11, whole=True),
        Column("Agent", 20, min_width=8, drop=2),
        Column("Kind", 8, min_width=5, drop=4),
        Column("To/From", 16, min_width=8, drop=3, whole=True),
        Column("Status", 17, min_width=10),
        Column("Time", 6, min_width=5, drop=1),
        Column("Credits", 7, min_width=5),
    )
    BINDINGS = [
        Binding("s", "save_recording", "Save WAV", id="calls.save",
                tooltip="Save the highlighted call's recording as WAV (fetched without the API key)"),
        Binding("o", "place_call", "Outbound call", id="calls.place",
                tooltip="Place an outbound call (billed; asks first)"),
        Binding("a", "add_call", "Add by id", id="calls.add", tooltip="Add a call started elsewhere by its id"),
        Binding("e", "export", "Export", id="calls.export", tooltip="Export every call with its transcript"),
        Binding("c", "spend", "Spend", id="calls.spend", tooltip="Calls and credits a day, totals per agent and kind"),
        Binding("t", "call_to_test", "To test", id="calls.to_test",
                tooltip="Write the highlighted call as a conversation test (asks where)"),
    ]
    # Seconds between two reads of the calls not yet ended (tests make it shorter).
    POLL_SECONDS = 2.0
    # The calls not yet ended, and the list they were counted in (see count_note).
    _open_count = 0
    _open_counted_in: dict[str, CallEntry] | None = None
    # The Spend screen of this ledger, kept between two ``c`` (see _spend_screen).
    _spend: SpendScreen | None = None

    class Polled(Message):
        """A round of reads ended: ``unreadable`` call id → why."""

        def __init__(self, unreadable: dict[str, str], changed: bool) -> None:
            super().__init__()
            self.unreadable = unreadable
            # Whether any record said something new: the list is read again only then.
            self.changed = changed

    class Saved(Message):
        def __init__(self, path: Path) -> None:
            super().__init__()
            self.path = path

    class Exported(Message):
        def __init__(self, path: Path, count: int) -> None:
            super().__init__()
            self.path = path
            self.count = count

    # --- the list: from the ledger, not the network ---

    def reload(self) -> None:
        book = self.services.calls
        if book is not None and book.last_started:
            self.select_after_load, book.last_started = book.last_started, None
        super().reload()

    async def load_items(self) -> list[CallEntry]:
        # The list's load (ListScreen.load) as every list's: 10,000 calls are frozen out of the
        # garbage collector's full passes (each walked them all, 100-300 ms, a key waiting).
        book = self.services.calls
        return [] if book is None else await book.run(lambda: book.ledger.entries(transcripts=True))

    async def fetch(self, client: VapClient) -> list[CallEntry]:
        raise NotImplementedError("the Calls list is read from the ledger")

    def key_of(self, item: CallEntry) -> str:
        return item.call_id or f"row:{item.row}"

    def row_of(self, e: CallEntry) -> Row:
        # The words said, joined by the ledger's query: the filter finds them without parsing
        # 10,000 transcripts here (only the detail of a highlighted call parses its own).
        words = e.words
        return make_row(
            self.key_of(e),
            (when(e.noted_at, short=True), e.agent or fmt.NONE, e.kind, e.to_number or e.from_ref or fmt.NONE,
             status_cell(e), duration(e.duration_seconds), credits_text(e.credits)),
            extra=f"{e.call_id or ''} {e.end_reason or ''} {words}",
        )

    def after_load(self, items: list[CallEntry]) -> None:
        if self.services.calls is None:
            self.banner().show(NO_LEDGER, info=True)
        elif self._spend is None or self._spend.book is not self.services.calls:
            self.prepare_spend()
        if any(e.open for e in items) and not self._polling():
            self.poll()

    def count_note(self) -> str:
        # Counted once a load, not on every filter keystroke (10,000 calls: ~5 ms a count).
        if self._open_counted_in is not self.items:
            self._open_counted_in, self._open_count = self.items, sum(1 for e in self.items.values() if e.open)
        running = self._open_count
        return f"{running} not ended yet, read every {self.POLL_SECONDS:g} s" if running else ""

    def render_detail(self, e: CallEntry) -> RenderableType:
        title = f"{e.kind} call · {e.agent or 'agent unknown'}"
        parts: list[RenderableType] = [Text(title, style="bold")]
        if e.unknown:
            parts.append(Text(UNKNOWN_HELP.format(key=e.idempotency_key or "KEY"), style="magenta"))
        if e.read_error and not e.ended:
            parts.append(Text(f"Could not read this call ({e.read_at or 'now'}): {e.read_error}", style="red"))
        parts.append(fields_table([
            ("call", e.call_id or "not known: the answer was lost"),
            ("started", when(e.noted_at)), ("to", e.to_number), ("from", e.from_ref),
            ("status", status_cell(e)), ("end reason", e.end_reason),
            ("duration", duration(e.duration_seconds)), ("credits", credits_text(e.credits)),
            ("recording", "s saves it as WAV" if e.has_recording else
             ("none" if e.ended else "once the call has ended")),
            ("read", when(e.read_at) if e.read_at else "not yet"),
        ]))
        parts += figures_parts(e)
        if e.summary:
            parts += [Text("\nSummary", style="bold underline"), Text(e.summary)]
        if e.transcript:
            parts.append(Text("\nTranscript", style="bold underline"))
            for turn in e.transcript:
                who = {"assistant": "Agent", "user": "Caller"}.get(turn.role, turn.role)
                line = Text()
                line.append(f"{who}: ", style="bold cyan" if turn.role == "assistant" else "bold")
                line.append(turn.content)
                parts.append(line)
        elif e.ended:
            parts.append(Text("\nNothing was said on this call.", style="dim"))
        return Group(*parts)

    # --- reading calls to their end ---

    def _polling(self) -> bool:
        return any(w.group == "poll" and not w.is_finished for w in self.workers)

    @work(exclusive=True, group="poll", exit_on_error=False)
    async def poll(self) -> None:
        book = self.services.calls
        if book is None:
            return
        seen: dict[str, tuple[object, ...]] = {}
        while book is self.services.calls:  # another profile's ledger: its own poll takes over
            open_ids = await book.run(book.ledger.open_ids)
            if not open_ids:
                return
            unreadable: dict[str, str] = {}
            changed = False
            for call_id in open_ids:
                try:
                    record = await self.services.call_api(partial(read_call, call_id))
                except errors.ApiError as error:
                    unreadable[call_id] = describe_error(error)
                    await book.unreadable(call_id, unreadable[call_id], gone=isinstance(error, errors.NotFound))
                    changed = True
                    continue
                said = (record.status, record.duration_seconds, record.credits_charged, record.end_reason,
                        len(record.transcript or ()), bool(record.recording_url), record.summary)
                if seen.get(call_id) != said:
                    seen[call_id], changed = said, True
                    try:
                        await book.cache(record)
                    except CallIdTaken as taken:
                        # The server gives this id to another call now (a sandbox started again):
                        # the kept call is gone from it, and is not read again nor overwritten.
                        unreadable[call_id] = str(taken)
                        await book.unreadable(call_id, unreadable[call_id], gone=True)
            self.post_message(self.Polled(unreadable, changed))
            await asyncio.sleep(self.POLL_SECONDS)

    @on(Polled)
    def _polled(self, message: Polled) -> None:
        if message.unreadable:
            first, why = next(iter(message.unreadable.items()))
            more = f" (and {len(message.unreadable) - 1} more)" if len(message.unreadable) > 1 else ""
            self.banner().show(f"Call {first}{more} could not be read: {why} A call the server does not "
                               f"have is marked 'not found'; any other is read again in {self.POLL_SECONDS:g} s.")
        elif self.banner().message.startswith("Call "):
            self.banner().clear()
        if not message.changed:
            return  # 10,000 rows are not rebuilt every 2 s for a call still ringing
        if self.select_after_load is None:  # a call just placed keeps its claim on the cursor
            self.select_after_load = self.query_one(RowTable).cursor_key
        self.reload()

    def action_refresh(self) -> None:
        super().action_refresh()
        if not self._polling():
            self.poll()

    # --- a recording, saved without the key ---

    def action_save_recording(self) -> None:
        entry = self.current
        if entry is None or entry.call_id is None:
            self.app.notify("No call with an id is highlighted.", severity="warning", markup=False)
            return
        if not entry.ended:
            self.app.notify("The recording comes once the call has ended.", severity="warning", markup=False)
            return
        self.save_recording(entry.call_id)

    @work(exclusive=True, group="recording", exit_on_error=False)
    async def save_recording(self, call_id: str) -> None:
        # The URL is signed and expires: read the record again for a fresh one, never kept.
        record = await self.services.call_api(lambda c: c.get_call(call_id))
        if not record.recording_url:
            raise errors.NotFound(f"Call {call_id} has no recording (nothing was said, or it is not ready)")
        url = record.recording_url
        audio = await self.services.call_api(lambda c: c.fetch_recording(url))
        # The call id is the server's text: checked before it names a file (local_files.name_part).
        path = Path.cwd() / call_audio_name(call_id, "recording")
        try:
            await asyncio.to_thread(write_private, path, audio)
        except OSError as exc:
            raise errors.ApiError(f"Could not write {path}: {exc.strerror or exc}") from None
        self.post_message(self.Saved(path))

    @on(Saved)
    def _saved(self, message: Saved) -> None:
        self.app.notify(f"Saved the recording to {message.path}", title="Recording", markup=False)

    # --- add by id, export, spend ---

    def action_add_call(self) -> None:
        current = self.current
        lost_row = current.row if current is not None and current.unknown else None

        async def check(call_id: str) -> str:
            record = await self.services.call_api(lambda c: c.get_call(call_id))
            book = self.services.calls
            if book is not None:
                await book.run(add_or_resolve, book.ledger, record, lost_row, book.now())
            return record.id

        def added(call_id: str | None) -> None:
            if call_id:
                self.select_after_load = call_id
                self.reload()

        self.app.push_screen(PromptIdScreen(
            "Add a call by id", "Call id",
            "A call started elsewhere (the dashboard, another machine): read from the server, then kept here.",
            check=check), added)

    def action_export(self) -> None:
        def chosen(fmt_name: str | None) -> None:
            if fmt_name is not None:  # Esc or Cancel writes nothing
                self.export_ledger(fmt_name)

        self.app.push_screen(ExportFormat("Export every call with its transcript to a file in the "
                                          "current folder, as JSON or as CSV?", title="Export calls"), chosen)

    @work(exclusive=True, group="export", exit_on_error=False)
    async def export_ledger(self, fmt_name: str) -> None:
        book = self.services.calls
        if book is None:
            raise errors.ApiError(NO_LEDGER)
        entries = await book.run(book.ledger.with_transcripts)
        stamp = book.now().strftime("%Y%m%d-%H%M%S")
        path = Path.cwd() / f"calls-{book.ledger.profile}-{stamp}.{fmt_name}"
        try:
            await asyncio.to_thread(write_private, path, render_export(entries, fmt_name))
        except OSError as exc:
            raise errors.ApiError(f"Could not write {path}: {exc.strerror or exc}") from None
        self.post_message(self.Exported(path, len(entries)))

    @on(Exported)
    def _exported(self, message: Exported) -> None:
        self.app.notify(f"{message.count} calls written to {message.path}", title="Export", markup=False)

    async def action_spend(self) -> None:
        book = self.services.calls
        if book is None:
            self.banner().show(NO_LEDGER, info=True)
            return
        self.app.push_screen(await self._spend_screen(book))

    @work(exclusive=True, group="spend-prepare", exit_on_error=False)
    async def prepare_spend(self) -> None:
        """Spend built before ``c`` asks for it, its charts' module imported and its numbers read,
        all off the UI loop: the first ``c`` took 250-350 ms, most of it these."""
        from vap_console.tui.screens.spend import prepare_charts

        book = self.services.calls
        if book is None:
            return
        await asyncio.to_thread(prepare_charts)
        await (await self._spend_screen(book)).prefetch()

    async def _spend_screen(self, book: CallBook) -> SpendScreen:
        """The Spend screen, built once a ledger and kept (installed): shown again, it only reads the
        ledger again and redraws what changed, where building it anew cost 150-250 ms a ``c``."""
        from vap_console.tui.screens.spend import SpendScreen

        kept = self._spend
        if kept is not None and kept.book is book:
            return kept
        if kept is not None:  # another profile's ledger: its screen is not on show (Calls is)
            self.app.uninstall_screen(kept)
            if kept.is_mounted:  # shown once (one only prefetched was never mounted)
                await kept.remove()
        self._spend = screen = SpendScreen(book, today=lambda: self.services.now().date())
        self.app.install_screen(screen, f"spend-{id(screen)}")
        return screen

    # --- placing ---

    def agent_to_call_with(self) -> str:
        entry = self.current
        return entry.agent if entry is not None else ""

    def api_failed(self, worker: Worker[Any], error: BaseException) -> bool:
        if worker.group == "placecall":
            return self.place_call_failed(error)
        if worker.group in ("export", "recording", "calltest") and isinstance(error, errors.ApiError):
            self.banner().show(describe_error(error))
            return True
        return super().api_failed(worker, error)
