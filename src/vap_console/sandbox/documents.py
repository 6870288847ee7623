"""KYC document checks: the type by content (never by name or declared type), and the size."""

from __future__ import annotations

from vap_console.api.limits import DOCUMENT_BYTES

MAX_BYTES = DOCUMENT_BYTES.high
SIGNATURES = (
    (b"%PDF-", "application/pdf"),
    (b"\xff\xd8\xff", "image/jpeg"),
    (b"\x89PNG\r\n\x1a\n", "image/png"),
)


def sniff(head: bytes) -> str | None:
    """The document's media type from its first bytes, or None when it is not pdf, jpeg or png."""
    return next((kind for magic, kind in SIGNATURES if head.startswith(magic)), None)
