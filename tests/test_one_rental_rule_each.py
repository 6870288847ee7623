"""One rule, one place, for a rental application (issue 28, point 4): an end user's field, a
document's data field and a document's file size, each just inside (accepted) and just outside
(refused), through the client's checks, `vap numbers rent`, the sandbox, its OpenAPI document and
the rental wizard's fields (tests/tui/test_wizard_one_rule.py). The numbers are
``vap_console.api.limits``'s.

(The ten-document limit is not walked: the sandbox asks for three document types, one file each, so
no application of ten can be inside every other rule.)
"""

from __future__ import annotations

import asyncio
import copy
import json
from pathlib import Path
from typing import Any

import httpx
import jsonschema
import pytest

from tests.e2e.documents import make_kyc_set
from tests.scripting.conftest import Vap
from vap_console.api import limits
from vap_console.api.rental import RentalApplication
from vap_console.api.rental_rules import application_problems
from vap_console.sandbox import inventory
from vap_console.sandbox.app import create_app
from vap_console.sandbox.openapi import build_document

KEY = "sk_sandbox_agent"
TEXT = limits.RENTAL_TEXT.high
BYTES = limits.DOCUMENT_BYTES.high
FILES = ("incorporation.pdf", "electricity-bill.pdf", "pan-card.png")

APPLICATION: dict[str, Any] = {
    "endUser": {"name": "Sharma Dental Clinic Private Limited", "email": "accounts@sharmadental.example",
                "city": "Pune", "country": "IN"},
    "documents": [
        {"documentTypeId": "business_registration", "dataFields": {"gstin": "27AAACS1234F1ZS"}},
        {"documentTypeId": "address_proof", "dataFields": {}},
        {"documentTypeId": "signatory_id", "dataFields": {"pan": "ABCPS1234K", "signatory_name": "Anjali"}},
    ],
}


def application(edit: str, n: int) -> dict[str, Any]:
    app = copy.deepcopy(APPLICATION)
    app["requestedNumber"] = inventory.search(number_type=None, pattern=None, city=None, exclude=set())[0].e164
    if edit == "endUser.name":
        app["endUser"]["name"] = ("Sharma Dental " + "x" * n)[:n]
    elif edit == "endUser.city":
        app["endUser"]["city"] = "P" * n
    elif edit == "signatory_name":
        app["documents"][2]["dataFields"]["signatory_name"] = "A" * n
    return app


# (what, the wire field a refusal names, the edit; n just inside, just outside)
TEXT_CASES = [("endUser.name", "endUser.name"), ("endUser.city", "endUser.city"),
              ("signatory_name", "documents")]
CASES = [(what, field, n, n == TEXT) for what, field in TEXT_CASES for n in (TEXT, TEXT + 1)]


def files_in(folder: Path, first_size: int | None = None) -> list[Path]:
    make_kyc_set(folder)
    paths = [folder / name for name in FILES]
    if first_size is not None:  # the first PDF padded (or cut) to exactly this many bytes
        head = paths[0].read_bytes()
        paths[0].write_bytes((head + b"%" + b" " * first_size)[:first_size])
    return paths


def client_refuses(app: dict[str, Any], files: list[Path]) -> list[str]:
    parsed = RentalApplication.model_validate(app)
    for document, path in zip(parsed.documents, files, strict=True):
        document.path = path
    return [f for f, _ in application_problems(parsed) + parsed.problems()]


def sandbox_says(app: dict[str, Any], files: list[Path]) -> httpx.Response:
    async def go() -> httpx.Response:
        async with httpx.AsyncClient(transport=httpx.ASGITransport(app=create_app()),
                                     base_url="http://sandbox") as c:
            parts = [("files", (p.name, p.read_bytes(), "application/pdf" if p.suffix == ".pdf" else "image/png"))
                     for p in files]
            return await c.post("/v1/phone-numbers", data={"data": json.dumps(app)}, files=parts,
                                headers={"Authorization": f"Bearer {KEY}", "Idempotency-Key": "walk-1"})

    return asyncio.run(go())


@pytest.fixture(scope="module")
def openapi() -> dict[str, Any]:
    return build_document()


def schema_valid(document: dict[str, Any], schema: str, value: Any) -> bool:
    return jsonschema.Draft202012Validator(
        {"$ref": f"#/components/schemas/{schema}", "components": document["components"]}).is_valid(value)


@pytest.mark.parametrize(("what", "field", "n", "inside"), CASES, ids=lambda v: str(v))
def test_a_text_rule_of_a_rental_is_one_rule_everywhere(what: str, field: str, n: int, inside: bool,
                                                        openapi, tmp_path: Path, capsys) -> None:
    app = application(what, n)
    files = files_in(tmp_path / "kyc")
    refused = client_refuses(app, files)
    assert (refused == []) is inside, refused
    assert inside or any(f.startswith(field) for f in refused), refused
    answer = sandbox_says(app, files)
    assert answer.status_code == (201 if inside else 422), answer.text
    if what.startswith("endUser."):
        assert schema_valid(openapi, "EndUser", app["endUser"]) is inside, "the OpenAPI schema"
    else:
        assert schema_valid(openapi, "RentalDocument", app["documents"][2]) is inside, "the OpenAPI schema"
    vap = Vap(create_app(), tmp_path, capsys)
    data = tmp_path / "application.json"
    data.write_text(json.dumps(app), encoding="utf-8")
    result = vap("numbers", "rent", "--data", str(data), *map(str, files), "--yes")
    assert result.code == (0 if inside else 2), result.err
    assert inside or "POST /v1/phone-numbers" not in vap.sent


@pytest.mark.parametrize("size", [BYTES, BYTES + 1])
def test_a_document_file_size_is_one_rule_everywhere(size: int, openapi, tmp_path: Path, capsys) -> None:
    inside = size == BYTES
    app = application("", 0)
    files = files_in(tmp_path / "kyc", first_size=size)
    assert files[0].stat().st_size == size
    refused = client_refuses(app, files)
    assert (refused == []) is inside, refused
    answer = sandbox_says(app, files)
    assert answer.status_code == (201 if inside else 422), answer.text
    body = openapi["paths"]["/v1/phone-numbers"]["post"]["requestBody"]["content"]["multipart/form-data"]
    assert body["schema"]["properties"]["files"]["items"]["maxLength"] == BYTES
    vap = Vap(create_app(), tmp_path, capsys)
    data = tmp_path / "application.json"
    data.write_text(json.dumps(app), encoding="utf-8")
    result = vap("numbers", "rent", "--data", str(data), *map(str, files), "--yes")
    assert result.code == (0 if inside else 2), result.err
