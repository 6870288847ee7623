"""One rental and its live timeline (DESIGN §5), and the follow-up of remembered rentals.

The screen polls GET /v1/phone-numbers/{id} in one exclusive worker on the shared schedule
(api.polling): fast while the rental moves, slower while it waits, Retry-After honoured, an
"offline — retrying" line while the server cannot be reached. Polling stops at a terminal status.
Every status change rings the bell and shows a toast, here and for rentals followed in the
background since the console started.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, cast

from textual import on, work
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.message import Message
from textual.screen import Screen
from textual.widgets import Static

from vap_console.api import errors
from vap_console.api.models import Rental, RentalStatus
from vap_console.api.polling import PollFailed, PollSchedule, RentalUpdate, follow_rental, refund_of
from vap_console.api.rental_rules import substitution
from vap_console.tui import format as fmt
from vap_console.tui import untrusted
from vap_console.tui.services import ApiHost, AreasChanged, ConnectionObserved, Services, host_of
from vap_console.tui.widgets.banner import Banner
from vap_console.tui.widgets.key_bar import KeyBar
from vap_console.tui.widgets.status_bar import StatusBar
from vap_console.tui.widgets.timeline import STATUS_LABELS, Timeline

if TYPE_CHECKING:
    from textual.notifications import SeverityLevel

    from vap_console.api import VapClient
    from vap_console.tui.remembered import Remembered


def substituted(rental: Rental) -> bool:
    """The carrier bought another number than the one asked for (it was taken meanwhile)."""
    return substitution(rental) is not None


def substitute_note(rental: Rental) -> str:
    return substitution(rental) or ""


def status_toast(rental: Rental) -> tuple[str, SeverityLevel]:
    """(message, severity) for a status change."""
    number = fmt.e164(rental.e164 or rental.number or rental.requested_number) or rental.id
    label = STATUS_LABELS.get(rental.status, "new status")
    if rental.status in RentalStatus.FAILURES:
        return f"{number}: {rental.status} — {label}", "error"
    if substituted(rental):
        return f"{number}: {rental.status} — {label} ({substitute_note(rental)})", "warning"
    return f"{number}: {rental.status} — {label}", "information"


def problem_line(event: PollFailed) -> str:
    if event.offline:
        return f"offline — retrying in {event.next_delay:g} s"
    where = f" ({event.error.status_label})" if event.error.status_label else ""
    return f"{event.error.code}{where} — retrying in {event.next_delay:g} s"


def prepaid_text(rental: Rental) -> str:
    amount = fmt.money(rental.prepaid_nanos, rental.currency)
    if rental.status == RentalStatus.FUNDING and not rental.prepaid_nanos:
        # ₹0.00 alone reads as "free"; in funding nothing has been taken yet.
        return f"{amount} — nothing taken yet: waiting for auto-pay to top the wallet up"
    if rental.status in (RentalStatus.KYC_REJECTED, RentalStatus.FAILED) and rental.prepaid_nanos:
        refund = refund_of(rental)
        if refund is None:
            return f"{amount} — no refund reported yet"
        back = fmt.money(refund.amount_nanos, refund.currency) if refund.amount_nanos is not None else amount
        return f"{amount} — {back} refunded" + (f" {fmt.when(refund.at)}" if refund.at else "")
    return amount


def fields_text(rental: Rental | None) -> str:
    if rental is None:
        return ""
    rows = [
        ("Number", fmt.e164(rental.e164 or rental.number)
         or f"{fmt.e164(rental.requested_number) or '—'} (requested, not bought yet)"),
    ]
    if substituted(rental):
        rows.append(("Requested", f"{fmt.e164(rental.requested_number)} — taken meanwhile; the number above "
                                  "was bought instead"))
    return "\n".join(
        f"{name:<14}{value}"
        for name, value in (
            *rows,
            ("Type", f"{rental.number_type} · {rental.country_iso} · {rental.city or '—'}"),
            ("Monthly rent", fmt.money(rental.monthly_rent_nanos, rental.currency)),
            ("Prepaid", prepaid_text(rental)),
            ("Created", fmt.when(rental.created_at)),
        )
    )


class RentalPolled(Message):
    def __init__(self, update: RentalUpdate) -> None:
        super().__init__()
        self.update = update


class PollTrouble(Message):
    def __init__(self, failure: PollFailed) -> None:
        super().__init__()
        self.failure = failure


class PollStopped(Message):
    """Polling cannot go on (401, 403, 404): the user has to act."""

    def __init__(self, error: errors.ApiError) -> None:
        super().__init__()
        self.error = error


class PollEnded(Message):
    """A poll worker has ended. Posted after its last update, so by the time it is handled every
    update it sent is on screen: ``polling`` turns False only then."""

    def __init__(self, generation: int) -> None:
        super().__init__()
        self.generation = generation


class RentalScreen(Screen[None]):
    """A rental's fields and its timeline, kept live until the rental settles."""

    LABEL = "Rental"

    DEFAULT_CSS = """
    RentalScreen #rental-box { padding: 0 1; }
    RentalScreen #rental-title { text-style: bold; padding: 1 0; }
    RentalScreen #rental-fields { margin-bottom: 1; }
    RentalScreen Timeline { border: round $primary 50%; padding: 0 1; }
    """
    BINDINGS = [
        Binding("escape", "app.pop_screen", "Back", id="rental.back", tooltip="Back to the list"),
        Binding("r", "poll_now", "Refresh", id="rental.refresh", tooltip="Ask for the rental's progress now"),
        Binding("c", "copy_number", "Copy number", id="rental.copy", tooltip="Copy the E.164 number"),
    ]
    # Tests swap this for a faster schedule.
    schedule_factory: Callable[[], PollSchedule] = PollSchedule

    def __init__(self, rental_id: str, *, rental: Rental | None = None, services: ApiHost | None = None) -> None:
        super().__init__()
        self._services = services
        self.rental_id = rental_id
        self.rental = rental
        # True from follow() until the last poll's updates are shown (PollEnded).
        self.polling = False
        # Which follow() is current: an ended worker that an r press replaced says nothing.
        self._poll_generation = 0

    @property
    def services(self) -> ApiHost:
        return self._services if self._services is not None else host_of(self.app)

    def compose(self) -> ComposeResult:
        # The console hands its whole services (profile, server, connection) and the rental gets
        # the same top line as the areas; the wizard's test host is an ApiHost only and has none.
        if hasattr(self.services, "follow_connection"):
            yield StatusBar("Numbers › rental", cast("Services", self.services))
        with VerticalScroll(id="rental-box"):
            yield Static(untrusted.content(f"Rental {self.rental_id}"), id="rental-title")
            yield Banner(id="rental-banner")
            yield Static(untrusted.content(fields_text(self.rental)), id="rental-fields")
            yield Timeline(self.rental, now=self.services.now, id="timeline")
        yield KeyBar()

    def on_mount(self) -> None:
        self.follow()

    @property
    def timeline(self) -> Timeline:
        return self.query_one(Timeline)

    def _show(self, rental: Rental) -> None:
        self.rental = rental
        # Answers can arrive while the screen is being torn down: nothing left to draw on then.
        for timeline in self.query(Timeline):
            timeline.rental = rental
        for fields in self.query("#rental-fields").results(Static):
            fields.update(untrusted.content(fields_text(rental)))

    # --- polling ---

    def follow(self) -> None:
        self.polling = True
        self._poll_generation += 1
        self._poll(self._poll_generation)

    @work(exclusive=True, group="rental-poll", exit_on_error=False)
    async def _poll(self, generation: int) -> None:
        client = self.services.client
        first = self.rental if self.rental is not None and self.rental.id == self.rental_id else None
        try:
            async for event in follow_rental(
                lambda: client.get_rental(self.rental_id),
                schedule=type(self).schedule_factory(),
                first=first,
            ):
                if isinstance(event, PollFailed):
                    self.post_message(PollTrouble(event))
                else:
                    self.post_message(RentalPolled(event))
        except errors.ApiError as error:
            self.post_message(PollStopped(error))
        # Narrow, not the one failure path (ApiFailed): a stop is shown here, on the timeline
        # ("stopped: <code>") and in this screen's banner with Retry, which the app's handler
        # would not do. The client raises only ApiError, and ValueError for an id it refuses
        # (blank); a bad answer is an ApiError (UnexpectedResponse). Anything else is a bug and
        # goes to the app's handler like any worker's.
        except ValueError as error:
            self.post_message(PollStopped(errors.UnexpectedResponse(f"Polling stopped: {error}")))
        finally:
            self.post_message(PollEnded(generation))

    @on(PollEnded)
    def _poll_ended(self, message: PollEnded) -> None:
        if message.generation == self._poll_generation:
            self.polling = False

    @on(RentalPolled)
    def _polled(self, message: RentalPolled) -> None:
        update = message.update
        self._show(update.rental)
        self._connection(None)
        self.post_message(ConnectionObserved("online"))
        if update.status_changed:
            announce(self.app, update.rental)

    @on(PollTrouble)
    def _trouble(self, message: PollTrouble) -> None:
        self._connection(problem_line(message.failure))
        # As for any call (VapApp.call_api): only a server out of reach is the console offline.
        error = message.failure.error
        if isinstance(error, errors.TransportError) and error.unreachable:
            self.post_message(ConnectionObserved("offline"))

    @on(PollStopped)
    def _stopped(self, message: PollStopped) -> None:
        self._connection(f"stopped: {message.error.code}")
        for banner in self.query("#rental-banner").results(Banner):
            banner.show(str(message.error), retry=self.follow)

    def _connection(self, line: str | None) -> None:
        for timeline in self.query(Timeline):
            timeline.connection = line

    def action_poll_now(self) -> None:
        # Restarting the exclusive worker cancels the one sleeping and asks at once.
        self.follow()

    def action_copy_number(self) -> None:
        number = fmt.e164(self.rental.e164 or self.rental.number) if self.rental else None
        if not number:
            self.notify("This rental has no number yet.", severity="warning")
            return
        self.app.copy_to_clipboard(number)
        self.notify(f"Copied {number}.")


