"""Helpers for the sandbox's own tests: an httpx client per key and KYC uploads."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest

from vap_console.api.models import ErrorBody

PDF = b"%PDF-1.4\n% sandbox test document\n"
PNG = b"\x89PNG\r\n\x1a\n" + b"\x00" * 32
JPEG = b"\xff\xd8\xff\xe0" + b"\x00" * 32

DOCUMENTS = [
    {"documentTypeId": "business_registration", "dataFields": {"gstin": "27AAACS1234F1Z5"}},
    {"documentTypeId": "address_proof", "dataFields": {}},
    {"documentTypeId": "signatory_id", "dataFields": {"pan": "ABCPS1234K"}},
]


def auth(key: str = "sk_sandbox_agent") -> dict[str, str]:
    return {"Authorization": f"Bearer {key}"}


def rental_form(
    number: str,
    *,
    files: list[tuple[str, bytes]] | None = None,
    documents: list[dict[str, Any]] | None = None,
    **payload: Any,
) -> dict[str, Any]:
    """keyword arguments for httpx's post(): multipart with data + one file per document."""
    body = {
        "requestedNumber": number,
        "endUser": {"name": "Kulkarni Traders LLP", "email": "ops@kulkarni.example", "city": "Pune"},
        "documents": DOCUMENTS if documents is None else documents,
        **payload,
    }
    if files is None:
        files = [("gst.pdf", PDF), ("bill.png", PNG), ("pan.jpg", JPEG)]
    return {"data": {"data": json.dumps(body)}, "files": [("files", f) for f in files]}




@pytest.fixture
async def client(sandbox_transport: httpx.ASGITransport) -> AsyncIterator[httpx.AsyncClient]:
    async with httpx.AsyncClient(
        transport=sandbox_transport, base_url="http://sandbox", headers=auth()
    ) as c:
        yield c



def error_of(response: httpx.Response) -> tuple[int, str]:
    """(status, code) of an error answer, after checking it has the spec's error body (2.9)."""
    body = ErrorBody.model_validate(response.json())
    assert body.error, body
    assert (body.details is not None) == (body.code == "invalid_request"), body
    assert (body.limit is not None) == (body.code in ("rate_limited", "concurrency_limit_exceeded")), body
    return response.status_code, body.code


def locs(response: httpx.Response) -> set[str]:
    return {d["loc"] for d in response.json()["details"]}
