"""The wizard's field rules and where a server error lands: no widgets here, so they test alone.

Each rule is a ``textual.validation.Validator`` so an Input checks it as the user types, and the
wizard runs the same validators again before it moves on or sends anything.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from textual.validation import ValidationResult, Validator

from vap_console.api.errors import FieldError

STEPS = ("number", "requirements", "enduser", "documents", "review", "submit")
STEP_TITLES = {
    "number": "Number",
    "requirements": "Requirements",
    "enduser": "End user",
    "documents": "Documents",
    "review": "Review",
    "submit": "Submit",
}

END_USER_FIELDS = (
    ("name", "Legal name", True),
    ("email", "Email", False),
    ("address_line1", "Address line 1", False),
    ("address_line2", "Address line 2", False),
    ("city", "City", False),
    ("state", "State", False),
    ("postal_code", "Postal code", False),
    ("country", "Country", False),
    ("registration_number", "Registration number", False),
)

_NUMBER_PUNCTUATION = re.compile(r"[\s().-]")
_NUMBER_RE = re.compile(r"^\+?[0-9]{4,15}$")
_EMAIL_RE = re.compile(r"^[^@\s]+@[^@\s]+\.[^@\s.]{2,}$")
_COUNTRY_RE = re.compile(r"^[A-Za-z]{2}$")


def normalise_number(typed: str) -> str:
    """``+91 80 4567-0001`` → ``+918045670001``: spaces, dots, dashes and brackets go."""
    return _NUMBER_PUNCTUATION.sub("", typed.strip())


def same_number(a: str | None, b: str | None) -> bool:
    """Bare digits and E.164 of one number are the same number."""
    if not a or not b:
        return False
    return normalise_number(a).lstrip("+") == normalise_number(b).lstrip("+")


class PhoneNumber(Validator):
    def validate(self, value: str) -> ValidationResult:
        number = normalise_number(value)
        if not number:
            return self.failure("Number: required — pick one from the search or type it")
        if not _NUMBER_RE.match(number):
            return self.failure("Number: bare digits or E.164 (+ then 4 to 15 digits)")
        return self.success()


class NotHeld(Validator):
    """A number the account holds already (bought or on its way): renting it again fails on the
    server, and only after the whole wizard. ``status_of`` gives its rental's status, or None."""

    def __init__(self, status_of: Callable[[str], str | None]) -> None:
        super().__init__()
        self.status_of = status_of

    def validate(self, value: str) -> ValidationResult:
        status = self.status_of(value)
        if status is None:
            return self.success()
        shown = "+" + normalise_number(value).lstrip("+")
        return self.failure(f"Number: this account already holds {shown} (its rental is {status})")


class Required(Validator):
    def __init__(self, label: str) -> None:
        super().__init__()
        self.label = label

    def validate(self, value: str) -> ValidationResult:
        if not value.strip():
            return self.failure(f"{self.label}: required")
        return self.success()


class Email(Validator):
    def validate(self, value: str) -> ValidationResult:
        if value.strip() and not _EMAIL_RE.match(value.strip()):
            return self.failure("Email: must look like name@example.com")
        return self.success()


class CountryCode(Validator):
    """ISO 3166 alpha-2, as the search and requirements take it."""

    def validate(self, value: str) -> ValidationResult:
        if not _COUNTRY_RE.match(value.strip()):
            return self.failure("Country: two letters (ISO 3166), for example IN")
        return self.success()


class Digits(Validator):
    """The search pattern: the digits a number contains, nothing else."""

    def __init__(self, label: str) -> None:
        super().__init__()
        self.label = label

    def validate(self, value: str) -> ValidationResult:
        if value.strip() and not value.strip().isdigit():
            return self.failure(f"{self.label}: digits only (0-9), for example 4567")
        return self.success()


# Identifiers whose format is fixed by law, checked when a document asks for them by this key.
# Typed in any case; sent in capitals (data_field_value).
KNOWN_FORMATS: dict[str, tuple[re.Pattern[str], str]] = {
    "pan": (re.compile(r"^[A-Z]{5}[0-9]{4}[A-Z]$"), "5 letters, 4 digits, 1 letter, for example ABCDE1234F"),
    "gstin": (re.compile(r"^[0-9]{2}[A-Z]{5}[0-9]{4}[A-Z][1-9A-Z]Z[0-9A-Z]$"),
              "15 characters: 2-digit state code, the PAN, entity number, Z, check character, "
              "for example 29ABCDE1234F1ZW"),
}
_BASE36 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ"


def gstin_check_character(first14: str) -> str:
    """The 15th character of a GSTIN: a mod-36 checksum of the first 14, odd places weighted 1 and
    even places 2, each product's base-36 digits added (the GST Network's published scheme)."""
    total = 0
    for place, char in enumerate(first14):
        product = _BASE36.index(char) * (1 if place % 2 == 0 else 2)
        total += product // 36 + product % 36
    return _BASE36[(36 - total % 36) % 36]


