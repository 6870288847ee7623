"""Spec 2.1–2.3, 3, 4.1: renting a number, its lifecycle on the clock, the scenario numbers."""

from __future__ import annotations

import json

import httpx
import pytest

from vap_console.api.models import AvailableNumber, Page, Rental, RentalRequirements
from vap_console.sandbox.clock import VirtualClock
from vap_console.sandbox.keys import SANDBOX_KEYS

from .conftest import DOCUMENTS, PDF, auth, error_of, locs, rental_form

NUMBER = "+914082959021"  # Hyderabad, an ordinary number the seed does not hold


def states(rental: Rental) -> list[str]:
    return [step.state for step in rental.timeline]


def test_full_lifecycle_over_a_real_server(live_sandbox, sandbox_clock: VirtualClock) -> None:
    with httpx.Client(base_url=live_sandbox.base_url, headers=auth(), timeout=10) as c:
        free = Page[AvailableNumber].model_validate(c.get("/v1/phone-numbers/available", params={"city": "Pune"}).json())
        number = next(n for n in free.items if n.number[-4:] not in ("0002", "0003", "0004", "0005"))
        created = c.post("/v1/phone-numbers", **rental_form(number.e164))
        assert created.status_code == 201, created.text
        rental = Rental.model_validate(created.json())
        assert rental.status == "kyc_submitted"
        assert [s.key for s in rental.timeline] == ["prepaid", "submitted", "verification", "purchase", "active"]
        assert states(rental) == ["done", "done", "active", "pending", "pending"]
        assert rental.events == [] and rental.number is None and rental.rented_at is None
        assert rental.prepaid_nanos == rental.monthly_rent_nanos + rental.setup_nanos > 0
        assert rental.currency == "INR" and rental.outbound_unit_seconds == 30
        assert rental.monthly_rental_rate_usd and rental.compliance and rental.compliance.status == "submitted"
        seen = [rental.status]
        for _ in range(12):
            sandbox_clock.advance(2)
            rental = Rental.model_validate(c.get(f"/v1/phone-numbers/{rental.id}").json())
            if rental.status != seen[-1]:
                seen.append(rental.status)
        assert seen == ["kyc_submitted", "kyc_accepted", "purchasing", "active"]
        assert states(rental) == ["done"] * 5
        assert rental.number == number.number and rental.e164 == number.e164
        assert rental.rented_at and rental.next_renewal_at and rental.next_renewal_at > rental.rented_at
        assert rental.compliance and rental.compliance.status == "accepted" and rental.compliance.decided_at
        assert [h["status"] for h in rental.compliance.history] == ["submitted", "in_review", "accepted"]
        assert [e["type"] for e in rental.events][-1] == "rental.active"
        listed = c.get("/v1/phone-numbers").json()["items"]
        assert listed[0]["id"] == rental.id
        again = c.get("/v1/phone-numbers/available", params={"city": "Pune"}).json()["items"]
        assert number.number not in {n["number"] for n in again}


async def _rent(client: httpx.AsyncClient, number: str, key: str = "sk_sandbox_agent", **payload) -> Rental:
    response = await client.post("/v1/phone-numbers", headers=auth(key), **rental_form(number, **payload))
    assert response.status_code == 201, response.text
    return Rental.model_validate(response.json())


async def _after(client: httpx.AsyncClient, clock: VirtualClock, rental: Rental, seconds: float) -> Rental:
    clock.advance(seconds)
    return Rental.model_validate((await client.get(f"/v1/phone-numbers/{rental.id}")).json())


async def test_0002_kyc_rejected(client: httpx.AsyncClient, sandbox_clock: VirtualClock) -> None:
    rental = await _after(client, sandbox_clock, await _rent(client, "+912260000002"), 30)
    assert rental.status == "kyc_rejected"
    assert states(rental) == ["done", "done", "failed", "pending", "pending"]
    assert rental.compliance and rental.compliance.status == "rejected" and rental.compliance.rejection_reason
    assert rental.number is None


async def test_0003_purchase_fails(client: httpx.AsyncClient, sandbox_clock: VirtualClock) -> None:
    rental = await _after(client, sandbox_clock, await _rent(client, "+912260000003"), 30)
    assert rental.status == "failed"
    assert states(rental) == ["done", "done", "done", "failed", "pending"]
    assert rental.last_error and rental.number is None


