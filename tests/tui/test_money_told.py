"""Money is told truthfully: a rejected or failed rental says whether its first charge came back
(amount and when) and what to do next; the list tells "not bought yet" from "stopped"."""

from __future__ import annotations

from datetime import timedelta

from tests.tui.test_timeline import NOW, make_rental
from vap_console.tui.screens.rental import fields_text
from vap_console.tui.widgets.timeline import Timeline

CHARGE = 1_180_000_000_000  # ₹1,180.00 in nanos


def shown(rental) -> str:
    return " ".join(Timeline(rental, now=lambda: NOW).render().plain.split())


def test_a_rejected_rental_shows_its_refund_with_when_and_the_next_step() -> None:
    refunded_at = NOW - timedelta(minutes=4)
    rental = make_rental(
        "kyc_rejected", prepaidNanos=CHARGE,
        events=[{"type": "compliance.rejected", "at": refunded_at.isoformat()},
                {"type": "rental.refunded", "at": refunded_at.isoformat(), "amountNanos": CHARGE,
                 "currency": "INR"}],
    )
    text = shown(rental)
    assert "↩ ₹1,180.00 refunded to the wallet 4 min ago · 2026-03-02 09:26:00 UTC" in text
    assert "Next: fix what the reason above names" in text
    assert "₹1,180.00 — ₹1,180.00 refunded 2026-03-02 09:26 UTC" in fields_text(rental)


def test_a_failed_rental_without_a_reported_refund_says_so_rather_than_assume_it() -> None:
    rental = make_rental("failed", prepaidNanos=CHARGE, lastError="the carrier could not allocate it")
    text = shown(rental)
    assert "No refund of the ₹1,180.00 taken up front is reported yet" in text
    assert "Next: this number could not be bought" in text
    assert "no refund reported yet" in fields_text(rental)


def test_a_rental_on_its_way_says_nothing_of_refunds() -> None:
    text = shown(make_rental("kyc_submitted", prepaidNanos=CHARGE))
    assert "refund" not in text and "Next:" not in text
