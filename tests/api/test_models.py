"""Wire models: what the server may send parses, and a body that breaks the schema is named."""

from __future__ import annotations

import pytest

from tests.api.conftest import json_response, wire_rental, wire_variable
from vap_console.api import errors
from vap_console.api.models import Rental, RentalStatus, ToolCreate


def test_rental_with_unknown_status_extra_fields_and_every_nullable_null_parses():
    body = wire_rental(status="porting_in", carrierRef="abc-1", futureThing={"x": [1, 2]})
    rental = Rental.model_validate(body)
    assert rental.status == "porting_in"
    assert rental.status not in RentalStatus.KNOWN
    assert rental.number is None and rental.compliance is None and rental.monthly_rent_nanos is None
    assert rental.model_extra == {"carrierRef": "abc-1", "futureThing": {"x": [1, 2]}}
    assert [s.key for s in rental.timeline] == ["prepaid", "submitted", "verification", "purchase", "active"]


def test_rental_round_trips_to_the_same_wire_body():
    body = wire_rental(extraField="kept")
    assert Rental.model_validate(body).model_dump(mode="json", by_alias=True) == body


async def test_rental_missing_timeline_raises_unexpected_response_naming_it(make_client):
    body = wire_rental()
    del body["timeline"]
    client, _ = make_client(json_response(200, body))
    with pytest.raises(errors.UnexpectedResponse) as caught:
        await client.get_rental("6f1c1c1e-9a57-4c1e-8f50-0c0d0a0b0c01")
    assert "timeline is missing" in str(caught.value)
    assert "GET /v1/phone-numbers/6f1c1c1e" in str(caught.value)


async def test_wrong_type_is_named_with_its_place(make_client):
    body = {"items": [wire_variable(), wire_variable(name=42)], "count": 2}
    client, _ = make_client(json_response(200, body))
    with pytest.raises(errors.UnexpectedResponse) as caught:
        await client.list_variables()
    assert "items[1].name" in str(caught.value)


async def test_a_2xx_that_is_not_json_is_an_unexpected_response(make_client):
    import httpx

    client, _ = make_client(httpx.Response(200, text="<html>gateway</html>",
                                           headers={"content-type": "text/html"}))
    with pytest.raises(errors.UnexpectedResponse) as caught:
        await client.list_voices()
    assert "not JSON" in str(caught.value)
    assert "text/html" in str(caught.value)


def test_tool_credentials_are_sent_but_never_shown():
    tool = ToolCreate.model_validate({
        "name": "crm_lookup", "description": "Looks up the caller", "kind": "before_call",
        "config": {"method": "GET", "url": "https://crm.example/{phone}",
                   "auth": {"type": "bearer", "token": "crm-secret-token"}},
    })
    assert "crm-secret-token" not in repr(tool)
    wire = tool.model_dump(mode="json", by_alias=True)
    assert wire["config"]["auth"] == {"type": "bearer", "token": "crm-secret-token"}


def _wire_samples() -> list[tuple[type, dict]]:
    from tests.api.conftest import STAMP
    from tests.api.test_endpoints import TEMPLATE, TOOL, VOICES
    from vap_console.api.models import (
        AgentTemplate,
        ErrorBody,
        RentalRequirements,
        Tool,
        Variable,
        VoiceCatalog,
        WebCallSession,
    )

    compliance = {
        "id": "c1", "carrierComplianceId": None, "status": "in_review", "rejectionReason": None,
        "alias": "Acme", "endUser": {"name": "Acme", "postal_code": "411001"},
        "documents": [{"documentTypeId": "gst"}], "attempts": 1, "submittedAt": STAMP,
        "decidedAt": None, "history": [{"at": STAMP, "what": "submitted"}],
    }
    return [
        (Rental, wire_rental(compliance=compliance, monthlyRentNanos=450_000_000_000,
                             monthlyRentalRateUsd="5.40")),
        (Tool, TOOL),
        (AgentTemplate, TEMPLATE),
        (VoiceCatalog, VOICES),
        (Variable, wire_variable(toolId="tool_1", toolOutput="name")),
        (WebCallSession, {"token": "t0k3n-abcd", "host": "wss://m.example", "roomName": "r",
                          "callId": "c0000000-0000-4000-8000-000000000001"}),
        (ErrorBody, {"error": "bad", "code": "invalid_request",
                     "details": [{"loc": "body.name", "message": "is required"}]}),
        (RentalRequirements, {"countryIso": "IN", "numberType": "local", "verifiedKyc": True,
                              "eligibility": {"eligible": True, "reason": None}, "documentTypes": []}),
    ]


@pytest.mark.parametrize(("model", "body"), _wire_samples(), ids=lambda v: getattr(v, "__name__", ""))
def test_wire_bodies_round_trip_unchanged(model, body):
    assert model.model_validate(body).model_dump(mode="json", by_alias=True) == body
