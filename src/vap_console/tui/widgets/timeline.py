"""The rental timeline (DESIGN §5): one row per step with its glyph, when it happened and its detail.

The widget only draws; polling lives in the rental screen. Times are shown both relative to an
injected clock ("3 min ago", so snapshots on a virtual clock are stable) and absolute in UTC.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime

from rich.cells import cell_len
from textual.content import Content
from textual.reactive import reactive
from textual.widget import Widget

from vap_console.api.models import Rental, RentalStatus, StepState, TimelineStep
from vap_console.api.polling import failure_reason, refund_of, step_glyph
from vap_console.tui import format as fmt
from vap_console.tui import untrusted

STATE_STYLES = {
    StepState.DONE: "$success",
    StepState.ACTIVE: "bold $accent",
    StepState.PENDING: "$text-muted",
    StepState.FAILED: "bold $error",
}

STATUS_LABELS = {
    RentalStatus.FUNDING: "waiting for auto-pay to fund the wallet",
    RentalStatus.KYC_SUBMITTED: "KYC documents with the carrier",
    RentalStatus.KYC_ACCEPTED: "KYC accepted",
    RentalStatus.PURCHASING: "buying the number",
    RentalStatus.AWAITING_FUNDS: "waiting for funds",
    RentalStatus.ACTIVE: "the number is live",
    RentalStatus.KYC_REJECTED: "the carrier rejected the KYC",
    RentalStatus.PAST_DUE: "rent is past due",
    RentalStatus.RELEASING: "being released",
    RentalStatus.RELEASED: "released",
    RentalStatus.FAILED: "the rental failed",
}


NEXT_STEPS = {
    RentalStatus.KYC_REJECTED: ("fix what the reason above names (a document, a detail), then rent again: "
                                "n on Numbers."),
    RentalStatus.FAILED: "this number could not be bought; rent another: n on Numbers.",
}


def indented(content: Content, width: int, indent: int = 5) -> list[Content]:
    """``content`` wrapped to ``width`` with every line indented, not only the first."""
    pad = Content(" " * indent)
    return [pad + line for line in content.wrap(max(width - indent, 10))]


def _aware(moment: datetime) -> datetime:
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)


def relative_time(at: datetime, now: datetime) -> str:
    """``just now``, ``40 s ago``, ``3 min ago``, ``2 h ago``, ``5 d ago``; ``in 2 min`` ahead."""
    if at.tzinfo is None:
        at = at.replace(tzinfo=UTC)
    if now.tzinfo is None:
        now = now.replace(tzinfo=UTC)
    seconds = (now - at).total_seconds()
    ahead = seconds < 0
    seconds = abs(seconds)
    if seconds < 5:
        return "just now"
    # the last size is 1 s, which 5 s and more always reach
    size, unit = next((size, unit) for size, unit in ((86400, "d"), (3600, "h"), (60, "min"), (1, "s"))
                      if seconds >= size)
    amount = f"{int(seconds // size)} {unit}"
    return f"in {amount}" if ahead else f"{amount} ago"


def absolute_time(at: datetime) -> str:
    return fmt.when_seconds(at)


def timeline_content(rental: Rental, now: datetime, width: int, *, connection: str | None = None,
                     cap: Callable[[str], str] | None = None) -> Content:
    """A rental's status line and its timeline steps, wrapped to ``width``. ``cap`` shortens what
    the server wrote (a step's detail, the failure reason) where the timeline shares a pane."""
    shorten = cap or (lambda text: text)
    lines: list[Content] = [_status_line(rental)]
    if connection:
        lines.append(untrusted.markup("[bold $warning]$text[/]", text=connection))
    lines.append(Content(""))
    reason = failure_reason(rental)
    failed_shown = False
    for step in rental.timeline:
        style = STATE_STYLES.get(step.state, "$warning")
        glyph = step_glyph(step.state)
        label = step.label if step.state in STATE_STYLES else f"{step.label} ({step.state})"
        label = untrusted.clean(shorten(label), multiline=False)
        when = _when(step, now)
        head = Content.assemble((f" {glyph} ", style), (f"{label:<28}", style))
        if when and head.cell_length + 1 + cell_len(when) > width:
            # A time never splits mid-phrase: too narrow for both, it takes a line of its own.
            lines.append(head)
            # Still too narrow: relative and absolute time each whole on a line, never "…00 / UTC".
            parts = [when] if cell_len(when) + 5 <= width else when.split(" · ")
            lines.extend(line for part in parts for line in indented(Content.styled(part, "$text-muted"), width))
        else:
            lines.append(head + Content.styled(f" {when}" if when else "", "$text-muted"))
        if step.detail:
            lines.extend(indented(Content.styled(untrusted.clean(shorten(step.detail)), "$text-muted"), width))
        if step.state == StepState.FAILED and reason:
            if reason != step.detail:
                lines.extend(indented(Content.styled(untrusted.clean(shorten(reason)), "$error"), width))
            failed_shown = True
    if reason and not failed_shown and rental.status in RentalStatus.FAILURES:
        lines.extend(indented(Content.styled(untrusted.clean(shorten(reason)), "$error"), width, 1))
    lines.extend(_money_back(rental, now, width))
    return Content("\n").join(lines)


def _when(step: TimelineStep, now: datetime) -> str:
    if step.at is not None:
        # A step has happened: a time ahead of ours is the server's clock running ahead.
        happened = min(_aware(step.at), _aware(now))
        return f"{relative_time(happened, now)} · {absolute_time(step.at)}"
    return "in progress" if step.state == StepState.ACTIVE else ""


def _money_back(rental: Rental, now: datetime, width: int) -> list[Content]:
    """For a rental that stopped: whether the first charge came back, and what to do next."""
    if rental.status not in (RentalStatus.KYC_REJECTED, RentalStatus.FAILED):
        return []
    lines = [Content("")]
    refund = refund_of(rental)
    charged = fmt.money(rental.prepaid_nanos, rental.currency) if rental.prepaid_nanos else None
    if refund is not None:
        amount = fmt.money(refund.amount_nanos, refund.currency) if refund.amount_nanos is not None else charged
        when = (f" {relative_time(min(_aware(refund.at), _aware(now)), now)} · {absolute_time(refund.at)}"
                if refund.at is not None else "")
        lines.extend(indented(Content.styled(
            f"↩ {amount or 'The first charge'} refunded to the wallet{when}", "$success"), width, 1))
    elif charged:
        lines.extend(indented(Content.styled(
            f"↩ No refund of the {charged} taken up front is reported yet: it shows here once the "
            "server logs it.", "$warning"), width, 1))
    step = NEXT_STEPS[rental.status]
    lines.extend(indented(Content.styled(f"Next: {step}", "bold"), width, 1))
    return lines


class Timeline(Widget):
    """Draws a rental's status and its timeline steps. Set ``rental`` to update it."""

    DEFAULT_CSS = """
    Timeline {
        height: auto;
        padding: 0 1;
    }
    """

    rental: reactive[Rental | None] = reactive(None, layout=True)
    # A line about the connection ("offline — retrying in 8 s"); None while polls succeed.
    connection: reactive[str | None] = reactive(None, layout=True)

    def __init__(
        self,
        rental: Rental | None = None,
        *,
        now: Callable[[], datetime] | None = None,
        name: str | None = None,
        id: str | None = None,
        classes: str | None = None,
    ) -> None:
        super().__init__(name=name, id=id, classes=classes)
        self._now = now
        self.set_reactive(Timeline.rental, rental)

    def on_mount(self) -> None:
        # Relative times age; redraw now and then rather than on every poll.
        self.set_interval(15, self.refresh)

    def now(self) -> datetime:
        # The console's clock (a virtual one in tests) when given, else the wall clock.
        return self._now() if self._now is not None else datetime.now(UTC)

    def render(self) -> Content:
        rental = self.rental
        if rental is None:
            return Content.from_markup("[$text-muted]Loading the rental…[/]")
        # Inside the padding; not laid out yet (rendered on its own), as wide as it likes.
        width = max(self.size.width - 2, 20) if self.size.width else 200
        return timeline_content(rental, self.now(), width, connection=self.connection)


def _status_line(rental: Rental) -> Content:
    status = rental.status
    label = STATUS_LABELS.get(status)
    if status in RentalStatus.FAILURES:
        style = "bold $error"
    elif status == RentalStatus.ACTIVE:
        style = "bold $success"
    else:
        style = "bold $accent"
    number = fmt.e164(rental.e164 or rental.number or rental.requested_number) or rental.id
    parts: list[tuple[str, str] | str] = [
        (untrusted.clean(number, multiline=False), "bold"), "  ", (untrusted.clean(status, multiline=False), style)
    ]
    if label:
        parts.append((f" — {label}", "$text-muted"))
    return Content.assemble(*parts)
