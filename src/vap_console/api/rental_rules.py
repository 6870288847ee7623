"""The rules a rental application's fields are checked against, without any UI.

The console's rental wizard (each of its inputs runs these as Textual validators) and
`vap numbers rent --data APPLICATION.json FILE…` both use them, so an application file is refused
for the same reasons, in the same words, as the wizard's fields. A rule answers with the problem
as the person reads it ("GSTIN: 15 characters, not 14"), or None when the value is fine.

The file rules (PDF/JPEG/PNG by content, at most 5 MB, one file per document) live beside the
upload in ``api/rental.py``: ``RentalApplication.problems()``.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from vap_console.api.limits import RENTAL_TEXT
from vap_console.api.models import DocumentType, Rental
from vap_console.api.rental import RentalApplication

# (key on the wire, label, required): the end user's fields as the wizard asks for them.
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
END_USER_KEYS = tuple(key for key, _, _ in END_USER_FIELDS)

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


def substitution(rental: Rental) -> str | None:
    """``+9180… was taken meanwhile; +9180… was bought instead`` when the carrier bought another
    number than the one asked for, else None: the console's rental screen, `vap numbers show` and
    `vap numbers watch` all say it so."""
    got, asked = rental.e164 or rental.number, rental.requested_number
    if not got or not asked or same_number(asked, got) or same_number(asked, rental.number):
        return None

    def plus(number: str) -> str:
        return "+" + number.strip() if re.fullmatch(r"\d{6,15}", number.strip()) else number

    return f"{plus(asked)} was taken meanwhile; {plus(got)} was bought instead"


def number_problem(value: str) -> str | None:
    number = normalise_number(value)
    if not number:
        return "Number: required — pick one from the search or type it"
    if not _NUMBER_RE.match(number):
        return "Number: bare digits or E.164 (+ then 4 to 15 digits)"
    return None


def required_problem(label: str, value: str) -> str | None:
    return f"{label}: required" if not value.strip() else None


def length_problem(label: str, value: str) -> str | None:
    """Each end-user field and data field value: at most RENTAL_TEXT characters, as sent (stripped)."""
    problem = RENTAL_TEXT.problem(len(value.strip()))
    return f"{label}: {problem}" if problem else None


def email_problem(value: str) -> str | None:
    if value.strip() and not _EMAIL_RE.match(value.strip()):
        return "Email: must look like name@example.com"
    return None


def country_problem(value: str) -> str | None:
    """ISO 3166 alpha-2, as the search and requirements take it."""
    if not _COUNTRY_RE.match(value.strip()):
        return "Country: two letters (ISO 3166), for example IN"
    return None


def digits_problem(label: str, value: str) -> str | None:
    """The search pattern: the digits a number contains, nothing else."""
    if value.strip() and not value.strip().isdigit():
        return f"{label}: digits only (0-9), for example 4567"
    return None


def end_user_problems(values: dict[str, str]) -> list[tuple[str, str]]:
    """The end user's fields (wire keys) against the wizard's rules, as (key, problem)."""
    found: list[tuple[str, str]] = []
    for key, label, required in END_USER_FIELDS:
        value = values.get(key) or ""
        problem = required_problem(label, value) if required else None
        if problem is None:
            problem = length_problem(label, value)
        if problem is None and key == "email":
            problem = email_problem(value)
        if problem is not None:
            found.append((key, problem))
    return found


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


@dataclass(frozen=True)
class FieldFormat:
    """A document data field's rule where one is known: its key's legal format, else the length
    its description gives ("15-character GST identification number")."""

    label: str
    length: int | None = None
    pattern: re.Pattern[str] | None = None
    hint: str = ""
    check: Callable[[str], str | None] | None = None

    def problem(self, value: str) -> str | None:
        text = value.strip().upper()
        if not text:
            return None  # the required rule says so when it is required
        if self.length is not None and len(text) != self.length:
            return f"{self.label}: {self.length} characters, not {len(text)}"
        if self.pattern is not None and not self.pattern.match(text):
            return f"{self.label}: {self.hint}"
        problem = self.check(text) if self.check is not None else None
        if problem:
            return f"{self.label}: {problem}"
        return None


def field_format(key: str, label: str, description: str | None) -> FieldFormat | None:
    known = KNOWN_FORMATS.get(key.lower())
    found = _LENGTH_IN_TEXT.search(description or "")
    length = int(found.group(1)) if found else None
    if known is None and length is None:
        return None
    pattern, hint = known if known is not None else (None, "")
    return FieldFormat(label, length=length, pattern=pattern, hint=hint, check=CHECKS.get(key.lower()))


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


def data_field_problems(doc_type: DocumentType | None, fields: dict[str, str]) -> list[tuple[str, str]]:
    """One document's data fields against the rules its type gives, as (key, problem).

    With its type known (the server lists it): each field it asks for, required or not, with its
    format. Without (a document type the server does not describe): the legal formats of the keys
    given, as for a field of that key.
    """
    found: list[tuple[str, str]] = []
    if doc_type is None:
        for key, value in fields.items():
            # Only a known key has a rule here, and those are acronyms (PAN, GSTIN).
            rule = field_format(key, key.upper(), None)
            problem = length_problem(key, value)
            if problem is None and rule is not None:
                problem = rule.problem(value)
            if problem is not None:
                found.append((key, problem))
        return found
    for data_field in doc_type.data_fields:
        value = fields.get(data_field.key) or ""
        problem = required_problem(data_field.label, value) if data_field.required else None
        if problem is None:
            problem = length_problem(data_field.label, value)
        if problem is None:
            rule = field_format(data_field.key, data_field.label, data_field.description)
            problem = rule.problem(value) if rule is not None else None
        if problem is not None:
            found.append((data_field.key, problem))
    return found


def application_problems(application: RentalApplication,
                         document_types: Sequence[DocumentType] | None = None) -> list[tuple[str, str]]:
    """Every rule the wizard's fields apply, for an application that did not come through the
    wizard: (wire field, problem). ``document_types`` as the server's requirements list them
    (None: unknown, only the legal formats of the keys given are checked). The file rules come
    from ``RentalApplication.problems()``, which runs after these."""
    found: list[tuple[str, str]] = []
    problem = number_problem(application.requested_number)
    if problem is not None:
        found.append(("requestedNumber", problem))
    if not application.documents:
        return found
    end_user = application.end_user.model_dump() if application.end_user is not None else {}
    found += [(f"endUser.{key}", problem) for key, problem in end_user_problems(end_user)]
    types = {t.id: t for t in document_types or ()}
    # The wizard offers one document per type the server lists, each required: no other type, none left out.
    listed = bool(types)
    missing = [t.label for t in types.values()
               if t.id not in {d.document_type_id for d in application.documents}]
    if missing:
        found.append(("documents", f"Documents: the server also asks for {', '.join(missing)}"))
    for index, document in enumerate(application.documents):
        doc_type = types.get(document.document_type_id)
        if listed and doc_type is None:
            known = ", ".join(types) or "none"
            found.append((f"documents[{index}].documentTypeId",
                          f"Document type: {document.document_type_id!r} is not one the server asks for "
                          f"(it asks for: {known})"))
            continue
        found += [(f"documents[{index}].dataFields.{key}", problem)
                  for key, problem in data_field_problems(doc_type, document.data_fields)]
    return found


def human_size(size: int) -> str:
    if size < 1024:
        return f"{size} B"
    if size < 1024 * 1024:
        return f"{size / 1024:.1f} KB"
    return f"{size / (1024 * 1024):.2f} MB"
