"""Numbers: rented phone numbers, their status and money, and the detail with compliance and timeline.

Extension point for the rental wizard: add bindings to NumbersScreen.BINDINGS and their actions
here; the detail pane is ``detail_of`` (the number, the timeline of the highlighted rental, its fields).
"""

from __future__ import annotations

import asyncio
import uuid
from datetime import datetime
from typing import TYPE_CHECKING, Any

from rich.console import Group, RenderableType
from rich.text import Text
from textual import on
from textual.binding import Binding
from textual.validation import Function
from textual.widgets import Static

from vap_console.api import errors
from vap_console.api.models import Rental, RentalStatus
from vap_console.tui import format as fmt
from vap_console.tui import untrusted
from vap_console.tui.pairs import DetailView, Drawn, Pairs, cap_string, entry_rows
from vap_console.tui.screens.base import ListScreen
from vap_console.tui.screens.prompt_id import PromptIdScreen
from vap_console.tui.screens.rental import RentalScreen
from vap_console.tui.services import Services
from vap_console.tui.widgets.rows import Column, Row, RowTable, make_row
from vap_console.tui.widgets.timeline import timeline_content

if TYPE_CHECKING:
    from vap_console.api import VapClient
    from vap_console.tui.screens.wizard.earlier import SessionMemory

def is_uuid(value: str) -> bool:
    try:
        uuid.UUID(value.strip())
    except ValueError:
        return False
    return True


def owned_number(rental: Rental) -> str | None:
    """The number the account holds, E.164; None until one is bought."""
    return fmt.e164(rental.e164 or rental.number)


def number_cell(rental: Rental) -> Text | str:
    owned = owned_number(rental)
    if owned:
        return owned
    if rental.requested_number:
        # Asked for, not bought: shown apart from owned numbers, and a rental that stopped (rejected,
        # failed) apart from one still on its way. A footnote mark, not parentheses: the column
        # keeps its 120-column width (no city cut).
        return Text(f"{fmt.e164(rental.requested_number)}{requested_mark(rental)}", style="dim italic")
    return fmt.NONE


def stopped(rental: Rental) -> bool:
    return rental.status in (RentalStatus.KYC_REJECTED, RentalStatus.FAILED)


def requested_mark(rental: Rental) -> str:
    return "†" if stopped(rental) else "*"


def _when(value: object) -> str:
    if isinstance(value, str):
        try:
            return fmt.when(datetime.fromisoformat(value.replace("Z", "+00:00")))
        except ValueError:
            return value
    return fmt.text(value)


def events_table(events: list[dict[str, Any]], currency: str | None) -> Pairs:
    """The events, oldest first: when, what, and its data (amounts in the wallet's currency).
    Only the ones the pane shows are formatted (a rental may carry thousands)."""

    def row(event: dict[str, Any]) -> tuple[str, Text]:
        data = []
        for key, value in event.items():
            # complianceId: the Compliance section below names it once.
            if key in ("type", "at", "currency", "complianceId"):
                continue
            if key.endswith("Nanos") and isinstance(value, int):
                value = fmt.money(value, event.get("currency") or currency)
                key = key[: -len("Nanos")]
            data.append(f"{key} {value}")
        line = Text(str(event.get("type", "?")), style="bold")
        if data:
            line.append(" · " + " · ".join(data))
        return _when(event.get("at")), line

    return entry_rows(events, row)


def history_table(history: list[dict[str, Any]]) -> Pairs:
    def row(entry: dict[str, Any]) -> tuple[str, Text]:
        line = Text(str(entry.get("status", "?")), style="bold")
        if entry.get("note"):
            line.append(f" · {entry['note']}")
        return _when(entry.get("at")), line

    return entry_rows(history, row)


# Short enough that the count line with both notes fits the list pane at 80 columns.
REQUESTED_NOTE = "* not bought yet"
STOPPED_NOTE = "† stopped: refund in detail"


def fields_table(rows: list[tuple[str, object]]) -> Pairs:
    # Values wrap, and a long word (an id, a URL) folds onto the next line rather than being cut.
    return Pairs((name, value if isinstance(value, Text) else fmt.text(value)) for name, value in rows)


