"""Numbers the sandbox can rent, their prices, and what renting them requires.

Only India is stocked (the wallet is in INR). Every city carries numbers ending 0002–0005 so
that the scenario numbers (see ``scenarios.py``) turn up in any search.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal
from typing import Any

NANOS = 10**9
CURRENCY = "INR"
COUNTRY = "IN"
OUTBOUND_UNIT_SECONDS = 30  # India's outbound billing pulse
# Fixed rate for the USD strings, so they never drift between runs.
INR_PER_USD = Decimal("84")


@dataclass(frozen=True)
class Price:
    monthly_rent_nanos: int
    setup_nanos: int
    voice_rate_nanos: int
    outbound_rate_nanos: int

    @property
    def first_charge_nanos(self) -> int:
        return self.monthly_rent_nanos + self.setup_nanos


PRICES = {
    "local": Price(1_000 * NANOS, 0, 500_000_000, 900_000_000),
    "mobile": Price(1_500 * NANOS, 250 * NANOS, 600_000_000, 1_100_000_000),
    "toll_free": Price(2_500 * NANOS, 500 * NANOS, 1_200_000_000, 1_500_000_000),
}


def usd(nanos: int, places: str = "0.01") -> str:
    return str((Decimal(nanos) / NANOS / INR_PER_USD).quantize(Decimal(places)))


@dataclass(frozen=True)
class Listing:
    number: str  # bare digits, country code first
    number_type: str
    region: str | None
    city: str | None

    @property
    def e164(self) -> str:
        return "+" + self.number

    @property
    def price(self) -> Price:
        return PRICES[self.number_type]

    def money_fields(self) -> dict[str, object]:
        p = self.price
        return {
            "monthlyRentalRateUsd": usd(p.monthly_rent_nanos),
            "setupRateUsd": usd(p.setup_nanos),
            "voiceRateUsd": usd(p.voice_rate_nanos, "0.0001"),
            "outboundRateUsd": usd(p.outbound_rate_nanos, "0.0001"),
            "monthlyRentNanos": p.monthly_rent_nanos,
            "setupNanos": p.setup_nanos,
            "voiceRateNanos": p.voice_rate_nanos,
            "outboundRateNanos": p.outbound_rate_nanos,
            "outboundUnitSeconds": OUTBOUND_UNIT_SECONDS,
            "currency": CURRENCY,
        }

    def to_wire(self) -> dict[str, object]:
        p = self.price
        return {
            "number": self.number,
            "e164": self.e164,
            "numberType": self.number_type,
            "countryIso": COUNTRY,
            "region": self.region,
            "city": self.city,
            "monthlyRentalRateUsd": usd(p.monthly_rent_nanos),
            "setupRateUsd": usd(p.setup_nanos),
            "monthlyRentNanos": p.monthly_rent_nanos,
            "setupNanos": p.setup_nanos,
            "currency": CURRENCY,
        }


# (city, region, STD code): local numbers are +91 <STD code> <rest>, ten digits after 91.
CITIES = (
    ("Mumbai", "Maharashtra", "22"),
    ("Pune", "Maharashtra", "20"),
    ("Delhi", "Delhi", "11"),
    ("Bengaluru", "Karnataka", "80"),
    ("Chennai", "Tamil Nadu", "44"),
    ("Hyderabad", "Telangana", "40"),
    ("Kolkata", "West Bengal", "33"),
    ("Ahmedabad", "Gujarat", "79"),
)
# Scenario endings first, then ordinary ones.
_ENDINGS = ("0002", "0003", "0004", "0005", "1010", "2345", "4455", "6120", "7788", "9021")


def _build() -> tuple[Listing, ...]:
    listings: list[Listing] = []
    for i, (city, region, std) in enumerate(CITIES):
        for j, ending in enumerate(_ENDINGS):
            middle = f"{6 + (i + j) % 3}{(i * 7 + j * 3) % 10}{j % 10}{i % 10}"
            digits = std + middle + ending
            listings.append(Listing("91" + digits, "local", region, city))
    for j, ending in enumerate(_ENDINGS):
        listings.append(Listing(f"9198{j % 10}{(j * 7) % 10}{(j * 3) % 10}{j % 10}" + ending, "mobile", None, None))
        listings.append(Listing(f"9118002{j % 10}{(j * 3) % 10}" + ending, "toll_free", None, None))
    return tuple(listings)


INVENTORY: tuple[Listing, ...] = _build()
_BY_NUMBER = {item.number: item for item in INVENTORY}
STD_CITIES = {std: (city, region) for city, region, std in CITIES}


def normalise(number: str) -> str | None:
    """Bare digits with country code from bare digits or E.164 (spaces and dashes allowed)."""
    raw = number.strip().replace(" ", "").replace("-", "")
    digits = raw[1:] if raw.startswith("+") else raw
    if not digits.isascii() or not digits.isdigit():
        return None
    if len(digits) == 10 and digits[0] != "0":
        digits = "91" + digits
    if not digits.startswith("91"):
        return None
    if len(digits) != 12 and not (len(digits) == 13 and digits.startswith("911800")):
        return None
    return digits


def lookup(number: str) -> Listing:
    """The listing for a normalised number; a number typed outside the inventory is still rentable
    (the console may not have search), as a local or mobile number by its leading digits."""
    if number in _BY_NUMBER:
        return _BY_NUMBER[number]
    rest = number[2:]
    if rest.startswith("1800"):
        return Listing(number, "toll_free", None, None)
    if rest[0] in "6789":
        return Listing(number, "mobile", None, None)
    city, region = STD_CITIES.get(rest[:2], (None, None))
    return Listing(number, "local", region, city)


def search(
    *, number_type: str | None, pattern: str | None, city: str | None, exclude: set[str]
) -> list[Listing]:
    pattern_digits = "".join(ch for ch in (pattern or "") if ch.isdigit())
    found = []
    for item in INVENTORY:
        if item.number in exclude:
            continue
        if number_type and item.number_type != number_type:
            continue
        if city and (item.city or "").casefold() != city.strip().casefold():
            continue
        if pattern_digits and pattern_digits not in item.number:
            continue
        found.append(item)
    return found


# --- requirements ---

# JSON as the API sends it (GET /v1/phone-numbers/requirements)
DOCUMENT_TYPES: tuple[dict[str, Any], ...] = (
    {
        "id": "business_registration",
        "label": "Business registration certificate",
        "description": "GST registration or certificate of incorporation of the renting business.",
        "dataFields": [
            {"key": "gstin", "label": "GSTIN", "required": True,
             "description": "15-character GST identification number"},
        ],
    },
    {
        "id": "address_proof",
        "label": "Proof of business address",
        "description": "Utility bill or rent agreement not older than three months.",
        "dataFields": [],
    },
    {
        "id": "signatory_id",
        "label": "Authorised signatory's ID",
        "description": "PAN card of the person signing for the business.",
        "dataFields": [
            {"key": "pan", "label": "PAN", "required": True, "description": "10-character PAN"},
            {"key": "signatory_name", "label": "Signatory name", "required": False, "description": None},
        ],
    },
)
DOCUMENT_TYPE_IDS = tuple(d["id"] for d in DOCUMENT_TYPES)
NUMBER_TYPES = tuple(PRICES)
