"""The rental application's field rules without any UI (api/rental_rules.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from vap_console.api.models import DataField, DocumentType, EndUser
from vap_console.api.rental import RentalApplication, RentalDocument
from vap_console.api.rental_rules import (
    application_problems,
    country_problem,
    data_field_problems,
    data_field_value,
    digits_problem,
    email_problem,
    end_user_problems,
    field_format,
    gstin_check_character,
    human_size,
    number_problem,
    parse_data_fields,
    same_number,
)

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
    assert found["documents"] == "Documents: the server also asks for Business registration"
    assert found["documents[0].documentTypeId"] == (
        "Document type: 'utility_bill' is not one the server asks for (it asks for: business_registration)")


def test_every_document_is_checked_after_one_of_a_type_not_asked_for() -> None:
    both = RentalApplication(requested_number="918045670001", end_user=EndUser(name="Acme"), documents=[
        RentalDocument(document_type_id="utility_bill"),
        RentalDocument(document_type_id="business_registration", data_fields={"gstin": "27AAPFU0939F1ZW"}),
    ])
    assert [key for key, _ in application_problems(both, [REGISTRATION])] == [
        "documents[0].documentTypeId", "documents[1].dataFields.gstin"]


def test_the_number_rule_is_the_wizards() -> None:
    bad = RentalApplication(requested_number="12")
    assert application_problems(bad) == [("requestedNumber", "Number: bare digits or E.164 (+ then 4 to 15 digits)")]


# --- each rule as the wizard's fields and `vap numbers rent --data` show it ---

NUMBER_RULE = "Number: bare digits or E.164 (+ then 4 to 15 digits)"


@pytest.mark.parametrize(("typed", "problem"), [
    ("+91 80 4567-0001", None), ("(080) 4567.0001", None), ("1234", None), ("+123456789012345", None),
    ("", "Number: required — pick one from the search or type it"), ("  ", "Number: required — pick one from the search or type it"),
    ("123", NUMBER_RULE), ("1234567890123456", NUMBER_RULE), ("1234abc", NUMBER_RULE), ("abc1234", NUMBER_RULE),
    ("++1234", NUMBER_RULE), ("12+34", NUMBER_RULE),
])
def test_the_number_rule(typed, problem) -> None:
    assert number_problem(typed) == problem


def test_one_number_typed_two_ways_is_the_same_number() -> None:
    assert same_number("+91 80 4567-0001", "918045670001")
    assert not same_number("+91 80 4567-0001", "918045670002")
    assert not same_number("918045670002", "+91 80 4567-0001")
    assert not same_number(None, "918045670001") and not same_number("918045670001", "")


@pytest.mark.parametrize(("typed", "ok"), [
    ("IN", True), ("in", True), (" us ", True), ("IND", False), ("I", False), ("I1", False), ("", False),
])
def test_the_country_rule(typed, ok) -> None:
    assert country_problem(typed) == (None if ok else "Country: two letters (ISO 3166), for example IN")


@pytest.mark.parametrize(("typed", "ok"), [("4567", True), ("", True), (" 98 ", True), ("45a7", False), ("+91", False)])
def test_the_search_pattern_takes_digits_only(typed, ok) -> None:
    assert digits_problem("Pattern", typed) == (None if ok else "Pattern: digits only (0-9), for example 4567")


@pytest.mark.parametrize(("typed", "ok"), [
    ("ops@acme.example", True), ("", True), ("  ", True), ("ops@acme", False), ("ops@acme.c", False),
    ("o ps@acme.example", False), ("ops@@acme.example", False), ("@acme.example", False), ("ops@acme.example.", False),
])
def test_the_email_rule(typed, ok) -> None:
    assert email_problem(typed) == (None if ok else "Email: must look like name@example.com")


def test_the_end_users_legal_name_is_required_and_only_it() -> None:
    assert end_user_problems({"name": "  ", "email": "x"}) == [
        ("name", "Legal name: required"), ("email", "Email: must look like name@example.com")]
    assert end_user_problems({"name": "Acme"}) == []


PAN_HINT = "PAN: 5 letters, 4 digits, 1 letter, for example ABCDE1234F"


@pytest.mark.parametrize(("typed", "problem"), [
    ("ABCDE1234F", None), ("abcde1234f", None), (" ABCDE1234F ", None),
    ("ABCDE1234FX", PAN_HINT), ("XABCDE1234F", PAN_HINT), ("ABCD01234F", PAN_HINT), ("ABCDE12345", PAN_HINT),
])
def test_the_pan_rule(typed, problem) -> None:
    found = data_field_problems(None, {"pan": typed})
    assert found == ([] if problem is None else [("pan", problem)])


# Published sample GSTINs, valid by the GST Network's check (one of them ends in 0).
@pytest.mark.parametrize("gstin", ["27AAPFU0939F1ZV", "33AAPFU0939F3Z0"])
def test_a_valid_gstin_is_taken_and_every_other_check_character_refused(gstin) -> None:
    assert data_field_problems(REGISTRATION, {"gstin": gstin}) == []
    assert data_field_problems(None, {"gstin": gstin.lower()}) == []
    for other in "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ".replace(gstin[-1], ""):
        [(_key, problem)] = data_field_problems(None, {"gstin": gstin[:14] + other})
        assert problem == (f"GSTIN: the check character is {other}, but for {gstin[:14]} it must be "
                           f"{gstin[-1]}: a character is mistyped")


@pytest.mark.parametrize("typed", ["27AAPFU0939F1ZVX", "X27AAPFU0939F1ZV", "27AAPFU0939F0ZV", "27AAPFU0939F1YV"])
def test_a_gstin_off_the_pattern_is_refused_by_the_pattern(typed) -> None:
    [(_key, problem)] = data_field_problems(None, {"gstin": typed})
    assert problem.startswith("GSTIN: 15 characters: 2-digit state code")


def test_a_gstin_of_the_wrong_length_says_how_long_it_must_be() -> None:
    [(key, problem)] = data_field_problems(REGISTRATION, {"gstin": "27AAPFU0939F1Z"})
    assert (key, problem) == ("gstin", "GSTIN: 15 characters, not 14")


def test_a_length_in_the_description_is_a_rule_and_no_length_none() -> None:
    rule = field_format("cin", "CIN", "21-character corporate id")
    assert rule is not None and rule.problem("U" * 21) is None and rule.problem("U" * 22) == "CIN: 21 characters, not 22"
    assert rule.problem("   ") is None  # an empty optional field: the required rule speaks for it
    assert field_format("cin", "CIN", "a corporate id") is None
    assert field_format("ref", "Ref", "an 8-character code").length == 8
    assert field_format("ref", "Ref", "a 1234-character note") is None  # no length that long
    assert field_format("note", "Note", "a 300-character note").problem("n" * 300) is None


def test_identifiers_go_in_capitals_and_other_fields_as_typed() -> None:
    assert data_field_value("PAN", " abcde1234f ") == "ABCDE1234F"
    assert data_field_value("cin", " u123 ") == "u123"


def test_data_fields_typed_as_key_value_pairs() -> None:
    assert parse_data_fields("gstin=27AAPFU0939F1ZV, pan = ABCDE1234F ,") == {
        "gstin": "27AAPFU0939F1ZV", "pan": "ABCDE1234F"}
    assert parse_data_fields(" , ") == {}
    assert parse_data_fields("gstin=27AAPFU0939F1ZV,, pan=ABCDE1234F") == {
        "gstin": "27AAPFU0939F1ZV", "pan": "ABCDE1234F"}
    for broken in ("gstin", "=x", "gstin=", "a=1, pan"):
        with pytest.raises(ValueError, match="is not key=value"):
            parse_data_fields(broken)


@pytest.mark.parametrize(("size", "shown"), [
    (0, "0 B"), (1023, "1023 B"), (1024, "1.0 KB"), (1536, "1.5 KB"), (1024 * 1024 - 1, "1024.0 KB"),
    (1024 * 1024, "1.00 MB"), (1572864, "1.50 MB"), (5 * 1024 * 1024, "5.00 MB"),
    # Near the 5 MB limit the second decimal is what tells a file that fits from one that does not.
    (5_236_589, "4.99 MB"), (5_240_259, "5.00 MB"),
])
def test_file_sizes_as_the_wizard_shows_them(size, shown) -> None:
    assert human_size(size) == shown


def test_a_plain_rental_is_checked_only_for_its_number() -> None:
    plain = RentalApplication(requested_number="918045670001", end_user=EndUser(name=" "))
    assert application_problems(plain, [REGISTRATION]) == []


def _luhn_mod_36(first14: str) -> str:
    """The check character by the textbook Luhn mod N algorithm (N = 36, factors 1, 2, 1, … from
    the left, each product's quotient and remainder by N added), written apart from the code."""
    alphabet = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ"
    total = 0
    for place, char in enumerate(first14):
        quotient, remainder = divmod(alphabet.index(char) * (2 if place % 2 else 1), 36)
        total += quotient + remainder
    return alphabet[-total % 36]


def test_every_character_in_every_place_gets_the_luhn_mod_36_check_character() -> None:
    # e.g. an I (18) in a doubled place makes exactly 36: a slip in the carry shows only there.
    base = "27AAPFU0939F1Z"
    for place in range(14):
        for char in "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ":
            first14 = base[:place] + char + base[place + 1:]
            assert gstin_check_character(first14) == _luhn_mod_36(first14), first14
