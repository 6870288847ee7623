"""Textual-free client for the Voice Agent Platform API."""

from vap_console.api import errors, models
from vap_console.api.client import VapClient, mask_key, new_idempotency_key
from vap_console.api.rental import (
    RentalApplication,
    RentalDocument,
    RentalValidationError,
    check_document_file,
    detect_file_type,
)

__all__ = [
    "RentalApplication",
    "RentalDocument",
    "RentalValidationError",
    "VapClient",
    "check_document_file",
    "detect_file_type",
    "errors",
    "mask_key",
    "models",
    "new_idempotency_key",
]
