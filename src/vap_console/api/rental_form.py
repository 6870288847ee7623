"""The rental wizard's application as data, without any UI: what its steps hold becomes a
``RentalApplication``, and a send that did not answer with a rental is decided here (send again
with the same key, wait, or look for the rental first).

Money is at stake, so the rules are written once: one Idempotency-Key for as long as the
application is unchanged (a retry after a 502, a 429 or a lost answer can never rent or charge
twice), and an answer that was lost means the rental may exist: it is looked for before anything
is sent again.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path
from typing import Literal

from vap_console.api import errors, idempotency
from vap_console.api.models import EndUser, Rental, SearchFilters
from vap_console.api.money import format_nanos
from vap_console.api.rental import (
    RentalApplication,
    RentalDocument,
    RentalValidationError,
    check_document_file,
    detect_file_type,
)
from vap_console.api.rental_rules import END_USER_FIELDS, normalise_number, same_number

# How far back a rental may have been created and still be "the one we just sent" when an
# answer was lost: covers a slow upload plus clock skew between us and the server.
OUTCOME_WINDOW = timedelta(minutes=10)


@dataclass(frozen=True)
class DocumentValues:
    """One document as the Documents step holds it: its type, its data fields, its path as typed."""

    type_id: str
    data_fields: dict[str, str]
    path_text: str


def build_application(number: str, filters: SearchFilters | None, *, verified_kyc: bool,
                      end_user: dict[str, str], documents: Sequence[DocumentValues]) -> RentalApplication:
    """The application the steps describe; with verified KYC only the number (the plain JSON form)."""
    number = normalise_number(number)
    if verified_kyc:
        return RentalApplication(requested_number=number, search_filters=filters)
    values = {key: (end_user.get(key) or "").strip() for key, _, _ in END_USER_FIELDS}
    person = EndUser(**{k: v for k, v in values.items() if v or k == "name"})
    sent = [
        RentalDocument(
            document_type_id=document.type_id,
            data_fields=document.data_fields,
            path=Path(document.path_text).expanduser() if document.path_text else None,
        )
        for document in documents
    ]
    return RentalApplication(requested_number=number, search_filters=filters, end_user=person,
                             documents=sent)


def charge_text(rent: int | None, setup: int | None, currency: str | None) -> str:
    """What renting charges up front, as the review and `vap numbers rent` say it."""
    if rent is None and setup is None:
        return "the first month's rent (the amount is not known in advance on this server)"
    total = (rent or 0) + (setup or 0)
    parts = [f"first month's rent {format_nanos(rent, currency)}"]
    if setup is not None:
        parts.append(f"setup fee {format_nanos(setup, currency)}")
    return f"{format_nanos(total, currency)} ({' + '.join(parts)})"


def found_with(filters: SearchFilters | None) -> str:
    """``found with pattern 1010 in Pune``; empty when the number was not searched for."""
    if filters is None or not (filters.pattern or filters.city):
        return ""
    parts = ["found"]
    if filters.pattern:
        parts.append(f"with the digits {filters.pattern}")
    if filters.city:
        parts.append(f"in {filters.city}")
    return " ".join(parts)


@dataclass(frozen=True)
class FileCheck:
    """What checking a document's file found: its problems, or its name, size and type."""

    text: str  # the path as typed
    problems: tuple[str, ...] = ()
    name: str = ""
    size: int = 0
    kind: str | None = None


def check_file(text: str) -> FileCheck:
    """Stat the file and read its first bytes: run it in a worker thread, never on a UI loop."""
    path = Path(text).expanduser()
    problems = check_document_file(path)
    if problems:
        return FileCheck(text, tuple(problems))
    try:
        return FileCheck(text, (), path.name, path.stat().st_size, detect_file_type(path))
    except OSError as exc:
        return FileCheck(text, (f"cannot read {path.name}: {exc.strerror or exc}",))


# After a send failed: look for the rental first (it may exist), wait out a 429, or show the error.
NextMove = Literal["check", "wait", "show"]


def next_move(error: errors.ApiError | RentalValidationError) -> NextMove:
    if isinstance(error, errors.ApiError) and error.maybe_applied:
        return "check"  # no answer, or one that could not be read: the rental may exist and be charged
    if isinstance(error, errors.RateLimited):
        return "wait"  # not processed: the same key again after Retry-After
    return "show"