async def test_0004_a_substitute_from_the_same_search_is_bought(client: httpx.AsyncClient, sandbox_clock: VirtualClock) -> None:
    rental = await _rent(client, "912260000004", searchFilters={"city": "Mumbai"})
    rental = await _after(client, sandbox_clock, rental, 30)
    assert rental.status == "active"
    assert rental.number and rental.number != "912260000004" and rental.city == "Mumbai"
    assert rental.requested_number == "912260000004"
    substituted = next(e for e in rental.events if e["type"] == "number.substituted")
    assert substituted["substitute"] == rental.number


async def test_0005_carrier_refuses_and_nothing_is_charged(client: httpx.AsyncClient, sandbox_app) -> None:
    before = len((await client.get("/v1/phone-numbers")).json()["items"])
    account = sandbox_app.state.sandbox.account(SANDBOX_KEYS["sk_sandbox_agent"])
    balance = account.balance()
    response = await client.post("/v1/phone-numbers", **rental_form("+912260000005"))
    assert error_of(response) == (502, "telephony_sandbox_error")
    assert len((await client.get("/v1/phone-numbers")).json()["items"]) == before
    assert account.balance() == balance


async def test_short_wallet_waits_in_funding_until_autopay_tops_up(client: httpx.AsyncClient, sandbox_clock: VirtualClock) -> None:
    rental = await _rent(client, NUMBER, key="sk_sandbox_short")
    assert rental.status == "funding" and rental.prepaid_nanos == 0
    assert states(rental) == ["active", "pending", "pending", "pending", "pending"]
    get = lambda: client.get(f"/v1/phone-numbers/{rental.id}", headers=auth("sk_sandbox_short"))  # noqa: E731 - one line, read where it is used
    sandbox_clock.advance(6)
    topped = Rental.model_validate((await get()).json())
    assert topped.status == "kyc_submitted" and topped.prepaid_nanos > 0
    assert states(topped) == ["done", "done", "active", "pending", "pending"]
    assert topped.events[0]["type"] == "wallet.topped_up"
    sandbox_clock.advance(20)
    assert Rental.model_validate((await get()).json()).status == "active"


async def test_verified_kyc_rents_with_plain_json(client: httpx.AsyncClient, sandbox_clock: VirtualClock) -> None:
    headers = auth("sk_sandbox_verified")
    req = RentalRequirements.model_validate((await client.get("/v1/phone-numbers/requirements", headers=headers)).json())
    assert req.verified_kyc is True and req.eligibility.eligible
    response = await client.post("/v1/phone-numbers", json={"requestedNumber": NUMBER}, headers=headers)
    assert response.status_code == 201, response.text
    rental = Rental.model_validate(response.json())
    assert states(rental) == ["done", "done", "active", "pending", "pending"]
    sandbox_clock.advance(20)
    done = Rental.model_validate((await client.get(f"/v1/phone-numbers/{rental.id}", headers=headers)).json())
    assert done.status == "active"


async def test_plain_json_without_verified_kyc_is_a_document_error(client: httpx.AsyncClient) -> None:
    response = await client.post("/v1/phone-numbers", json={"requestedNumber": NUMBER})
    assert error_of(response) == (422, "telephony_document_invalid")


@pytest.mark.parametrize(
    ("key", "status", "code"),
    [
        ("sk_sandbox_noautopay", 402, "telephony_autopay_required"),
        ("sk_sandbox_ineligible", 403, "telephony_account_ineligible"),
        ("sk_sandbox_notelephony", 503, "telephony_not_configured"),
    ],
)
async def test_account_kinds_refuse_rentals(client: httpx.AsyncClient, key: str, status: int, code: str) -> None:
    response = await client.post("/v1/phone-numbers", headers=auth(key), **rental_form(NUMBER))
    assert error_of(response) == (status, code)


async def test_ineligible_account_explains_why_on_the_requirements(client: httpx.AsyncClient) -> None:
    body = (await client.get("/v1/phone-numbers/requirements", headers=auth("sk_sandbox_ineligible"))).json()
    req = RentalRequirements.model_validate(body)
    assert req.eligibility.eligible is False and req.eligibility.reason


async def test_requirements_list_document_types_with_data_fields(client: httpx.AsyncClient) -> None:
    req = RentalRequirements.model_validate(
        (await client.get("/v1/phone-numbers/requirements", params={"countryIso": "IN", "numberType": "toll_free"})).json()
    )
    assert req.verified_kyc is False and req.currency == "INR"
    assert {d.id for d in req.document_types} == {d["documentTypeId"] for d in DOCUMENTS}
    assert any(f.required for d in req.document_types for f in d.data_fields)
    assert req.monthly_rent_nanos and req.monthly_rent_nanos > 1_000 * 10**9


