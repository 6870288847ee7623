"""Step 1, the number: search the inventory or type one; numbers the account holds are refused."""

from __future__ import annotations

from textual import on, work
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.message import Message
from textual.widgets import Button, DataTable, Input, Label, Select, Static

from vap_console.api import errors
from vap_console.api.models import AvailableNumber, NumberType, Rental, SearchFilters
from vap_console.tui import untrusted
from vap_console.tui.failures import ApiFailed
from vap_console.tui.format import e164, money
from vap_console.tui.screens.rental import RentalScreen
from vap_console.tui.screens.wizard.earlier import holder_of
from vap_console.tui.screens.wizard.fields import RentingUnavailable, Step, check_fields, field
from vap_console.tui.screens.wizard.rules import (
    CountryCode,
    Digits,
    NotHeld,
    PhoneNumber,
    normalise_number,
    same_number,
)
from vap_console.tui.services import WizardHost
from vap_console.tui.untrusted import Literal

# The placeholders' examples are ones the sandbox stocks (a test holds them to its inventory), so a
# newcomer who types them on `make demo` finds a number instead of an empty search.
EXAMPLE_DIGITS = "7788"
EXAMPLE_NUMBER = "+918085837788"


class SearchDone(Message):
    def __init__(self, numbers: list[AvailableNumber], filters: SearchFilters) -> None:
        super().__init__()
        self.numbers = numbers
        self.filters = filters


