"""`vap numbers rent` refuses what the wizard's fields refuse, in the wizard's words, before sending.

Each case is checked twice: the command's message names the field and gives the rule, and that
rule's words are the ones the wizard's own validator shows beside the field.
"""

from __future__ import annotations

import copy
from pathlib import Path

import pytest

from tests.scripting.conftest import Vap
from tests.scripting.test_rent import GSTIN, PDF, PNG, application, write
from vap_console.tui.screens.wizard.rules import Email, data_field_rules


@pytest.fixture
def files(tmp_path: Path) -> list[str]:
    paths = []
    for name, data in (("gst.pdf", PDF), ("bill.png", PNG), ("pan.pdf", PDF)):
        (tmp_path / name).write_bytes(data)
        paths.append(str(tmp_path / name))
    return paths


def edited(change) -> dict:
    data = copy.deepcopy(application())
    change(data)
    return data


def wizard_says(validator, value: str) -> str:
    return validator.validate(value).failure_descriptions[0]


BAD_GSTIN = GSTIN[:14] + ("A" if GSTIN[14] != "A" else "B")


@pytest.mark.parametrize(("change", "field", "rule"), [
    (lambda d: d["documents"][0]["dataFields"].update(gstin=BAD_GSTIN), "documents[0].dataFields.gstin",
     wizard_says(data_field_rules("gstin", "GSTIN", "15-character GST identification number")[0], BAD_GSTIN)),
    (lambda d: d["documents"][2]["dataFields"].update(pan="ABCDE12345"), "documents[2].dataFields.pan",
     wizard_says(data_field_rules("pan", "PAN", "10-character PAN")[0], "ABCDE12345")),
    (lambda d: d["endUser"].update(email="ops-at-sharma"), "endUser.email", wizard_says(Email(), "ops-at-sharma")),
    (lambda d: d["endUser"].update(name="  "), "endUser.name", "Legal name: required"),
], ids=["gstin-check-character", "pan-format", "email", "legal-name"])
def test_a_field_the_wizard_refuses_is_refused_before_any_request(
    vap: Vap, tmp_path: Path, files: list[str], change, field: str, rule: str
) -> None:
    result = vap("numbers", "rent", "--data", write(tmp_path, edited(change)), *files, "--yes")
    assert result.code == 2, result.err
    assert f"{field}: {rule}" in result.err
    assert "nothing was sent" in result.err and vap.sent == []


@pytest.mark.parametrize(("problem", "field", "rule"), [
    ("text", "documents[1].path", "is not a PDF, JPEG or PNG file (checked by its content)"),
    ("big", "documents[0].path", "the limit is 5 MB"),
])
def test_a_file_is_refused_naming_its_document_and_the_rule(
    vap: Vap, tmp_path: Path, files: list[str], problem: str, field: str, rule: str
) -> None:
    if problem == "text":
        Path(files[1]).write_bytes(b"just text, named .png")
    else:
        Path(files[0]).write_bytes(b"%PDF-1.4\n" + b"\0" * (5 * 1024 * 1024))
    result = vap("numbers", "rent", "--data", write(tmp_path, application()), *files, "--yes")
    assert result.code == 2 and vap.sent == []
    assert field in result.err and rule in result.err


def test_a_required_data_field_left_out_is_refused_before_the_application_is_sent(
    vap: Vap, tmp_path: Path, files: list[str]
) -> None:
    data = edited(lambda d: d["documents"][0]["dataFields"].clear())
    result = vap("numbers", "rent", "--data", write(tmp_path, data), *files, "--yes")
    assert result.code == 2, result.err
    assert "documents[0].dataFields.gstin: GSTIN: required" in result.err
    assert "POST /v1/phone-numbers" not in vap.sent  # only the requirements were read


def test_documents_must_be_the_ones_the_server_asks_for(vap: Vap, tmp_path: Path, files: list[str]) -> None:
    data = edited(lambda d: d["documents"][1].update(documentTypeId="utility_bill"))
    result = vap("numbers", "rent", "--data", write(tmp_path, data), *files, "--yes")
    assert result.code == 2, result.err
    assert "documents[1].documentTypeId" in result.err and "'utility_bill'" in result.err
    assert "also asks for" in result.err
    assert "POST /v1/phone-numbers" not in vap.sent


def test_identifiers_are_sent_in_capitals_as_the_wizard_sends_them(
    vap: Vap, tmp_path: Path, files: list[str]
) -> None:
    data = edited(lambda d: d["documents"][2]["dataFields"].update(pan="abcde1234f"))
    result = vap("numbers", "rent", "--data", write(tmp_path, data), *files, "--yes", "--json")
    assert result.code == 0, result.err
    documents = result.json()["compliance"]["documents"]
    assert documents[2]["dataFields"]["pan"] == "ABCDE1234F"
