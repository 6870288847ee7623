"""`vap numbers rent`: the application file read and checked locally, and what renting costs.

The checks are the wizard's and the client's own (``RentalApplication.problems``: number format,
legal name, one file per document, each file PDF/JPEG/PNG by its first bytes and at most 5 MiB),
run before any request, so bad input sends nothing and changes nothing.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import ValidationError

from vap_console.api.money import format_nanos
from vap_console.api.rental import RentalApplication
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


def _loc(error: dict[str, Any]) -> str:
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
    problems = application.problems()
    if problems:
        raise Failure("nothing was sent: " + "; ".join(f"{f}: {m}" for f, m in problems), EXIT_USAGE)
    return application


async def charge_text(client: VapClient) -> str:
    """What renting charges, as the wizard's review says it; the amount from the requirements."""
    from vap_console.api.errors import ApiError

    try:
        req = await client.rental_requirements("IN")
    except ApiError:
        req = None
    rent = req.monthly_rent_nanos if req else None
    setup = req.setup_nanos if req else None
    currency = req.currency if req else None
    if rent is None and setup is None:
        return "the first month's rent (the amount is not known in advance on this server)"
    parts = [f"first month's rent {format_nanos(rent, currency)}"]
    if setup is not None:
        parts.append(f"setup fee {format_nanos(setup, currency)}")
    return f"{format_nanos((rent or 0) + (setup or 0), currency)} ({' + '.join(parts)})"