def announce(app: App[Any], rental: Rental) -> None:
    """Bell and toast for a status change; the Numbers list, which shows the status too, reloads."""
    app.post_message(AreasChanged("numbers"))  # reloaded now if on screen, else when next shown
    message, severity = status_toast(rental)
    app.bell()
    app.notify(message, title="Rental status", severity=severity, timeout=8)


# --- remembered rentals: followed in the background from the console's start ---


def resume_remembered(app: App[Any]) -> None:
    """Follow every rental this profile created that has not settled; announce each change.

    Call once the app's client is open (VapApp.open_client does). Ids come from ``app.local_index``.
    """
    # A profile switch starts over: the old client is about to close.
    app.workers.cancel_group(app, "rental-resume")
    host = host_of(app)
    index = host.local_index
    if index is None:
        return
    app.run_worker(_follow_all(app, host, index), group="rental-resume", exclusive=True, exit_on_error=False)


async def _follow_all(app: App[Any], host: ApiHost, index: Remembered) -> None:
    # A damaged index is set aside by LocalIndex itself; any other failure lands in the app's handler.
    ids = await index.ids("rentals")
    await asyncio.gather(*(_follow_one(app, host.client, rental_id) for rental_id in ids))


async def _follow_one(app: App[Any], client: VapClient, rental_id: str) -> None:
    try:
        async for event in follow_rental(
            lambda: client.get_rental(rental_id), schedule=RentalScreen.schedule_factory()
        ):
            if isinstance(event, RentalUpdate) and event.status_changed:
                # The rental's own screen announces changes itself while it is open.
                screen = app.screen
                if not (isinstance(screen, RentalScreen) and screen.rental_id == rental_id):
                    announce(app, event.rental)
    except (errors.NotFound, errors.Unauthorized, errors.ForbiddenScope):
        return  # gone, or not this key's: nothing to follow (a 401 is the login screen's to say)


__all__ = ["RentalScreen", "announce", "resume_remembered", "status_toast"]
