"""Textual-free client for the Voice Agent Platform API."""

import sys

# httpx imports its own command-line tool whenever click is installed (uvicorn brings it in): click,
# pygments and rich's syntax and progress modules, ~70 ms of every console start-up for a tool this
# program never runs. An empty entry makes that optional import fail at once, as httpx allows for.
if "httpx" not in sys.modules:
    sys.modules.setdefault("httpx._main", None)  # type: ignore[arg-type]  # None: import fails, as documented

from vap_console.api import errors, models
from vap_console.api.auth import mask_key
from vap_console.api.client import VapClient
from vap_console.api.idempotency import new_idempotency_key
from vap_console.api.rental import (
    RentalApplication,
    RentalDocument,
    RentalValidationError,
    check_document_file,
    check_document_file_async,
    detect_file_type,
)

__all__ = [
    "RentalApplication",
    "RentalDocument",
    "RentalValidationError",
    "VapClient",
    "check_document_file",
    "check_document_file_async",
    "detect_file_type",
    "errors",
    "mask_key",
    "models",
    "new_idempotency_key",
]
