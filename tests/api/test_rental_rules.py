"""The rental application's field rules without any UI (api/rental_rules.py)."""

from __future__ import annotations

from pathlib import Path

from vap_console.api.models import DataField, DocumentType, EndUser
from vap_console.api.rental import RentalApplication, RentalDocument
from vap_console.api.rental_rules import application_problems, data_field_problems, gstin_check_character

GSTIN = "29ABCDE1234F1Z" + gstin_check_character("29ABCDE1234F1Z")
REGISTRATION = DocumentType(id="business_registration", label="Business registration", data_fields=[
    DataField(key="gstin", label="GSTIN", description="15-character GST identification number"),
    DataField(key="cin", label="CIN", required=False, description="21-character corporate id"),
])


def application(fields: dict[str, str], *, email: str | None = None) -> RentalApplication:
    return RentalApplication(
        requested_number="+91 80 4567-0001",
        end_user=EndUser(name="Acme", email=email),
        documents=[RentalDocument(document_type_id="business_registration", data_fields=fields,
                                  path=Path("unused.pdf"))],
    )


def test_a_complete_application_breaks_no_field_rule() -> None:
    assert application_problems(application({"gstin": GSTIN}), [REGISTRATION]) == []


def test_the_document_types_rules_name_the_wire_field() -> None:
    found = application_problems(application({"cin": "U123"}, email="nobody"), [REGISTRATION])
    assert found == [
        ("endUser.email", "Email: must look like name@example.com"),
        ("documents[0].dataFields.gstin", "GSTIN: required"),
        ("documents[0].dataFields.cin", "CIN: 21 characters, not 4"),
    ]


def test_without_the_servers_types_only_legal_formats_are_checked() -> None:
    assert data_field_problems(None, {"gstin": GSTIN.lower(), "anything": "x"}) == []
    mistyped = GSTIN[:14] + ("0" if GSTIN[14] != "0" else "1")
    [(key, problem)] = data_field_problems(None, {"gstin": mistyped})
    assert key == "gstin" and problem.startswith("GSTIN: the check character is")


def test_a_document_type_not_asked_for_and_one_left_out_are_both_said() -> None:
    other = RentalApplication(requested_number="918045670001", end_user=EndUser(name="Acme"),
                              documents=[RentalDocument(document_type_id="utility_bill")])
    found = dict(application_problems(other, [REGISTRATION]))
    assert "Business registration" in found["documents"]
    assert "'utility_bill'" in found["documents[0].documentTypeId"]


def test_the_number_rule_is_the_wizards() -> None:
    bad = RentalApplication(requested_number="12")
    assert application_problems(bad) == [("requestedNumber", "Number: bare digits or E.164 (+ then 4 to 15 digits)")]
