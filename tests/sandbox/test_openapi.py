"""The sandbox's OpenAPI document (issue 18): served without a key, the same as `vap sandbox
openapi`, valid OpenAPI 3.1, built from the client's models, and true of the sandbox's answers."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import httpx
import jsonschema
import pytest
from openapi_spec_validator import validate
from pydantic import BaseModel

from vap_console.api import models as m
from vap_console.api.models.calls import ToolCallMade
from vap_console.sandbox.openapi import build_document, document_json
from vap_console.sandbox.openapi_schemas import MODELS, REFINEMENTS, requested_number_pattern

from .conftest import auth

SPEC_OPERATIONS = {
    ("post", "/v1/phone-numbers"), ("get", "/v1/phone-numbers/{number_id}"), ("post", "/v1/tools"),
    ("delete", "/v1/tools/{tool_id}"), ("post", "/v1/webcall"), ("get", "/v1/agents/templates"),
    ("delete", "/v1/agents/{agent_ref}"), ("get", "/v1/voices"), ("get", "/v1/variables"),
}
METHODS = {"get", "post", "put", "patch", "delete"}


@pytest.fixture(scope="module")
def document() -> dict[str, Any]:
    return build_document()


def operations(document: dict[str, Any]) -> dict[tuple[str, str], dict[str, Any]]:
    return {(method, path): op for path, item in document["paths"].items()
            for method, op in item.items() if method in METHODS}


def validator(document: dict[str, Any], schema: dict[str, Any]) -> jsonschema.Draft202012Validator:
    return jsonschema.Draft202012Validator({**schema, "components": document["components"]})


def test_the_document_is_valid_openapi_3_1(document: dict[str, Any]) -> None:
    assert document["openapi"].startswith("3.1")
    validate(document)


async def test_it_is_served_without_a_key_and_is_what_the_cli_prints(sandbox_transport: httpx.ASGITransport) -> None:
    async with httpx.AsyncClient(transport=sandbox_transport, base_url="http://sandbox") as client:
        response = await client.get("/openapi.json")
    assert response.status_code == 200 and response.headers["content-type"].startswith("application/json")
    printed = subprocess.run([str(Path(sys.executable).parent / "vap"), "sandbox", "openapi"],
                             capture_output=True, text=True, timeout=60, check=True).stdout
    assert json.loads(printed) == response.json() == json.loads(document_json())


def test_every_route_of_the_sandbox_is_an_operation_and_extensions_are_marked(
    sandbox_app: Any, document: dict[str, Any]
) -> None:
    served = {(method.lower(), route.path) for route in sandbox_app.routes
              for method in getattr(route, "methods", None) or () if method != "HEAD"}
    ops = operations(document)
    assert set(ops) == served
    assert served > SPEC_OPERATIONS
    for key, op in ops.items():
        assert op.get("x-sandbox-extension", False) is (key not in SPEC_OPERATIONS), key
        assert op["operationId"] and op["responses"], key
        has_example = any("example" in media or "examples" in media for r in op["responses"].values()
                          for media in r.get("content", {}).values())
        # Answered without a key: the two documents and a recording (its signed URL is the credential).
        open_op = key[1] in ("/openapi.json", "/asyncapi.json", "/sandbox/recordings/{call_id}")
        assert has_example or key[0] == "delete" or open_op, key
        if open_op:
            assert op["security"] == [], key
        else:
            assert {"401", "403", "429"} <= set(op["responses"]), key
            # the document's bearer applies; a web call may instead carry a register-call token
            expected = [{"bearer": []}, {}] if key == ("post", "/v1/webcall") else None
            assert op.get("security") == expected, key
    assert document["security"] == [{"bearer": []}]
    assert document["components"]["securitySchemes"]["bearer"] == {
        **document["components"]["securitySchemes"]["bearer"], "type": "http", "scheme": "bearer"}


def _wire_names(model: type[BaseModel]) -> set[str]:
    return {field.alias or name for name, field in model.model_fields.items()}


@pytest.mark.parametrize("model", MODELS, ids=lambda model: model.__name__)
def test_every_field_of_every_client_model_is_in_the_document_and_nothing_else(
    model: type[BaseModel], document: dict[str, Any]
) -> None:
    name = model.__name__.replace("[", "_").replace("]", "_").replace("vap_console.api.models.", "")
    schema = document["components"]["schemas"][name]
    assert set(schema["properties"]) == _wire_names(model)
    required = {f.alias or n for n, f in model.model_fields.items() if f.is_required()}
    assert required <= set(schema.get("required", []))


def test_every_client_model_with_a_wire_shape_is_in_the_document() -> None:
    # Every model defined in the package's modules (api/models/rentals.py, tools.py, ...).
    modules = [module for module in vars(m).values()
               if isinstance(module, ModuleType) and module.__name__.startswith(f"{m.__name__}.")]
    wire = {obj for module in modules for obj in vars(module).values()
            if isinstance(obj, type) and issubclass(obj, m._Wire) and obj.__module__ == module.__name__
            and not obj.__name__.startswith("_") and obj not in (m.Page, m._SnakeWire)}
    in_document = {model for model in MODELS if model.__pydantic_generic_metadata__["origin"] is None}
    assert wire == in_document | set(HAND_WRITTEN)


# The voice side's answers are described by hand (sandbox/voice/openapi_voice.py: their sources are
# a third party's client, marked per field), not generated from the client's models; the client
# must read nothing those schemas do not define.
HAND_WRITTEN = {m.CallRecord: "CallRecord", m.SipTrunk: "SipTrunk", m.PlacedCall: "CallAccepted",
                m.TranscriptTurn: None, ToolCallMade: "toolCalls"}


@pytest.mark.parametrize("model", list(HAND_WRITTEN), ids=lambda model: model.__name__)
def test_the_client_reads_only_what_the_voice_schemas_define(model: type[BaseModel], document: dict[str, Any]) -> None:
    schemas = document["components"]["schemas"]
    if HAND_WRITTEN[model] in (None, "toolCalls"):  # the items of CallRecord.transcript or .toolCalls
        listed = schemas["CallRecord"]["properties"][HAND_WRITTEN[model] or "transcript"]
        items = next(option["items"] for option in listed.get("anyOf", [listed]) if "items" in option)
        defined = set(items.get("properties", {}))
    else:
        defined = set(schemas[HAND_WRITTEN[model]]["properties"])
    assert _wire_names(model) <= defined, _wire_names(model) - defined


def test_the_sandbox_rules_only_name_fields_the_models_have(document: dict[str, Any]) -> None:
    by_name = {model.__name__: model for model in MODELS}
    for schema, fields in REFINEMENTS.items():
        assert set(fields) <= _wire_names(by_name[schema]), schema


def test_the_spec_constraints_and_the_sandbox_choices_are_stated(document: dict[str, Any]) -> None:
    schemas = document["components"]["schemas"]
    name = schemas["ToolCreate"]["properties"]["name"]
    assert name["pattern"] == m.TOOL_NAME_PATTERN and name["maxLength"] == m.TOOL_NAME_MAX
    assert schemas["ToolCreate"]["properties"]["description"]["maxLength"] == m.TOOL_DESCRIPTION_MAX
    assert set(schemas["ToolCreate"]["required"]) == {"name", "description", "kind", "config"}
    assert "url" in schemas["ToolConfigInput"]["required"]
    assert set(schemas["Rental"]["required"]) == {
        "id", "status", "numberType", "countryIso", "currency", "timeline", "events", "createdAt", "updatedAt"}
    text = json.dumps(document)
    assert "5242880 bytes" in text and 'loc \\"body\\"' in text and "204" in text
    ops = operations(document)
    assert set(ops[("delete", "/v1/tools/{tool_id}")]["responses"]) >= {"204", "404"}
    assert ops[("post", "/v1/tools")]["responses"]["201"]["links"]["DeleteTool"]["operationId"] == "deleteTool"
    assert ops[("post", "/v1/phone-numbers")]["responses"]["201"]["links"]["GetRental"]["operationId"] == "getRental"


@pytest.mark.parametrize("number, ok", [
    ("912067890002", True), ("+912067890002", True), ("2067890002", True), ("+91 20-6789 0002", True),
    ("9118002000002", True), ("912067890002\n", True),  # strip() takes the final newline, as the sandbox does
    ("0206789000", False), ("12067890002", False), ("91206789000x", False), ("", False),
])
def test_the_requested_number_pattern_is_the_sandbox_rule(number: str, ok: bool) -> None:
    import re

    from vap_console.sandbox.inventory import normalise

    assert (normalise(number) is not None) is ok
    assert bool(re.search(requested_number_pattern(), number)) is ok


GETS = {
    "/v1/phone-numbers": "Page_Rental_", "/v1/tools": "Page_Tool_", "/v1/variables": "Page_Variable_",
    "/v1/voices": "VoiceCatalog", "/v1/agents/templates": "Page_AgentTemplate_", "/v1/agents": "Page_Agent_",
    "/v1/agent/limits": "AgentLimits", "/v1/phone-numbers/available": "Page_AvailableNumber_",
    "/v1/phone-numbers/requirements": "RentalRequirements",
}


async def test_the_sandbox_answers_validate_against_the_document(
    sandbox_transport: httpx.ASGITransport, document: dict[str, Any]
) -> None:
    ops = operations(document)
    async with httpx.AsyncClient(transport=sandbox_transport, base_url="http://sandbox", headers=auth()) as client:
        for path, name in GETS.items():
            response = await client.get(path)
            schema = ops[("get", path)]["responses"]["200"]["content"]["application/json"]["schema"]
            assert schema == {"$ref": f"#/components/schemas/{name}"}
            validator(document, schema).validate(response.json())
        rental = (await client.get("/v1/phone-numbers")).json()["items"][0]
        validator(document, {"$ref": "#/components/schemas/Rental"}).validate(rental)
        bad = await client.post("/v1/tools", json={"name": "lookup\n"})
        error = ops[("post", "/v1/tools")]["responses"]["422"]["content"]["application/json"]["schema"]
        validator(document, error).validate(bad.json())
    # and every example in the document is one
    for op in ops.values():
        for response in op["responses"].values():
            for media in response.get("content", {}).values():
                if "example" in media:
                    validator(document, media["schema"]).validate(media["example"])


@pytest.mark.parametrize("path, allowed", [
    ("/v1/tools", {"GET", "HEAD", "POST"}), ("/v1/phone-numbers", {"GET", "HEAD", "POST"}),
    ("/v1/agents", {"GET", "HEAD", "POST"}), ("/v1/agents/ua_x", {"GET", "HEAD", "DELETE"}),
])
async def test_a_405_lists_every_method_the_path_takes(
    sandbox_transport: httpx.ASGITransport, path: str, allowed: set[str]
) -> None:
    # With one Route per method, the first route's 405 listed only its own (allow: GET, HEAD).
    async with httpx.AsyncClient(transport=sandbox_transport, base_url="http://sandbox", headers=auth()) as client:
        response = await client.put(path, json={})
    assert response.status_code == 405
    assert {m.strip() for m in response.headers["allow"].split(",")} == allowed


async def test_every_post_states_the_idempotency_key_and_what_a_reused_key_answers(
    document: dict[str, Any], sandbox_transport: httpx.ASGITransport
) -> None:
    posts = {path: op for (method, path), op in operations(document).items() if method == "post"}
    assert posts
    header = document["components"]["parameters"]["IdempotencyKey"]
    assert header["in"] == "header" and header["name"] == "Idempotency-Key" and not header["required"]
    assert header["schema"]["maxLength"] == 255
    for path, op in posts.items():
        assert "#/components/parameters/IdempotencyKey" in op["description"], path
        assert "idempotency_key_reused" in op["responses"]["409"]["description"], path
    # What the document says is what the sandbox does: the same key with another body is a 409
    # whose body validates against the operation's 409.
    async with httpx.AsyncClient(transport=sandbox_transport, base_url="http://sandbox", headers=auth()) as c:
        body = {"name": "idem_check", "description": "d", "kind": "before_call",
                "config": {"url": "https://example.com/x"}}
        headers = {"Idempotency-Key": "same-key-1"}
        first = await c.post("/v1/tools", json=body, headers=headers)
        again = await c.post("/v1/tools", json={**body, "name": "idem_other"}, headers=headers)
    assert first.status_code == 201, first.text
    assert again.status_code == 409 and again.json()["code"] == "idempotency_key_reused"
    schema = posts["/v1/tools"]["responses"]["409"]["content"]["application/json"]["schema"]
    validator(document, schema).validate(again.json())


VOICE_OPERATIONS = {
    ("post", "/v1/calls"): "[T]", ("get", "/v1/calls/{call_id}"): "[T]", ("get", "/v1/sip-trunks/{trunk_id}"): "[T]",
    ("post", "/v1/sip-trunks"): "sandbox", ("get", "/v1/agents/{agent_ref}/versions"): "[T]",
    ("get", "/sandbox/recordings/{call_id}"): "[T]", ("post", "/v1/register-call"): "[R]",
    ("post", "/v1/tts"): "[R]", ("post", "/v1/tts/ws-connect"): "[R]", ("get", "/asyncapi.json"): "sandbox",
}


def test_the_voice_operations_are_described_with_their_source() -> None:
    # Described whether or not this build serves them (register-call and speech have their own modules).
    whole = build_document(only_served=False)
    validate(whole)
    ops = operations(whole)
    for key, source in VOICE_OPERATIONS.items():
        assert ops[key]["x-sandbox-extension"] is True and ops[key]["x-source"].startswith(source), key
    assert ("get", "/v1/calls") not in ops  # no list of calls is published: none is invented
    record = whole["components"]["schemas"]["CallRecord"]
    assert {"id", "status", "durationSeconds", "endReason", "creditsCharged", "transcript", "recordingUrl",
            "summary"} <= set(record["required"])
    assert all(record["properties"][f]["x-sandbox-extension"] for f in ("kind", "createdAt", "startedAt", "endedAt"))
    assert ops[("get", "/sandbox/recordings/{call_id}")]["security"] == []


async def test_call_trunk_and_version_answers_validate_against_the_document(
    sandbox_transport: httpx.ASGITransport, sandbox_clock: Any, document: dict[str, Any]
) -> None:
    async with httpx.AsyncClient(transport=sandbox_transport, base_url="http://sandbox", headers=auth()) as client:
        agent = next(a for a in (await client.get("/v1/agents")).json()["items"] if a["deployed"])
        trunk = (await client.post("/v1/sip-trunks", json={"phoneNumber": "+912071230000",
                                                           "terminationUri": "sip:x.example.com"})).json()
        placed = await client.post("/v1/calls", json={"agentId": agent["id"], "toNumber": "+919812340001",
                                                      "fromTrunkId": trunk["id"]})
        web = (await client.post("/v1/webcall", json={"agentId": agent["id"]})).json()
        answers = [("CallAccepted", placed.json()), ("SipTrunk", trunk),
                   ("Page_AgentVersion_", (await client.get(f"/v1/agents/{agent['id']}/versions")).json())]
        for seconds in (0, 5, 10, 200):
            sandbox_clock.advance(seconds)
            for call_id in (placed.json()["callId"], web["callId"]):
                answers.append(("CallRecord", (await client.get(f"/v1/calls/{call_id}")).json()))
    assert {a["status"] for name, a in answers if name == "CallRecord"} >= {"calling", "in_progress", "completed",
                                                                           "expired"}
    for name, answer in answers:
        validator(document, {"$ref": f"#/components/schemas/{name}"}).validate(answer)
    for op in operations(build_document(only_served=False)).values():
        for response in op["responses"].values():
            for media in response.get("content", {}).values():
                for example in media.get("examples", {}).values():
                    validator(document, media["schema"]).validate(example["value"])
                if "example" in media:
                    validator(build_document(only_served=False), media["schema"]).validate(media["example"])
