"""How values are shown on screen: timestamps, money, masked secrets, booleans."""

from __future__ import annotations

import re
from datetime import UTC, datetime

from rich.text import Text

from vap_console.api.money import format_nanos
from vap_console.masking import visible_tail

NONE = "—"


def in_utc(value: datetime) -> datetime | None:
    """The moment in UTC; None when UTC cannot hold it (9999-12-31T23:59:59-23:59 is valid ISO
    8601, yet past year 9999 in UTC)."""
    if value.tzinfo is None:
        return value
    try:
        return value.astimezone(UTC)
    except (OverflowError, ValueError):
        return None


def _formatted(value: datetime | None, pattern: str) -> str:
    if value is None:
        return NONE
    moment = in_utc(value)
    # Out of UTC's range: shown as the server sent it rather than not at all.
    return moment.strftime(pattern) if moment is not None else value.isoformat()


def when(value: datetime | None) -> str:
    return _formatted(value, "%Y-%m-%d %H:%M UTC")


def day(value: datetime | None) -> str:
    return _formatted(value, "%Y-%m-%d")


def when_seconds(value: datetime) -> str:
    return _formatted(value if value.tzinfo is not None else value.replace(tzinfo=UTC),
                      "%Y-%m-%d %H:%M:%S UTC")


def mask(secret: str | None) -> str:
    """Only the last four characters of a secret ever reach the screen (the rule:
    vap_console.masking)."""
    if not secret:
        return NONE
    return "••••" + visible_tail(secret)


def yes_no(value: bool | None) -> str:
    if value is None:
        return NONE
    return "yes" if value else "no"


def text(value: object) -> str:
    if value is None or value == "":
        return NONE
    return str(value)


def e164(number: str | None) -> str | None:
    """One way to write a phone number: bare digits (as a rental request may carry) get their +."""
    if number and re.fullmatch(r"\d{6,15}", number.strip()):
        return "+" + number.strip()
    return number


def money(nanos: int | None, currency: str | None) -> str:
    """Nanos in the wallet's currency, e.g. ₹1,00,000.00 for INR."""
    return format_nanos(nanos, currency)


STATUS_STYLES = {
    "active": "bold green",
    "kyc_submitted": "yellow",
    "kyc_accepted": "yellow",
    "purchasing": "yellow",
    "funding": "yellow",
    "awaiting_funds": "yellow",
    "kyc_rejected": "bold red",
    "failed": "bold red",
    "past_due": "red",
    "releasing": "dim",
    "released": "dim",
}


def status(value: str) -> Text:
    # An unknown status is shown as it came, unstyled.
    return Text(value, style=STATUS_STYLES.get(value, ""))
