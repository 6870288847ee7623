"""`vap numbers rent` and `vap numbers watch`: the wizard's upload from a script, money confirmed."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.scripting.conftest import Vap
from vap_console.tui.screens.wizard.rules import gstin_check_character

GSTIN = "29ABCDE1234F1Z"
GSTIN += gstin_check_character(GSTIN)
PDF = b"%PDF-1.4\n% test document\n"
PNG = b"\x89PNG\r\n\x1a\n" + b"\x00" * 32


def application(number: str = "+918045670101") -> dict:
    return {
        "requestedNumber": number,
        "endUser": {"name": "Sharma Dental Clinic", "email": "ops@sharma.example", "city": "Pune"},
        "documents": [
            {"documentTypeId": "business_registration", "dataFields": {"gstin": GSTIN}},
            {"documentTypeId": "address_proof", "dataFields": {}},
            {"documentTypeId": "signatory_id", "dataFields": {"pan": "ABCDE1234F"}},
        ],
    }


@pytest.fixture
def files(tmp_path: Path) -> list[str]:
    paths = []
    for name, data in (("gst.pdf", PDF), ("bill.png", PNG), ("pan.pdf", PDF)):
        (tmp_path / name).write_bytes(data)
        paths.append(str(tmp_path / name))
    return paths


def write(tmp_path: Path, data: dict) -> str:
    path = tmp_path / "application.json"
    path.write_text(json.dumps(data))
    return str(path)


def test_rent_with_documents_sends_one_multipart_post_and_prints_the_rental(
    vap: Vap, tmp_path: Path, files: list[str]
) -> None:
    result = vap("numbers", "rent", "--data", write(tmp_path, application()), *files, "--yes", "--json")
    assert result.code == 0, result.err
    rental = result.json()
    assert "₹" in result.err and "first month's rent" in result.err
    assert vap.sent.count("POST /v1/phone-numbers") == 1
    assert vap.api("GET", f"/v1/phone-numbers/{rental['id']}")["id"] == rental["id"]
    documents = rental["compliance"]["documents"]
    assert [d["documentTypeId"] for d in documents] == ["business_registration", "address_proof", "signatory_id"]


def test_rent_plain_json_form_for_verified_kyc(vap: Vap, tmp_path: Path) -> None:
    result = vap("numbers", "rent", "--data", write(tmp_path, {"requestedNumber": "918045670102"}), "--yes",
                 key="sk_sandbox_verified")
    assert result.code == 0, result.err
    rentals = vap.api("GET", "/v1/phone-numbers", key="sk_sandbox_verified")["items"]
    assert result.out.strip() in [r["id"] for r in rentals]


def test_rent_without_terminal_or_yes_sends_nothing(vap: Vap, tmp_path: Path, files: list[str]) -> None:
    result = vap("numbers", "rent", "--data", write(tmp_path, application()), *files)
    assert result.code == 2 and "--yes" in result.err and vap.sent == []


@pytest.mark.parametrize("problem", ["text", "big", "missing", "count"])
def test_bad_documents_are_refused_before_any_request(
    vap: Vap, tmp_path: Path, files: list[str], problem: str
) -> None:
    if problem == "text":
        Path(files[1]).write_text("not an image")
    elif problem == "big":
        Path(files[0]).write_bytes(PDF + b"\0" * (5 * 1024 * 1024))
    elif problem == "missing":
        files[2] = str(tmp_path / "nowhere.pdf")
    else:
        files = files[:2]
    result = vap("numbers", "rent", "--data", write(tmp_path, application()), *files, "--yes")
    assert result.code == 2, result.err
    assert "nothing was sent" in result.err and vap.sent == []


def test_a_bad_application_names_the_field(vap: Vap, tmp_path: Path, files: list[str]) -> None:
    data = application("12")
    result = vap("numbers", "rent", "--data", write(tmp_path, data), *files, "--yes")
    assert result.code == 2 and "requestedNumber" in result.err and vap.sent == []


def test_the_servers_refusal_exits_1_once(vap: Vap, tmp_path: Path, files: list[str]) -> None:
    result = vap("numbers", "rent", "--data", write(tmp_path, application("+918045670005")), *files, "--yes")
    assert result.code == 1 and "telephony_sandbox_error" in result.err
    assert vap.sent.count("POST /v1/phone-numbers") == 1


def test_watch_settles_through_the_rental_watch_code(vap: Vap) -> None:
    failed = next(r for r in vap.api("GET", "/v1/phone-numbers")["items"] if r["status"] == "failed")
    result = vap("numbers", "watch", failed["id"])
    assert result.code == 1 and "failed" in result.out
    assert vap("numbers", "watch", "no-such-rental").code == 2