class NumberStep(Step):
    """The number to rent, as typed or picked from a search; what it was found with, when picked."""

    def __init__(self, services: WizardHost, *, country_iso: str, number_type: str,
                 held: dict[str, Rental]) -> None:
        super().__init__(id="step-number")
        self._services = services
        self._country = country_iso
        self._number_type = number_type
        self._held = held
        self._numbers: list[AvailableNumber] = []
        self._search_filters: SearchFilters | None = None
        self.selected: AvailableNumber | None = None  # picked from the search, while the number is its
        self.filters: SearchFilters | None = None  # what the picked number was found with

    def compose(self) -> ComposeResult:
        yield Static("Search the inventory, or type the number you want.", classes="hint")
        with Horizontal(id="search-row"):
            with Vertical():
                yield from field("Country", "country", validators=[CountryCode()], value=self._country)
            with Vertical():
                yield Label("Type", classes="field-label")
                yield Select(
                    [("local", NumberType.LOCAL), ("mobile", NumberType.MOBILE),
                     ("toll-free", NumberType.TOLL_FREE)],
                    value=self._number_type, allow_blank=False, id="number-type",
                )
            with Vertical():
                yield from field("Digits it contains", "pattern", placeholder=f"e.g. {EXAMPLE_DIGITS}",
                                 validators=[Digits("Digits it contains")])
            with Vertical():
                yield from field("City", "city", placeholder="e.g. Bengaluru")
            yield Button("Search", id="search")
        yield Literal("", id="search-status", classes="hint")
        yield DataTable(id="results", cursor_type="row", zebra_stripes=True)
        yield from field("Number to rent", "number", validators=[PhoneNumber(), NotHeld(self._held_status)],
                         placeholder=f"bare digits or E.164, e.g. {EXAMPLE_NUMBER}")
        yield Button("Open its rental", id="number-held")

    def on_mount(self) -> None:
        self.query_one("#number-held", Button).display = False
        table = self.query_one("#results", DataTable)
        table.add_columns("Number", "City", "Monthly rent", "Setup fee")
        table.display = False

    # --- what the other steps read ---

    @property
    def number(self) -> str:
        """The number as it will be sent."""
        return normalise_number(self.value_of("number"))

    def number_type_value(self) -> str:
        value = self.query_one("#number-type", Select).value
        return value if isinstance(value, str) else NumberType.LOCAL

    def asked(self) -> tuple[str, str]:
        """The country and number type the requirements are asked for."""
        if self.selected is not None:
            return self.selected.country_iso, self.selected.number_type
        return self.value_of("country").strip().upper(), self.number_type_value()

    def number_shown(self) -> str:
        """The number being rented as it will be sent, with its E.164 form and city when picked."""
        number = self.number
        chosen = self.selected
        if chosen is not None and same_number(chosen.number, number):
            shown = e164(chosen.e164 or number)
            return f"{shown}, {chosen.city}" if chosen.city else shown or "—"
        return e164(number) or "—"

    def settle(self) -> None:
        """What is sent, shown: "+91 22 7240-1010" and "91 22 7240 1010" lose their spacing alike."""
        number = self.query_one("#number", Input)
        number.value = normalise_number(number.value)

    # --- the number typed: held already? still the one picked? ---

    def _held_status(self, number: str) -> str | None:
        holder = holder_of(number, self._held)
        return holder.status if holder is not None else None

    @on(Input.Changed, "#number")
    def _number_changed(self, event: Input.Changed) -> None:
        self._show_held(event.value)
        if self.selected is not None and not same_number(event.value, self.selected.number):
            self.selected = None
            self.filters = None

    def _show_held(self, number: str) -> None:
        """The way to the rental that holds the typed number, beside the number's message."""
        holder = holder_of(number, self._held)
        button = self.query_one("#number-held", Button)
        button.display = holder is not None
        if holder is not None:
            button.label = f"Open its rental ({holder.status})"
            # Below the number's message: brought into view, or a small terminal hides the way on.
            self.call_after_refresh(button.scroll_visible, animate=False)

    @on(Button.Pressed, "#number-held")
    def _open_held(self) -> None:
        holder = holder_of(self.value_of("number"), self._held)
        if holder is None:
            return
        # On top of the wizard: Esc comes back to it with everything typed.
        self.app.push_screen(RentalScreen(holder.id, rental=holder, services=self._services))

    # --- the search ---

    @on(Button.Pressed, "#search")
    def _search_pressed(self) -> None:
        self.search()

    def search(self) -> None:
        if not check_fields(self.query_one("#search-row")):
            return
        filters = SearchFilters(
            pattern=self.value_of("pattern").strip() or None,
            city=self.value_of("city").strip() or None,
        )
        self.query_one("#search-status", Literal).update("Searching…")
        self._run_search(self.value_of("country").strip().upper(), self.number_type_value(), filters)

    @work(exclusive=True, group="wizard-search", exit_on_error=False)
    async def _run_search(self, country: str, number_type: str, filters: SearchFilters) -> None:
        try:
            page = await self._services.call_api(
                lambda client: client.search_numbers(country, number_type, pattern=filters.pattern,
                                                     city=filters.city))
        except errors.NotSupported:
            self.query_one("#search-status", Literal).update(
                "This server does not offer number search: type the number below.")
            self.query_one("#number", Input).focus()
            return
        except errors.NotConfigured:
            self.query_one("#search-status", Literal).update("")
            self.post_message(RentingUnavailable())
            return
        except errors.ApiError as error:
            self.query_one("#search-status", Literal).update("")
            self.post_message(ApiFailed(error, self.search, origin=self.screen))
            return
        self.post_message(SearchDone(page.items, filters))

    @on(SearchDone)
    def _search_done(self, message: SearchDone) -> None:
        self._numbers = message.numbers
        self._search_filters = message.filters
        table = self.query_one("#results", DataTable)
        table.clear()
        for number in message.numbers:
            cells = (e164(number.e164 or number.number) or "—", number.city or "—",
                     money(number.monthly_rent_nanos, number.currency),
                     money(number.setup_nanos, number.currency))
            table.add_row(*(untrusted.text(cell, multiline=False) for cell in cells), key=number.number)
        table.display = bool(message.numbers)
        status = self.query_one("#search-status", Literal)
        if message.numbers:
            count = len(message.numbers)
            status.update(f"{count} {'number' if count == 1 else 'numbers'} found — Enter on one picks it.")
            table.focus()
        else:
            status.update("No numbers match; loosen the filters or type a number below.")

    @on(DataTable.RowSelected, "#results")
    def _picked(self, event: DataTable.RowSelected) -> None:
        chosen = next((n for n in self._numbers if n.number == event.row_key.value), None)
        if chosen is None:
            return
        # Refused rather than shown with stand-ins: a number or country holding a control, bidi
        # or zero-width character is not one anybody could rent, and its stand-ins sent on would
        # be a number nobody chose. The row stays listed (cleaned); the fields keep what they had.
        problems = [problem for problem in (untrusted.refused("Number to rent", chosen.number),
                                            untrusted.refused("Country", chosen.country_iso)) if problem]
        if problems:
            self.query_one("#search-status", Literal).update(
                "Not picked. " + "; ".join(problems) + ". Pick another number or type one below.")
            return
        number_input = self.query_one("#number", Input)
        number_input.value = chosen.number
        self.selected = chosen
        self.filters = self._search_filters
        self.query_one("#country", Input).value = chosen.country_iso
        self.query_one("#search-status", Literal).update(
            f"Picked {chosen.e164} ({chosen.city or chosen.country_iso}) — PgDn goes on to the requirements.")
        number_input.focus()