class NumbersScreen(ListScreen[Rental]):
    AREA = "numbers"
    LABEL = "Numbers"
    NOUN = "numbers"
    EMPTY = "No rented numbers yet. Press a to add a rental you know by id."
    COLUMNS = (
        # Status and number stay; when the list is narrow the others go, the country first (the
        # number's +91 says it), then the renewal date, the type, the rent and the city (drop).
        Column("Status", 14, min_width=13),
        # The number is what a person looks for: it gives up no width, its footnote mark included.
        Column("Number", 17, whole=True),
        Column("Type", 10, min_width=5, drop=3),
        Column("Ctry", 4, drop=5),
        Column("City", 14, min_width=6, drop=1),
        # "Rent/mo": room for a requested number's footnote mark without cutting the status.
        Column("Rent/mo", 14, min_width=9, drop=2),
        Column("Renews", 10, min_width=10, drop=4),
    )
    BINDINGS = [
        Binding("a", "add_rental", "Add by id", id="numbers.add", tooltip="Track a rental by its id"),
        Binding("c", "copy_number", "Copy number", id="numbers.copy", tooltip="Copy the E.164 number"),
        Binding("n", "rent_number", "Rent a number", id="numbers.rent",
                tooltip="Open the KYC rental wizard: pick a number, send the documents, pay the first month"),
    ]

    def __init__(self, services: Services | None = None) -> None:
        super().__init__(services)
        # True when the server has no list endpoint and the rows come from the local index.
        self.from_local_index = False
        # Remembered rental ids the server answered 404 for.
        self.missing = 0
        # The last application typed in a wizard this session, for the next one (made with the
        # first wizard: start-up does not load the wizard's modules).
        self.typed_earlier: SessionMemory | None = None

    async def fetch(self, client: VapClient) -> list[Rental]:
        try:
            page = await client.list_rentals()
        except errors.NotSupported:
            self.from_local_index = True
            ids = await self.known_ids("rental")
            fetched = await asyncio.gather(*(client.get_rental(i) for i in ids), return_exceptions=True)
            # A remembered rental the server no longer knows is skipped and counted, not fatal.
            self.missing = sum(isinstance(r, errors.NotFound) for r in fetched)
            failure = next(
                (r for r in fetched if isinstance(r, BaseException) and not isinstance(r, errors.NotFound)), None
            )
            if failure is not None:
                raise failure from None  # the fallback's own failure, not the NotSupported that led here
            return [r for r in fetched if isinstance(r, Rental)]
        self.from_local_index = False
        self.missing = 0
        return list(page.items)

    def row_of(self, rental: Rental) -> Row:
        return make_row(
            rental.id,
            (
                fmt.status(rental.status),
                number_cell(rental),
                rental.number_type,
                rental.country_iso,
                rental.city or fmt.NONE,
                fmt.money(rental.monthly_rent_nanos, rental.currency),
                fmt.day(rental.next_renewal_at),
            ),
            extra=rental.id,
        )

    def on_mount(self) -> None:  # ListScreen.on_mount runs too (Textual calls each class's handler)
        # The timeline's relative times age ("3 min ago"): drawn again now and then, not on each poll.
        self.set_interval(15, self.query_one("#detail", DetailView).renew)

    def detail_of(self, rental: Rental) -> RenderableType:
        # One pane drawn as one (a DetailView): the number, the timeline, then every field. Three
        # widgets of changing heights laid the screen out twice a cursor move.
        if owned_number(rental):
            head = Text(owned_number(rental) or "", style="bold")
        elif rental.requested_number:
            head = Text.assemble((fmt.e164(rental.requested_number) or "", "bold"),
                                 f" requested; {rental.status}, not bought" if stopped(rental)
                                 else " requested, not bought yet")
        else:
            head = Text("(number not bought yet)", style="bold")
        now = self.services.now
        # What the server wrote (a step's detail, why it failed) is capped here like every value
        # of the pane; the rental's own screen (Enter) shows it whole.
        timeline = Drawn(lambda width: timeline_content(rental, now(), width, cap=cap_string), indent=1)
        # A blank line between the timeline's last step and "All fields", as between any two parts.
        return Group(untrusted.safe(head), timeline, Text(""), super().detail_of(rental))

    def render_detail(self, r: Rental) -> RenderableType:
        money = lambda n: fmt.money(n, r.currency)  # noqa: E731 - one line, read where it is used
        parts: list[RenderableType] = [
            Text("All fields", style="bold underline"),
            fields_table([
                ("id", r.id),
                ("status", fmt.status(r.status)),
                ("requested", fmt.e164(r.requested_number)),
                ("number", r.number),
                ("e164", r.e164),
                ("alias", r.alias),
                ("type", r.number_type),
                ("country", r.country_iso),
                ("region", r.region),
                ("city", r.city),
                ("currency", r.currency),
                ("monthly rent", money(r.monthly_rent_nanos)),
                ("setup fee", money(r.setup_nanos)),
                ("inbound / min", money(r.voice_rate_nanos)),
                ("outbound / pulse", money(r.outbound_rate_nanos)),
                ("pulse", f"{r.outbound_unit_seconds} s" if r.outbound_unit_seconds else None),
                ("prepaid", money(r.prepaid_nanos)),
                ("USD rates", f"{r.monthly_rental_rate_usd or '—'}/month, setup {r.setup_rate_usd or '—'}, "
                              f"in {r.voice_rate_usd or '—'}, out {r.outbound_rate_usd or '—'}"),
                ("rented", fmt.when(r.rented_at)),
                ("next renewal", fmt.when(r.next_renewal_at)),
                ("last renewal for", fmt.when(r.last_renewal_charged_for)),
                ("renewal attempts", r.renewal_attempts),
                ("renewal error", r.renewal_last_error),
                ("released", fmt.when(r.released_at)),
                ("release reason", r.release_reason),
                ("last error", Text(r.last_error, style="red") if r.last_error else None),
                ("agent", f"{r.agent_name or ''} {r.user_agent_id or ''}".strip() or None),
                ("created", fmt.when(r.created_at)),
                ("updated", fmt.when(r.updated_at)),
            ]),
        ]
        if r.events:
            parts += [Text(f"\nEvents ({len(r.events)})", style="bold"), events_table(r.events, r.currency)]
        c = r.compliance
        if c is not None:
            parts += [
                Text("\nCompliance (KYC)", style="bold"),
                fields_table([
                    ("id", c.id),
                    ("carrier id", c.carrier_compliance_id),
                    ("status", c.status),
                    ("rejection", Text(c.rejection_reason, style="red") if c.rejection_reason else None),
                    ("alias", c.alias),
                    ("end user", c.end_user.get("name") if isinstance(c.end_user, dict) else None),
                    ("documents", len(c.documents)),
                    ("attempts", c.attempts),
                    ("submitted", fmt.when(c.submitted_at)),
                    ("decided", fmt.when(c.decided_at)),
                ]),
            ]
            if c.history:
                parts += [Text(f"\nCompliance history ({len(c.history)})", style="bold"), history_table(c.history)]
        return Group(*parts)

    def _update_count(self) -> None:
        super()._update_count()
        shown = [self.items.get(key) for key in self.query_one(RowTable).keys]
        requested = [r for r in shown if r is not None and owned_number(r) is None and r.requested_number]
        notes = [note for note, present in ((REQUESTED_NOTE, any(not stopped(r) for r in requested)),
                                            (STOPPED_NOTE, any(stopped(r) for r in requested))) if present]
        if notes:
            count = self.query_one("#list-count", Static)
            count.update(untrusted.content(" · ".join([str(count.content), *notes])), layout=False)

    def after_load(self, items: list[Rental]) -> None:
        if self.from_local_index:
            gone = f"; {self.missing} remembered not found" if self.missing else ""
            self.query_one("#list-count", Static).update(
                f"{len(items)} numbers (this profile's local index: the server has no list endpoint{gone})",
                layout=False,
            )

    # --- actions ---

    def action_add_rental(self) -> None:
        async def check(rental_id: str) -> str:
            # Fetched inside the dialog: a 404 lands under the field and the typed id stays.
            rental = await self.services.call_api(lambda c: c.get_rental(rental_id))
            return rental.id

        def added(rental_id: str | None) -> None:
            if not rental_id:
                return
            if self.services.local_index is not None:
                self.services.local_index.add("rental", rental_id)
            self.notify(f"Added rental {rental_id}.")
            self.select_after_load = rental_id
            self.reload()

        self.app.push_screen(
            PromptIdScreen("Add a rental by id", "Rental id (uuid)",
                           "The rental is fetched and remembered for this profile.",
                           rule=Function(is_uuid, "a rental id is a uuid, e.g. 0b6c1f7e-3d2a-4c5b-9e8f-1a2b3c4d5e6f"),
                           check=check),
            added,
        )

    def action_rent_number(self) -> None:
        # The wizard opens the new rental's live screen itself; the list just picks it up.
        # Imported here: start-up, which shows the list, need not pay for the wizard.
        from vap_console.tui.screens.wizard import RentalWizard
        from vap_console.tui.screens.wizard.earlier import SessionMemory

        if self.typed_earlier is None:
            self.typed_earlier = SessionMemory()
        wizard = RentalWizard(self.services, rentals=list(self.items.values()), memory=self.typed_earlier)
        self.app.push_screen(wizard, lambda rental: self.reload() if rental else None)

    @on(RowTable.Selected)
    def _open_rental(self, event: RowTable.Selected) -> None:
        rental = self.current
        if rental is not None and rental.id == event.key:
            self.app.push_screen(RentalScreen(rental.id, rental=rental, services=self.services))

    def action_copy_number(self) -> None:
        rental = self.current
        number = owned_number(rental) if rental is not None else None
        if not number:
            self.notify("This rental has no number yet.", severity="warning")
            return
        self.app.copy_to_clipboard(number)
        self.notify(f"Copied {number}.")
