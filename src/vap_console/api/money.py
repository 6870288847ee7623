"""Money as the API gives it: wallet amounts in nanos (billionths), USD rates as decimal strings.

Amounts are exact Decimals, never floats. Formatting shows at least two decimals and keeps any
further non-zero digits, because per-minute rates are often fractions of a cent (₹0.0045 must not
read as ₹0.00).
"""

from __future__ import annotations

from decimal import Decimal, InvalidOperation

NANOS_PER_UNIT = 1_000_000_000
MISSING = "—"

SYMBOLS = {"INR": "₹", "USD": "$"}


def nanos_to_decimal(nanos: int) -> Decimal:
    """Exact: 123_456_500_000_000 → Decimal('123456.500000000')."""
    if isinstance(nanos, bool) or not isinstance(nanos, int):
        raise TypeError(f"nanos must be an integer, got {type(nanos).__name__}")
    return Decimal(nanos).scaleb(-9)


def decimal_to_nanos(amount: Decimal | str) -> int:
    """The inverse, refusing amounts finer than a nano rather than rounding them away."""
    value = Decimal(amount) * NANOS_PER_UNIT
    if value != value.to_integral_value():
        raise ValueError(f"{amount} has more than 9 decimal places")
    return int(value)


def _plain(amount: Decimal) -> tuple[str, str, str]:
    """(sign, integer digits, fraction digits) with 2 to 9 fraction digits, trailing zeros cut."""
    sign = "-" if amount < 0 else ""
    text = format(abs(amount), "f")
    whole, _, fraction = text.partition(".")
    fraction = fraction.rstrip("0").ljust(2, "0")
    return sign, whole.lstrip("0") or "0", fraction


def _group_western(digits: str) -> str:
    return f"{int(digits):,}"


def _group_indian(digits: str) -> str:
    # Lakh/crore grouping: the last three digits, then pairs: 12345678 → 1,23,45,678.
    if len(digits) <= 3:
        return digits
    head, tail = digits[:-3], digits[-3:]
    pairs: list[str] = []
    while len(head) > 2:
        pairs.insert(0, head[-2:])
        head = head[:-2]
    if head:
        pairs.insert(0, head)
    return ",".join(pairs + [tail])


def format_amount(amount: Decimal | None, currency: str | None) -> str:
    """₹1,23,456.50 for INR, $1,234.50 for USD, "EUR 1,234.50" for any other code; None → —."""
    if amount is None:
        return MISSING
    code = (currency or "").strip().upper()
    sign, whole, fraction = _plain(amount)
    grouped = _group_indian(whole) if code == "INR" else _group_western(whole)
    number = f"{grouped}.{fraction}"
    if code in SYMBOLS:
        return f"{sign}{SYMBOLS[code]}{number}"
    if code:
        return f"{sign}{code} {number}"
    return f"{sign}{number}"


def format_nanos(nanos: int | None, currency: str | None) -> str:
    """A wallet amount in nanos, formatted in the wallet's currency; None → —."""
    if nanos is None:
        return MISSING
    return format_amount(nanos_to_decimal(nanos), currency)


def format_usd(value: str | None) -> str:
    """A USD decimal string from the API ("1234.5") as "$1,234.50"; None → —.

    A string that is not a number is shown as it came rather than hidden.
    """
    if value is None:
        return MISSING
    try:
        amount = Decimal(value.strip())
    except (InvalidOperation, AttributeError):
        return str(value)
    if not amount.is_finite():
        return str(value)
    return format_amount(amount, "USD")
