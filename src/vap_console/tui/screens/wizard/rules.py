"""The wizard's field rules as Textual validators, and where a server error lands.

The rules themselves are Textual-free (``api/rental_rules.py``, shared with `vap numbers rent`);
each is wrapped here in a ``textual.validation.Validator`` so an Input checks it as the user types,
and the wizard runs the same validators again before it moves on or sends anything.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from textual.validation import ValidationResult, Validator

from vap_console.api.errors import FieldError
from vap_console.api.rental_rules import (  # noqa: F401 - the wizard's modules and tests import them here
    CHECKS,
    END_USER_FIELDS,
    KNOWN_FORMATS,
    FieldFormat,
    country_problem,
    data_field_value,
    digits_problem,
    email_problem,
    field_format,
    gstin_check_character,
    human_size,
    length_problem,
    normalise_number,
    number_problem,
    parse_data_fields,
    required_problem,
    same_number,
)

STEPS = ("number", "requirements", "enduser", "documents", "review", "submit")
STEP_TITLES = {
    "number": "Number",
    "requirements": "Requirements",
    "enduser": "End user",
    "documents": "Documents",
    "review": "Review",
    "submit": "Submit",
}


class _Rule(Validator):
    """A Textual-free rule (value → problem or None) as a validator."""

    def _answer(self, problem: str | None) -> ValidationResult:
        return self.failure(problem) if problem is not None else self.success()


class PhoneNumber(_Rule):
    def validate(self, value: str) -> ValidationResult:
        return self._answer(number_problem(value))


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


class Required(_Rule):
    def __init__(self, label: str) -> None:
        super().__init__()
        self.label = label

    def validate(self, value: str) -> ValidationResult:
        return self._answer(required_problem(self.label, value))


class TextLength(_Rule):
    """At most the length the server takes (api/limits.py RENTAL_TEXT)."""

    def __init__(self, label: str) -> None:
        super().__init__()
        self.label = label

    def validate(self, value: str) -> ValidationResult:
        return self._answer(length_problem(self.label, value))


class Email(_Rule):
    def validate(self, value: str) -> ValidationResult:
        return self._answer(email_problem(value))


class CountryCode(_Rule):
    """ISO 3166 alpha-2, as the search and requirements take it."""

    def validate(self, value: str) -> ValidationResult:
        return self._answer(country_problem(value))


class Digits(_Rule):
    """The search pattern: the digits a number contains, nothing else."""

    def __init__(self, label: str) -> None:
        super().__init__()
        self.label = label

    def validate(self, value: str) -> ValidationResult:
        return self._answer(digits_problem(self.label, value))


class DataFieldRule(_Rule):
    """A document data field's known format (``FieldFormat``) as a validator."""

    def __init__(self, rule: FieldFormat) -> None:
        super().__init__()
        self.rule = rule

    def validate(self, value: str) -> ValidationResult:
        return self._answer(self.rule.problem(value))


def data_field_rules(key: str, label: str, description: str | None) -> list[Validator]:
    rule = field_format(key, label, description)
    return [*([DataFieldRule(rule)] if rule is not None else []), TextLength(label)]


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
    if field.startswith(("requestedNumber", "searchFilters")):
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
