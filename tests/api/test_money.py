"""Money: exact amounts, shown the way the wallet's currency is written."""

from __future__ import annotations

from decimal import Decimal

import pytest

from vap_console.api.money import decimal_to_nanos, format_nanos, format_usd, nanos_to_decimal


def test_nanos_to_decimal_is_exact():
    assert nanos_to_decimal(123_456_500_000_000) == Decimal("123456.5")
    assert nanos_to_decimal(1) == Decimal("0.000000001")
    # Far beyond float precision, still exact.
    assert nanos_to_decimal(9_007_199_254_740_993_123) == Decimal("9007199254.740993123")
    assert decimal_to_nanos(nanos_to_decimal(9_007_199_254_740_993_123)) == 9_007_199_254_740_993_123


def test_nanos_must_be_integers():
    with pytest.raises(TypeError):
        nanos_to_decimal(1.5)  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        decimal_to_nanos("0.0000000001")


@pytest.mark.parametrize(("nanos", "currency", "shown"), [
    (123_456_500_000_000, "INR", "₹1,23,456.50"),
    (12_345_678_900_000_000, "INR", "₹1,23,45,678.90"),
    (999_000_000_000, "INR", "₹999.00"),
    (1_000_000_000_000, "INR", "₹1,000.00"),
    (0, "INR", "₹0.00"),
    (450_000_000, "inr", "₹0.45"),
    (4_500_000, "INR", "₹0.0045"),  # a per-second rate must not read as zero
    (1_234_500_000_000, "USD", "$1,234.50"),
    (1_234_567_500_000_000, "USD", "$1,234,567.50"),
    (1_234_500_000_000, "EUR", "EUR 1,234.50"),
    (-1_234_500_000_000, "INR", "-₹1,234.50"),
])
def test_format_nanos(nanos, currency, shown):
    assert format_nanos(nanos, currency) == shown


def test_missing_amounts_show_a_dash():
    assert format_nanos(None, "INR") == "—"
    assert format_usd(None) == "—"


@pytest.mark.parametrize(("value", "shown"), [
    ("1234.5", "$1,234.50"),
    ("2", "$2.00"),
    ("0.0085", "$0.0085"),
    ("1000000", "$1,000,000.00"),
    ("not a number", "not a number"),
])
def test_format_usd(value, shown):
    assert format_usd(value) == shown
