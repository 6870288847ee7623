"""Textual-free client for the Voice Agent Platform API.

Its names are found here (``from vap_console.api import VapClient``) but imported on first use
(PEP 562 ``__getattr__``): a script that lists variables loads the client and the variable's model,
not the rental upload, the speech rules or the agent socket, each a module of pydantic models or
rules built at import. ``errors``, ``models`` and the other submodules import as modules do.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from vap_console.api.found_on_use import find

if TYPE_CHECKING:
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

# Each name and the submodule it lives in (a submodule: its own name).
_HOMES = {
    "errors": "errors",
    "models": "models",
    "mask_key": "auth",
    "VapClient": "client",
    "new_idempotency_key": "idempotency",
    **dict.fromkeys(("RentalApplication", "RentalDocument", "RentalValidationError", "check_document_file",
                     "check_document_file_async", "detect_file_type"), "rental"),
}


def __getattr__(name: str) -> Any:
    return find(__name__, _HOMES, globals(), name)


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
