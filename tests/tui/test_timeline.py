"""The Timeline widget: glyphs, times from an injected clock, details, failures, unknown states."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from textual.app import App, ComposeResult

from vap_console.api.models import Rental
from vap_console.tui.widgets.timeline import Timeline, relative_time

NOW = datetime(2026, 3, 2, 9, 30, tzinfo=UTC)
STEPS = [
    ("prepaid", "First month's rent deducted"),
    ("submitted", "Documents submitted"),
    ("verification", "Verification"),
    ("purchase", "Number purchase"),
    ("active", "Number active"),
]
# Which step is current for each status, and whether it failed there.
PROGRESS = {
    "funding": (0, False),
    "kyc_submitted": (2, False),
    "kyc_accepted": (3, False),
    "purchasing": (3, False),
    "active": (5, False),
    "kyc_rejected": (2, True),
    "failed": (3, True),
    "released": (5, False),
}


def make_rental(status: str, *, states: dict[str, str] | None = None, **extra) -> Rental:
    """A rental as the server would send it in ``status``, its steps spaced two minutes apart."""
    current, failed = PROGRESS.get(status, (2, False))
    started = NOW - timedelta(minutes=12)
    steps = []
    for i, (key, label) in enumerate(STEPS):
        if i < current:
            state, at = "done", started + timedelta(minutes=2 * i)
        elif i == current:
            state, at = ("failed", started + timedelta(minutes=2 * i)) if failed else ("active", None)
        else:
            state, at = "pending", None
        state = (states or {}).get(key, state)
        steps.append({"key": key, "label": label, "state": state, "at": at})
    steps[0]["detail"] = "₹1,180.00 taken from the wallet" if current > 0 else "waiting for auto-pay"
    body = {
        "id": "5b7e7c1e-0000-4000-8000-00000000abcd",
        "status": status,
        "requestedNumber": "918045670001",
        "numberType": "local",
        "countryIso": "IN",
        "currency": "INR",
        "timeline": steps,
        "events": [],
        "createdAt": started,
        "updatedAt": started + timedelta(minutes=2 * min(current, 4)),
    }
    if status == "active":
        body |= {"number": "918045670001", "e164": "+918045670001"}
    if status == "failed":
        body["lastError"] = "carrier could not allocate the number"
    if status == "kyc_rejected":
        body["compliance"] = {
            "id": "c1", "status": "rejected", "alias": "acme", "endUser": {}, "documents": [],
            "attempts": 1, "history": [], "rejectionReason": "address proof is unreadable",
        }
    if status == "released":
        body["releaseReason"] = "non_payment"
    body |= extra
    return Rental.model_validate(body)


class TimelineApp(App):
    def __init__(self, rental: Rental | None, connection: str | None = None) -> None:
        super().__init__()
        self._rental = rental
        self._connection = connection

    def compose(self) -> ComposeResult:
        timeline = Timeline(self._rental, now=lambda: NOW)
        timeline.connection = self._connection
        yield timeline


def text_of(rental: Rental, connection: str | None = None) -> str:
    widget = Timeline(rental, now=lambda: NOW)
    widget.connection = connection
    return widget.render().plain


def test_relative_times():
    assert relative_time(NOW, NOW) == "just now"
    assert relative_time(NOW - timedelta(seconds=40), NOW) == "40 s ago"
    assert relative_time(NOW - timedelta(minutes=3, seconds=59), NOW) == "3 min ago"
    assert relative_time(NOW - timedelta(hours=5), NOW) == "5 h ago"
    assert relative_time(NOW + timedelta(minutes=2), NOW) == "in 2 min"


def test_fresh_rental_shows_done_active_pending_with_relative_and_absolute_times():
    text = text_of(make_rental("kyc_submitted"))
    lines = text.splitlines()
    assert "kyc_submitted — KYC documents with the carrier" in lines[0]
    assert "✔ First month's rent deducted" in text
    assert "12 min ago · 2026-03-02 09:18:00 UTC" in text
    assert "₹1,180.00 taken from the wallet" in text
    assert "● Verification" in text and "in progress" in text
    assert "○ Number purchase" in text and "○ Number active" in text


def test_active_rental_shows_its_number_and_every_step_done():
    text = text_of(make_rental("active"))
    assert text.startswith("+918045670001  active")
    assert text.count("✔") == 5


def test_rejected_kyc_shows_the_rejection_reason_under_the_failed_step():
    lines = text_of(make_rental("kyc_rejected")).splitlines()
    failed = next(i for i, line in enumerate(lines) if "✖ Verification" in line)
    assert lines[failed + 1].strip() == "address proof is unreadable"


def test_failed_purchase_shows_last_error():
    text = text_of(make_rental("failed"))
    assert "✖ Number purchase" in text
    assert "carrier could not allocate the number" in text


def test_unknown_status_and_step_state_are_shown_as_they_are():
    text = text_of(make_rental("escrow_hold", states={"purchase": "queued"}))
    assert "escrow_hold" in text.splitlines()[0]
    assert "? Number purchase (queued)" in text


def test_connection_line_shows_while_offline():
    text = text_of(make_rental("kyc_submitted"), connection="offline — retrying in 8 s")
    assert text.splitlines()[1] == "offline — retrying in 8 s"


SNAPSHOT_STATES = ["funding", "kyc_submitted", "purchasing", "active", "kyc_rejected", "failed", "released"]


@pytest.mark.parametrize("status", SNAPSHOT_STATES)
def test_snapshot_timeline_states(snap_compare, status):
    assert snap_compare(TimelineApp(make_rental(status)), terminal_size=(120, 36))


def test_snapshot_timeline_offline_and_unknown(snap_compare):
    app = TimelineApp(make_rental("escrow_hold", states={"purchase": "queued"}), "offline — retrying in 8 s")
    assert snap_compare(app, terminal_size=(120, 36))


def test_a_server_clock_running_ahead_does_not_put_steps_in_the_future():
    rental = make_rental("kyc_submitted")
    widget = Timeline(rental, now=lambda: NOW - timedelta(minutes=30))
    text = widget.render().plain
    assert "in " not in text.replace("in progress", "")
    assert "just now · 2026-03-02 09:18:00 UTC" in text