def lost_reason(error: errors.ApiError) -> str:
    """Why the outcome of a send is unknown, as the wizard says it."""
    if isinstance(error, errors.OutcomeUnknown):
        return "No answer came back"
    return f"The answer could not be read ({error})"


def unexpected_failure(error: Exception) -> errors.OutcomeUnknown:
    """Whatever broke while sending, the request may have gone out: a lost answer, checked
    before anything is sent again (never left on "Sending…")."""
    return errors.OutcomeUnknown(
        f"POST /v1/phone-numbers ended unexpectedly ({type(error).__name__}: {error})")


def sent_rental(candidates: Iterable[Rental], number: str, since: datetime) -> Rental | None:
    """The rental a lost send created, if any: the newest for this number since ``since``."""
    found = [
        r for r in candidates
        if (same_number(r.requested_number, number) or same_number(r.number, number))
        and r.created_at >= since
    ]
    return max(found, key=lambda r: r.created_at) if found else None


class Submission:
    """One logical submission across its retries: the application last sent, when, and its key."""

    def __init__(self, now: Callable[[], datetime]) -> None:
        self._now = now
        self._keys = idempotency.Submission()
        self.application: RentalApplication | None = None
        self.sent_at: datetime | None = None
        self.lost = "No answer came back"  # why the outcome of the last send is unknown

    @property
    def key(self) -> str | None:
        return self._keys.key

    def key_for(self, application: RentalApplication, sizes: dict[str, int | None]) -> str:
        """The same key while the application is unchanged; a new one once anything changed.
        ``sizes``: each file's size as last checked, so a file replaced by another changes it."""
        files = [(str(d.path), sizes.get(str(d.path))) for d in application.documents]
        return self._keys.key_for(json.dumps([application.payload(), files], sort_keys=True,
                                             default=str))

    def start(self, application: RentalApplication, sizes: dict[str, int | None]) -> str:
        """Record a send of ``application`` now; the key to send it with."""
        self.application = application
        self.sent_at = self._now()
        return self.key_for(application, sizes)

    def since(self) -> datetime:
        """The oldest a rental may be and still be the one this submission created."""
        return (self.sent_at or self._now()) - OUTCOME_WINDOW


@dataclass(frozen=True)
class Advice:
    """What the wizard says about a failed send, and where: a step (None: the first step its
    fields are on), the text, whether Retry is offered (the same application, the same key)."""

    step: str | None
    text: str
    retry: bool = False
    fields: tuple[errors.FieldError, ...] = ()  # to mark, each on its own step and input
    blocked: bool = False  # the account cannot rent: the way on stays closed
    unavailable: bool = False  # this deployment cannot rent at all (503 telephony_not_configured)


def advice_for(error: errors.ApiError | RentalValidationError, *, reason: str | None = None) -> Advice:
    """``reason``: why the requirements say the account is not eligible, when they say it."""
    if isinstance(error, RentalValidationError):
        fields = tuple(errors.FieldError(f"body.{f}", m) for f, m in error.problems)
        return Advice(None, "Fix the marked fields: " + str(error), fields=fields)
    if isinstance(error, errors.InvalidRequest) and error.details:
        return Advice(None, str(error), fields=tuple(error.details))
    if isinstance(error, errors.DocumentInvalid):
        return Advice("documents", str(error), fields=tuple(error.details))
    if isinstance(error, errors.AccountIneligible):
        return Advice("requirements", str(error) + (f" Reason: {reason}" if reason else ""), blocked=True)
    if isinstance(error, errors.NotConfigured):
        return Advice("review", "", unavailable=True)
    if isinstance(error, errors.AutopayRequired):
        # The server's message already says what to do; the client's own hint would say it again.
        text = error.message.strip().rstrip(".") or error.default_message()
        where = f"{error.status_label}, " if error.status_label else ""
        advice = "" if "dashboard" in text.lower() else " Set up an auto-pay mandate in the dashboard."
        return Advice("review", f"{text} ({where}{error.code}).{advice} Then press Retry: everything "
                      "you typed is kept.", retry=True)
    if isinstance(error, (errors.CarrierError, errors.ServerError, errors.ConnectionFailed)):
        return Advice("review", f"{error} Retry sends the same application with the same Idempotency-Key, "
                      "so it cannot rent twice.", retry=True)
    return Advice("review", str(error), retry=True)