async def test_search_filters_and_finds_the_scenario_numbers(client: httpx.AsyncClient) -> None:
    items = (await client.get("/v1/phone-numbers/available", params={"city": "delhi", "numberType": "local"})).json()["items"]
    found = [AvailableNumber.model_validate(i) for i in items]
    assert found and all(n.city == "Delhi" and n.number_type == "local" for n in found)
    assert {n.number[-4:] for n in found} >= {"0002", "0003", "0004", "0005"}
    pattern = (await client.get("/v1/phone-numbers/available", params={"pattern": "0003"})).json()["items"]
    assert pattern and all("0003" in n["number"] for n in pattern)
    bad = await client.get("/v1/phone-numbers/available", params={"numberType": "satellite"})
    assert error_of(bad) == (422, "invalid_request") and locs(bad) == {"query.numberType"}


@pytest.mark.parametrize(
    ("files", "documents", "needle"),
    [
        ([("gst.pdf", PDF), ("bill.png", b"GIF89a fake"), ("pan.jpg", PDF)], None, "bill.png"),
        ([("gst.pdf", b"just text, named .pdf"), ("b.png", PDF), ("p.jpg", PDF)], None, "gst.pdf"),
        ([("gst.pdf", PDF), ("b.png", PDF)], None, "one file per documents entry"),
        ([("gst.pdf", PDF), ("b.png", PDF)], DOCUMENTS[:2], "signatory_id"),
        ([("gst.pdf", PDF + b"0" * (5 * 1024 * 1024)), ("b.png", PDF), ("p.jpg", PDF)], None, "5 MB"),
    ],
    ids=["wrong-type", "type-by-content-not-name", "file-count", "missing-type", "too-large"],
)
async def test_document_checks(client: httpx.AsyncClient, files, documents, needle: str) -> None:
    response = await client.post("/v1/phone-numbers", **rental_form(NUMBER, files=files, documents=documents))
    assert error_of(response) == (422, "telephony_document_invalid")
    assert needle in response.json()["error"]


async def test_exactly_5_mb_is_accepted(client: httpx.AsyncClient) -> None:
    big = PDF + b"0" * (5 * 1024 * 1024 - len(PDF))
    files = [("gst.pdf", big), ("b.png", PDF), ("p.jpg", PDF)]
    assert (await client.post("/v1/phone-numbers", **rental_form(NUMBER, files=files))).status_code == 201


async def test_payload_fields_are_all_reported(client: httpx.AsyncClient) -> None:
    body = {"requestedNumber": "12", "endUser": {"email": "nope"}, "documents": [
        {"documentTypeId": "business_registration", "dataFields": {}}, {"documentTypeId": "passport"},
    ], "searchFilters": "Mumbai"}
    response = await client.post(
        "/v1/phone-numbers", data={"data": json.dumps(body)}, files=[("files", ("a.pdf", PDF))] * 2,
    )
    assert error_of(response) == (422, "invalid_request")
    assert locs(response) == {
        "body.requestedNumber", "body.endUser.name", "body.endUser.email", "body.searchFilters",
        "body.documents.0.dataFields.gstin", "body.documents.1.documentTypeId",
    }


async def test_unknown_rental_is_404(client: httpx.AsyncClient) -> None:
    assert error_of(await client.get("/v1/phone-numbers/8d0c7c0e-0000-4000-8000-000000000000")) == (404, "not_found")


async def test_renting_a_number_already_held_is_refused(client: httpx.AsyncClient) -> None:
    await _rent(client, NUMBER)
    response = await client.post("/v1/phone-numbers", **rental_form(NUMBER))
    assert locs(response) == {"body.requestedNumber"}


async def test_two_taken_numbers_get_different_substitutes(client: httpx.AsyncClient, sandbox_clock: VirtualClock) -> None:
    first = await _rent(client, "+914071250004", searchFilters={"city": "Hyderabad"})
    second = await _rent(client, "+913388260004", searchFilters={"city": "Hyderabad"})
    sandbox_clock.advance(30)
    first, second = [
        Rental.model_validate((await client.get(f"/v1/phone-numbers/{r.id}")).json()) for r in (first, second)
    ]
    assert first.status == second.status == "active"
    assert first.number != second.number and first.city == second.city == "Hyderabad"