# Beyond the pattern: what the identifier's own check says.
def _gstin_problem(text: str) -> str | None:
    expected = gstin_check_character(text[:14])
    if text[14] != expected:
        return f"the check character is {text[14]}, but for {text[:14]} it must be {expected}: a character is mistyped"
    return None


CHECKS = {"gstin": _gstin_problem}
_LENGTH_IN_TEXT = re.compile(r"\b(\d{1,3})-character")


class DataFieldRule(Validator):
    """A document data field's rule where one is known: its key's legal format, else the length
    its description gives ("15-character GST identification number")."""

    def __init__(self, label: str, *, length: int | None = None,
                 pattern: re.Pattern[str] | None = None, hint: str = "",
                 check: Callable[[str], str | None] | None = None) -> None:
        super().__init__()
        self.label = label
        self.length = length
        self.pattern = pattern
        self.hint = hint
        self.check = check

    def validate(self, value: str) -> ValidationResult:
        text = value.strip().upper()
        if not text:
            return self.success()  # Required says so when it is required
        if self.length is not None and len(text) != self.length:
            return self.failure(f"{self.label}: {self.length} characters, not {len(text)}")
        if self.pattern is not None and not self.pattern.match(text):
            return self.failure(f"{self.label}: {self.hint}")
        problem = self.check(text) if self.check is not None else None
        if problem:
            return self.failure(f"{self.label}: {problem}")
        return self.success()


def data_field_rules(key: str, label: str, description: str | None) -> list[Validator]:
    known = KNOWN_FORMATS.get(key.lower())
    found = _LENGTH_IN_TEXT.search(description or "")
    length = int(found.group(1)) if found else None
    if known is None and length is None:
        return []
    pattern, hint = known if known is not None else (None, "")
    return [DataFieldRule(label, length=length, pattern=pattern, hint=hint, check=CHECKS.get(key.lower()))]


def data_field_value(key: str, value: str) -> str:
    value = value.strip()
    return value.upper() if key.lower() in KNOWN_FORMATS else value


def parse_data_fields(text: str) -> dict[str, str]:
    """``gstin=29AB…, pan=ABCDE1234F`` → a dict; raises ValueError naming the broken part."""
    fields: dict[str, str] = {}
    for part in text.split(","):
        if not part.strip():
            continue
        key, sep, value = part.partition("=")
        if not sep or not key.strip() or not value.strip():
            raise ValueError(f"Data fields: {part.strip()!r} is not key=value")
        fields[key.strip()] = value.strip()
    return fields


class DataFieldsText(Validator):
    def validate(self, value: str) -> ValidationResult:
        try:
            parse_data_fields(value)
        except ValueError as exc:
            return self.failure(str(exc))
        return self.success()


@dataclass(frozen=True)
class Landing:
    """Where a failing field lives in the wizard: its step and the id of its input (if any)."""

    step: str
    input_id: str | None
    message: str


_END_USER_KEYS = {key for key, _, _ in END_USER_FIELDS}
# Servers write list indices either way: documents[1].dataFields.pan or documents.1.dataFields.pan.
_DOC_RE = re.compile(r"^(?:documents|files)(?:\[(\d+)\]|\.(\d+))(?:\.dataFields\.([^.\[]+))?")
_DOC_IN_TEXT = re.compile(r"\b(?:documents|files)(?:\[(\d+)\]|\.(\d+))")


_PLAIN_KEY = re.compile(r"[A-Za-z0-9_]+")


def data_field_id(index: int, key: str) -> str:
    """The widget id of a document's data field. Keys come from the server: one that is not
    plain letters and digits (Textual ids allow no more) is spelled in hex."""
    return f"doc-{index}-field-{key if _PLAIN_KEY.fullmatch(key) else 'x' + key.encode().hex()}"


def landing_for(error: FieldError) -> Landing:
    """Map a 422 detail (``body.endUser.email``, ``body.documents[1].dataFields.pan``…) to a step."""
    field = error.field
    message = error.message
    if field.startswith("requestedNumber") or field.startswith("searchFilters"):
        return Landing("number", "number", message)
    if field.startswith("endUser"):
        key = field.removeprefix("endUser").lstrip(".")
        return Landing("enduser", f"eu-{key}" if key in _END_USER_KEYS else "eu-name", message)
    match = _DOC_RE.match(field)
    if match:
        index = int(match.group(1) or match.group(2))
        if match.group(3):
            return Landing("documents", data_field_id(index, match.group(3)), message)
        return Landing("documents", f"doc-{index}-path", message)
    if field.startswith(("documents", "files")):
        return Landing("documents", None, message)
    return Landing("review", None, message)


def documents_named(text: str) -> list[int]:
    """Indices of documents a message names (``documents.1 (address_proof): …``)."""
    return sorted({int(m.group(1) or m.group(2)) for m in _DOC_IN_TEXT.finditer(text)})


def first_step(landings: list[Landing]) -> str:
    return min((landing.step for landing in landings), key=STEPS.index, default="review")


def human_size(size: int) -> str:
    if size < 1024:
        return f"{size} B"
    if size < 1024 * 1024:
        return f"{size / 1024:.1f} KB"
    return f"{size / (1024 * 1024):.2f} MB"
