"""`vap numbers rent`: the application file read and checked locally, and what renting costs.

The checks are the wizard's own: its field rules (``api/rental_rules.py``: number format, legal
name, email, the legal formats of PAN and GSTIN with the GSTIN's check character) and the
client's (``RentalApplication.problems``: one file per document, each file PDF/JPEG/PNG by its
first bytes and at most 5 MiB), run before any request, so bad input sends nothing and changes
nothing. What only the server's requirements say (which documents, which of their fields are
required, lengths) is checked once they are read, still before the application is sent.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import ValidationError
from pydantic_core import ErrorDetails

from vap_console.api import rental_form
from vap_console.api.models import RentalRequirements
from vap_console.api.rental import RentalApplication
from vap_console.api.rental_rules import application_problems, data_field_value
from vap_console.scripting.base import EXIT_USAGE, Failure

if TYPE_CHECKING:
    from vap_console.api.client import VapClient


def read_json(path: str, what: str) -> Any:
    """A JSON file (or stdin for ``-``); Failure (exit 2) saying what is wrong with it."""
    try:
        text = sys.stdin.read() if path == "-" else Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise Failure(f"{what} {path}: cannot be read ({exc.__class__.__name__}: {exc}); nothing was sent",
                      EXIT_USAGE) from None
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise Failure(f"{what} {path}: not JSON (line {exc.lineno}, column {exc.colno}: {exc.msg}); "
                      "nothing was sent", EXIT_USAGE) from None


def _loc(error: ErrorDetails) -> str:
    parts = [f"[{p}]" if isinstance(p, int) else f".{p}" for p in error["loc"]]
    return "".join(parts).lstrip(".") or "application"


def load_application(path: str, files: list[Path]) -> RentalApplication:
    """The application with its files attached in document order; Failure naming every problem."""
    data = read_json(path, "application")
    if not isinstance(data, dict):
        raise Failure(f"application {path}: must be a JSON object; nothing was sent", EXIT_USAGE)
    documents = data.get("documents") or []
    if not isinstance(documents, list):
        raise Failure("application: documents must be a list; nothing was sent", EXIT_USAGE)
    if len(files) != len(documents):
        raise Failure(f"application lists {len(documents)} document(s) but {len(files)} file(s) were "
                      "given: one FILE per document, in the same order; nothing was sent", EXIT_USAGE)
    try:
        application = RentalApplication.model_validate(data)
    except ValidationError as exc:
        problems = "; ".join(f"{_loc(e)}: {e['msg']}" for e in exc.errors(include_input=False)[:5])
        raise Failure(f"application: {problems}; nothing was sent", EXIT_USAGE) from None
    for document, file in zip(application.documents, files, strict=True):
        document.path = file
        # As the wizard sends them: PAN and GSTIN in capitals, whatever case they were written in.
        document.data_fields = {k: data_field_value(k, v) for k, v in document.data_fields.items()}
    found = application_problems(application)
    named = {f for f, _ in found}
    # The client's own checks repeat the number and the legal name in its words: said once.
    found += [(f, m) for f, m in application.problems() if f not in named]
    refuse(found, "nothing was sent")
    return application


def refuse(problems: list[tuple[str, str]], said: str) -> None:
    """Failure (exit 2) naming each field and the rule it breaks; nothing when there is none."""
    if problems:
        raise Failure(f"{said}: " + "; ".join(f"{f}: {m}" for f, m in problems), EXIT_USAGE)


def check_against(application: RentalApplication, req: RentalRequirements | None) -> None:
    """The rules the server's requirements add (its document types, their required fields and
    lengths), as the wizard's Documents step applies them; Failure (exit 2) before the POST."""
    if req is None or req.verified_kyc or not application.documents:
        return
    refuse(application_problems(application, req.document_types), "the application was not sent")


async def requirements(client: VapClient) -> RentalRequirements | None:
    """The requirements, or None when the server cannot say (no extension, an error)."""
    from vap_console.api.errors import ApiError

    try:
        return await client.rental_requirements("IN")
    except ApiError:
        return None


def charge_text(req: RentalRequirements | None) -> str:
    """What renting charges, as the wizard's review says it; the amount from the requirements."""
    if req is None:
        return rental_form.charge_text(None, None, None)
    return rental_form.charge_text(req.monthly_rent_nanos, req.setup_nanos, req.currency)


def lost(number: str, key: str, error: Exception) -> str:
    """What to say when the rental went out and no usable answer came back: it may have been
    made and charged; how to check, and how to send it again without a second charge."""
    return (f"no usable answer came back to the rental of {number}: {error} The number may be "
            "rented and the first month charged: `vap numbers list` shows whether it is. Nothing "
            "was sent again. If it is not there, run this command again with --idempotency-key "
            f"{key}: a server that honours the key answers with the rental that try made and "
            "charges nothing more; one that does not rents and charges again")
