"""What a second rental need not retype: the end user of an earlier rental of this account (the
server's ``compliance.endUser``) or the last application typed in this session, and the numbers
the account already holds (refused at the number step, not after the whole wizard).

Textual-free: the wizard shows these; the Numbers screen hands it the rentals it lists and the
session's memory, which outlives one wizard.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime

from vap_console.api.models import Rental, RentalStatus
from vap_console.literal import clean
from vap_console.tui.format import e164

from .rules import END_USER_FIELDS, normalise_number

END_USER_KEYS = tuple(key for key, _, _ in END_USER_FIELDS)

# A rental in one of these holds no number: it was never bought, or it was given back.
ENDED = frozenset({RentalStatus.KYC_REJECTED, RentalStatus.FAILED, RentalStatus.RELEASED})

MAX_CHOICES = 8


@dataclass
class TypedApplication:
    """What the person typed in a wizard: end-user fields, and per document type its file path and
    data fields (files cannot come from the server: it keeps no path)."""

    end_user: dict[str, str]
    documents: dict[str, tuple[str, dict[str, str]]] = field(default_factory=dict)


@dataclass
class SessionMemory:
    """The last application typed in this session (sent or not), for the next wizard."""

    last: TypedApplication | None = None

    def remember(self, typed: TypedApplication) -> None:
        if any(typed.end_user.values()) or typed.documents:
            self.last = typed


@dataclass(frozen=True)
class EndUserChoice:
    label: str
    values: dict[str, str]


def _end_user_of(rental: Rental) -> dict[str, str]:
    compliance = rental.compliance
    raw = compliance.end_user if compliance is not None else {}
    # Server data: only strings are taken, and shown literally (no control bytes in a field).
    return {key: clean(raw[key], multiline=False).strip() for key in END_USER_KEYS
            if isinstance(raw.get(key), str) and raw[key].strip()}


def _number_of(rental: Rental) -> str:
    return e164(rental.e164 or rental.number or rental.requested_number) or "a number"


def end_user_choices(rentals: Iterable[Rental], memory: SessionMemory | None) -> list[EndUserChoice]:
    """Where end-user details can come from, the freshest first, each set of details once."""
    choices: list[EndUserChoice] = []
    seen: set[tuple[tuple[str, str], ...]] = set()

    def add(label: str, values: dict[str, str]) -> None:
        identity = tuple(sorted(values.items()))
        if values.get("name") and identity not in seen and len(choices) < MAX_CHOICES:
            seen.add(identity)
            choices.append(EndUserChoice(label, values))

    if memory is not None and memory.last is not None:
        typed = {k: v.strip() for k, v in memory.last.end_user.items() if v.strip()}
        add(f"Typed earlier in this session: {typed.get('name', '')}", typed)

    def created(rental: Rental) -> datetime:
        moment = rental.created_at
        return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)

    for rental in sorted(rentals, key=created, reverse=True):
        values = _end_user_of(rental)
        add(f"Rental of {_number_of(rental)} ({rental.status}): {values.get('name', '')}", values)
    return choices


def held_numbers(rentals: Iterable[Rental]) -> dict[str, Rental]:
    """The account's numbers that are bought or on their way, by digits: renting one again fails."""
    held: dict[str, Rental] = {}
    for rental in rentals:
        if rental.status in ENDED:
            continue
        for number in (rental.e164, rental.number, rental.requested_number):
            if number:
                held.setdefault(normalise_number(number).lstrip("+"), rental)
    return held


def holder_of(number: str, held: Mapping[str, Rental]) -> Rental | None:
    digits = normalise_number(number).lstrip("+")
    return held.get(digits) if digits else None
