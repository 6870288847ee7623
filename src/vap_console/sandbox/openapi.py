"""The sandbox's API as an OpenAPI 3.1 document: ``GET /openapi.json`` (no key needed) and
``vap sandbox openapi``.

Every operation the sandbox serves is here: the spec's nine, and the extensions marked
``x-sandbox-extension: true``. The schemas are the client's own models (``openapi_schemas.py``);
the examples are the seeded sandbox's real answers. Where the spec is silent, the document states
what the sandbox chose (``x-sandbox-choice``).
"""

from __future__ import annotations

import functools
import json
from typing import Any

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from vap_console import __version__
from vap_console.api.limits import REQUESTED_NUMBER
from vap_console.sandbox import agent_pace, faults, inventory, phone_numbers
from vap_console.sandbox.documents import MAX_BYTES
from vap_console.sandbox.endpoints import TTS_NUMBER_RANGES
from vap_console.sandbox.gateway import ASYNCAPI_PATH, DOCUMENT_PATH, IDEMPOTENCY_KEY_MAX
from vap_console.sandbox.openapi_examples import examples
from vap_console.sandbox.openapi_schemas import REF, component_schemas, requested_number_pattern
from vap_console.sandbox.voice import openapi_voice as voice
from vap_console.sandbox.voice import tts
from vap_console.sandbox.wire import JSON_BODY_MAX

__all__ = ["DOCUMENT_PATH", "build_document", "document_json", "openapi_document"]

# Error statuses and codes, as the sandbox answers them.
UNAUTHORIZED = (401, ["unauthorized"])
RATE_LIMITED = (429, ["rate_limited"])
TOO_LARGE = (413, ["payload_too_large"])
NOT_JSON = (415, ["unsupported_media_type"])
INVALID = (422, ["invalid_request"])
NO_AGENTS = (503, ["not_configured"])
NO_TELEPHONY = (503, ["telephony_not_configured"])
# Every POST takes an Idempotency-Key (spec §5): the same key and body again replays the answer.
# Declared once under components.parameters and named in each POST's description, not attached
# to each POST: Schemathesis then fuzzed that header on every POST, and the suite's fuzz took 5x
# as long (143 s against about 25 s for one key, same load) for a rule the gateway tests cover.
IDEMPOTENCY_KEY = {
    "name": "Idempotency-Key", "in": "header", "required": False,
    "description": "One logical request across its retries: sent again with the same key and body, "
                   "the first successful answer is replayed (header idempotent-replayed: true); the "
                   "same key with another body is 409 idempotency_key_reused.",
    "schema": {"type": "string", "minLength": 1, "maxLength": IDEMPOTENCY_KEY_MAX, "pattern": "\\S"},
}
IDEMPOTENCY_ERRORS = ((409, ["idempotency_key_reused", "idempotency_key_in_use"]), INVALID)
CHOICES = {
    "deletes": "Both deletes answer 204 with no body (the spec does not give their status).",
    "not_found": "agent_not_found and agent_tool_not_found are 404; an unknown rental or path is 404 not_found.",
    "loc": 'A body that fails as a whole (not JSON, not an object) is reported with loc "body"; a field '
           'with loc "body.<field>" (dots for nesting, indexes for lists), a query parameter "query.<name>".',
    "documents": f"Each document file at most 5 MB = {MAX_BYTES} bytes (5 MiB), PDF, JPEG or PNG by its "
                 f"first bytes; at most {phone_numbers.MAX_DOCUMENTS} documents.",
    "json_limit": f"A JSON body is at most {JSON_BODY_MAX} bytes (413 payload_too_large beyond).",
}


def _errors(*statuses: tuple[int, list[str]], forbidden: list[str] | None = None,
            post: bool = False) -> dict[str, Any]:
    """401, 403 and 429 on every operation (spec §4), plus the operation's own; a POST's
    Idempotency-Key errors when ``post``."""
    by_status: dict[int, list[str]] = {}
    own = (*statuses, *(IDEMPOTENCY_ERRORS if post else ()))
    for status, codes in (UNAUTHORIZED, (403, ["forbidden_scope", *(forbidden or [])]), RATE_LIMITED, *own):
        by_status.setdefault(status, []).extend(c for c in codes if c not in by_status.get(status, []))
    out = {}
    for status, codes in sorted(by_status.items()):
        headers = {"Retry-After": {"schema": {"type": "integer"}, "description": "whole seconds"}} \
            if "rate_limited" in codes else {}
        out[str(status)] = {
            "description": ", ".join(codes),
            **({"headers": headers} if headers else {}),
            "content": {"application/json": {"schema": {
                "allOf": [{"$ref": REF.format(model="ErrorBody")}, {"properties": {"code": {"enum": codes}}}],
            }}},
        }
    return out


def _json(ref: str | dict[str, Any], example: Any = None) -> dict[str, Any]:
    schema = {"$ref": REF.format(model=ref)} if isinstance(ref, str) else ref
    media: dict[str, Any] = {"schema": schema}
    if example is not None:
        media["example"] = example
    return {"application/json": media}


def _ok(status: int, description: str, ref: str | dict[str, Any] | None, example: Any = None) -> dict[str, Any]:
    if ref is None:
        return {str(status): {"description": description}}
    return {str(status): {"description": description, "content": _json(ref, example)}}


def _path_param(name: str, description: str) -> dict[str, Any]:
    return {"name": name, "in": "path", "required": True, "description": description,
            "schema": {"type": "string"}}


def _query_params() -> list[dict[str, Any]]:
    text = {"type": "string", "maxLength": phone_numbers.TEXT_MAX}
    return [
        {"name": "countryIso", "in": "query", "schema": text,
         "description": "IN (the default) is stocked; any other country has no numbers."},
        {"name": "numberType", "in": "query", "schema": {"enum": ["", *inventory.NUMBER_TYPES]},
         "description": "Empty is the same as not sent."},
    ]


def _rental_bodies(ex: dict[str, Any]) -> dict[str, Any]:
    number = {"type": "string", "maxLength": REQUESTED_NUMBER.high, "pattern": requested_number_pattern(),
              "description": "An Indian number: bare digits (91…) or E.164 (+91…)."}
    text = {"anyOf": [{"type": "string", "maxLength": phone_numbers.TEXT_MAX}, {"type": "null"}]}
    documents = {"type": "array", "items": {"$ref": REF.format(model="RentalDocument")},
                 "maxItems": len(inventory.DOCUMENT_TYPES),
                 "allOf": [{"contains": {"properties": {"documentTypeId": {"const": t}}}, "minContains": 0,
                            "maxContains": 1} for t in inventory.DOCUMENT_TYPE_IDS]}
    payload: dict[str, Any] = {
        "type": "object",
        "properties": {
            "requestedNumber": number,
            "searchFilters": {"anyOf": [{"type": "object", "properties": {"pattern": text, "city": text}},
                                        {"type": "null"}]},
            "endUser": {"anyOf": [{"$ref": REF.format(model="EndUser")}, {"type": "null"}]},
            "documents": {"anyOf": [documents, {"type": "null"}]},
        },
        "required": ["requestedNumber"],
    }
    with_documents = {**payload, "required": ["requestedNumber", "endUser", "documents"],
                      "properties": {**payload["properties"], "endUser": {"$ref": REF.format(model="EndUser")},
                                     "documents": {**documents, "minItems": len(inventory.DOCUMENT_TYPES)}}}
    files = len(inventory.DOCUMENT_TYPES)
    return {
        "required": True,
        "description": "Documents sent (multipart), or, for an account whose KYC is already verified "
                       "(verifiedKyc on the requirements), the plain JSON form. " + CHOICES["documents"],
        "content": {
            "multipart/form-data": {
                "schema": {
                    "type": "object",
                    "properties": {
                        "data": {**with_documents, "description": "The rental payload, a JSON document."},
                        "files": {"type": "array", "minItems": files, "maxItems": files,
                                  "items": {"type": "string", "format": "binary", "maxLength": MAX_BYTES},
                                  "description": "One file per documents entry, in the same order: all "
                                                 "the requirements' document types, once each."},
                    },
                    "required": ["data", "files"],
                },
                "encoding": {"data": {"contentType": "application/json"},
                             "files": {"contentType": "application/pdf, image/jpeg, image/png"}},
            },
            "application/json": {"schema": payload, "example": ex["rent_request"]},
        },
    }


def _speech_operations(json_errors: tuple[tuple[int, list[str]], ...]) -> dict[str, dict[str, Any]]:
    """POST /v1/tts and /v1/tts/ws-connect (sandbox/voice/tts.py; the socket is not an HTTP operation)."""
    source = "[R] docs.rumik.ai/models, silk.rumik.ai/docs (reference/voice.md §5)"
    text = {"type": "string", "minLength": 1, "maxLength": tts.TEXT_MAX}
    number = {"type": "number"}
    def optional(schema: dict[str, Any]) -> dict[str, Any]:
        return {"anyOf": [schema, {"type": "null"}], "description": "null is the same as not sent"}

    model = optional({"enum": list(tts.MODELS), "default": tts.DEFAULT_MODEL})
    request = {"type": "object", "required": ["text"], "properties": {
        "text": {**text, "description": "muga: at most one tone tag, leading, e.g. [happy] (optional: plain "
                                        "text is spoken neutrally), and no other brackets; romanised "
                                        "(Latin-script) only"},
        "model": model,
        "speaker": optional({"type": "string", "description": "mulberry: speaker_1…speaker_4; mulberry-1.6: ira, "
                                                              "aisha, siya, zoya; muga: none"}),
        "description": optional({"type": "string", "maxLength": tts.DESCRIPTION_MAX,
                                 "description": "mulberry only, instead of a speaker"}),
        "f0_up_key": optional({**number, "minimum": -12, "maximum": 12}),
        **{name: optional({"type": "integer" if name in ("top_k", "max_new_tokens") else "number", "minimum": low,
                           "maximum": high})
           for name, (low, high) in TTS_NUMBER_RANGES.items() if name != "f0_up_key"},
    }}
    refused = (402, ["access_blocked", "insufficient_balance"]), (429, ["concurrency_limit_exceeded"]), NO_AGENTS
    invalid_example = {"error": "Invalid request: check body.text.", "code": "invalid_request", "details": [
        {"loc": "body.text", "message": "may carry at most one tone tag, at the start (found also [sad])"}]}
    speak_errors = _errors(*json_errors, (400, ["invalid_request"]), *refused, post=True)
    speak_errors["422"]["content"]["application/json"]["example"] = invalid_example
    return {
        "/v1/tts": {"post": {
            "x-sandbox-extension": True, "x-source": source, "operationId": "synthesizeSpeech",
            "summary": "Text to speech: a 24 kHz mono 16-bit WAV",
            "x-sandbox-choice": f"Price per 1,000 characters: muga ₹{tts.PRICE_PER_1K['muga'] / tts.NANOS:.2f}, "
                                f"mulberry ₹{tts.PRICE_PER_1K['mulberry'] / tts.NANOS:.2f}; holds a slot while made. "
                                "Rules no JSON Schema states answer 422 (the engine's speaker, description and "
                                "f0_up_key; muga's tone tag and script) or 400 (nothing speakable in the text).",
            "requestBody": {"required": True, "content": _json(request, {"text": "[happy] Namaste!"})},
            "responses": {"200": {"description": "The speech", "content": {
                "audio/wav": {"schema": {"type": "string", "format": "binary"}}}}} | speak_errors}},
        "/v1/tts/ws-connect": {"post": {
            "x-sandbox-extension": True, "x-source": source, "operationId": "connectSpeechStream",
            "summary": "Mint a one-use token for the speech-synthesis socket",
            "requestBody": {"required": True, "content": _json(
                {"type": "object", "required": ["text"], "properties": {"model": model, "text": text}},
                {"model": "mulberry", "text": "init"})},
            "responses": _ok(200, "The socket: connect to ws_url?token=<token>", {
                "type": "object", "required": ["ws_url", "token", "request_id"],
                "properties": {"ws_url": {"type": "string"}, "token": {"type": "string"},
                               "request_id": {"type": "string"}}},
                {"ws_url": "ws://127.0.0.1:8787/v1/tts/ws/0f1e2d3c4b5a69788796a5b4c3d2e1f0",
                 "token": "tts_" + "0" * 32, "request_id": "0f1e2d3c4b5a69788796a5b4c3d2e1f0"})
            | _errors(*json_errors, *refused, post=True)}},
    }


def _operations(ex: dict[str, Any]) -> dict[str, dict[str, Any]]:
    ext = {"x-sandbox-extension": True}
    tool_link = {"DeleteTool": {"operationId": "deleteTool", "parameters": {"tool_id": "$response.body#/id"}}}
    rental_link = {"GetRental": {"operationId": "getRental", "parameters": {"number_id": "$response.body#/id"}}}
    agent_links = {
        "GetAgent": {"operationId": "getAgent", "parameters": {"agent_ref": "$response.body#/id"}},
        "DeployAgent": {"operationId": "deployAgent", "parameters": {"agent_ref": "$response.body#/id"}},
        "DeleteAgent": {"operationId": "deleteAgent", "parameters": {"agent_ref": "$response.body#/id"}},
    }
    call_link = {"StartWebcall": {"operationId": "startWebcall", "requestBody": {"agentId": "$response.body#/id"}}}
    json_errors = (TOO_LARGE, NOT_JSON, INVALID)
    rentals = {
        "get": {**ext, "operationId": "listRentals", "summary": "List rentals, newest first",
                "responses": _ok(200, "Every rental of the account", "Page_Rental_", ex["rentals"])
                | _errors()},
        "post": {"operationId": "rentNumber", "summary": "Rent a number (spec 4.1)",
                 "requestBody": _rental_bodies(ex),
                 "responses": {"201": {"description": "The rental", "content": _json("Rental", ex["rental"]),
                                       "links": rental_link}}
                 | _errors(TOO_LARGE, NOT_JSON, (402, ["telephony_autopay_required"]),
                           (422, ["invalid_request", "telephony_document_invalid"]),
                           (502, ["telephony_sandbox_error"]), NO_TELEPHONY,
                           forbidden=["telephony_account_ineligible"], post=True)},
    }
    tools = {
        "get": {**ext, "operationId": "listTools", "summary": "List tools, built-ins first",
                "responses": _ok(200, "Every tool", "Page_Tool_", ex["tools"]) | _errors()},
        "post": {"operationId": "createTool", "summary": "Create a tool (spec 4.2)",
                 "x-sandbox-choice": "All four body fields are required, and config.url.",
                 "requestBody": {"required": True, "content": _json("ToolCreate", ex["tool_request"])},
                 "responses": {"201": {"description": "The tool; a credential is never returned",
                                       "content": _json("Tool", ex["tool"]), "links": tool_link}}
                 | _errors(*json_errors, (409, ["tool_name_taken"]), post=True)},
    }
    agents = {
        "get": {**ext, "operationId": "listAgents", "summary": "List agents",
                "responses": _ok(200, "Every agent", "Page_Agent_", ex["agents"]) | _errors(NO_AGENTS)},
        "post": {**ext, "operationId": "createAgent", "summary": "Create an agent, a draft (named by the spec)",
                 "requestBody": {"required": True, "content": _json("AgentCreate", ex["agent_request"])},
                 "responses": {"201": {"description": "The agent, not deployed",
                                       "content": _json("Agent", ex["agent"]), "links": agent_links}}
                 | _errors(*json_errors, NO_AGENTS, post=True)},
    }
    agent_ref = _path_param("agent_ref", "The agent's uuid or its ua_<handle> (sandbox).")
    paths: dict[str, dict[str, Any]] = {
        DOCUMENT_PATH: {"get": {
            **ext, "operationId": "openapi", "summary": "This document", "security": [],
            "responses": {"200": {"description": "OpenAPI 3.1", "content": {"application/json": {
                "schema": {"type": "object", "required": ["openapi", "paths"]}}}}},
        }},
        "/v1/phone-numbers": rentals,
        "/v1/phone-numbers/available": {"get": {
            **ext, "operationId": "searchNumbers", "summary": "Search numbers to rent",
            "parameters": [*_query_params(), *({"name": n, "in": "query", "description": d,
                                               "schema": {"type": "string", "maxLength": phone_numbers.TEXT_MAX}}
                                              for n, d in (("pattern", "digits anywhere in the number"),
                                                           ("city", "case-insensitive")))],
            "responses": _ok(200, "Numbers the account does not hold", "Page_AvailableNumber_", ex["available"])
            | _errors(INVALID, NO_TELEPHONY)}},
        "/v1/phone-numbers/requirements": {"get": {
            **ext, "operationId": "rentalRequirements", "summary": "What renting needs",
            "parameters": _query_params(),
            "responses": _ok(200, "Requirements", "RentalRequirements", ex["requirements"])
            | _errors(INVALID, NO_TELEPHONY)}},
        "/v1/phone-numbers/{number_id}": {"get": {
            "operationId": "getRental", "summary": "Read a rental and its timeline (named by the spec)",
            "parameters": [_path_param("number_id", "The rental's id")],
            "responses": _ok(200, "The rental", "Rental", ex["rental"]) | _errors((404, ["not_found"]))}},
        "/v1/tools": tools,
        "/v1/tools/{tool_id}": {"delete": {
            "operationId": "deleteTool", "summary": "Delete a tool (spec 4.3)",
            "x-sandbox-choice": CHOICES["deletes"],
            "parameters": [_path_param("tool_id", "The tool's id")],
            "responses": _ok(204, "Deleted; variables it fed fall back to their defaults", None)
            | _errors((404, ["agent_tool_not_found"]), forbidden=["tool_is_default"])}},
        "/v1/variables": {"get": {
            "operationId": "listVariables", "summary": "List variables (spec 4.8)",
            "responses": _ok(200, "Every variable, by name", "Page_Variable_", ex["variables"]) | _errors()}},
        "/v1/voices": {"get": {
            "operationId": "listVoices", "summary": "List voices and languages (spec 4.7)",
            "responses": _ok(200, "The voice engines", "VoiceCatalog", ex["voices"]) | _errors()}},
        "/v1/agents/templates": {"get": {
            "operationId": "listTemplates", "summary": "List agent templates (spec 4.5)",
            "responses": _ok(200, "The templates", "Page_AgentTemplate_", ex["templates"]) | _errors()}},
        "/v1/agents": agents,
        "/v1/agents/{agent_ref}": {
            "get": {**ext, "operationId": "getAgent", "summary": "Read an agent", "parameters": [agent_ref],
                    "responses": _ok(200, "The agent", "Agent", ex["agent"])
                    | _errors((404, ["agent_not_found"]), NO_AGENTS)},
            "delete": {"operationId": "deleteAgent", "summary": "Delete an agent (spec 4.6)",
                       "x-sandbox-choice": CHOICES["deletes"], "parameters": [agent_ref],
                       "responses": _ok(204, "Deleted; its number is detached, its calls kept", None)
                       | _errors((404, ["agent_not_found"]), NO_AGENTS)},
        },
        "/v1/agent/limits": {"get": {
            **ext, "operationId": "agentLimits", "summary": "The account's concurrent-call slots",
            "responses": _ok(200, "Slots", "AgentLimits", ex["limits"]) | _errors(NO_AGENTS)}},
        "/v1/webcall": {"post": {
            "operationId": "startWebcall", "summary": "Start a web call (spec 4.4)",
            "x-sandbox-choice": "Answers 200; a draft agent is 409 agent_not_deployed. A register-call "
                                "accessToken opens its call's room without a key (a browser redeeming it).",
            "security": [{"bearer": []}, {}],
            "requestBody": {"required": True, "content": _json("WebCallRequest", ex["webcall_request"])},
            "responses": _ok(200, "The session to join", "WebCallSession", ex["webcall"])
            | _errors(*json_errors, (402, ["access_blocked", "insufficient_balance"]), (404, ["agent_not_found"]),
                      (409, ["agent_not_deployed"]), (429, ["concurrency_limit_exceeded"]),
                      (502, ["agent_start_failed"]), NO_AGENTS, post=True)}},
        **_speech_operations(json_errors),
        "/sandbox/agents/{agent_ref}/deploy": {"post": {
            **ext, "operationId": "deployAgent", "summary": "Deploy an agent (sandbox only: the dashboard's Deploy)",
            "parameters": [agent_ref],
            "responses": {"200": {"description": "The agent, deployed", "content": _json("Agent", ex["agent"]),
                                  "links": call_link}}
            | _errors((404, ["agent_not_found"]), NO_AGENTS, post=True)}},
    }
    # A description kept beside an operation's own code (register-call, speech) wins over the
    # fallback here: it is the one that knows the implementation's rules.
    for path, item in _voice_operations(voice.examples()).items():
        paths.setdefault(path, item)
    for item in paths.values():
        if "post" in item:
            item["post"]["description"] = ("Takes an optional Idempotency-Key header "
                                           "(#/components/parameters/IdempotencyKey).")
    return paths


def _voice_operations(ex: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """Calls, trunks, versions, recordings, register-call and speech (sandbox/voice/openapi_voice.py)."""
    def ext(source: str) -> dict[str, Any]:
        return {"x-sandbox-extension": True, "x-source": source}

    json_errors = (TOO_LARGE, NOT_JSON, INVALID)
    call_errors = ((402, ["access_blocked", "insufficient_balance"]), (404, ["agent_not_found"]),
                   (409, ["agent_not_deployed"]), (429, ["concurrency_limit_exceeded"]), (502, ["agent_start_failed"]),
                   NO_AGENTS)
    call_link = {"GetCall": {"operationId": "getCall", "parameters": {"call_id": "$response.body#/callId"}}}
    trunk_link = {"GetSipTrunk": {"operationId": "getSipTrunk", "parameters": {"trunk_id": "$response.body#/id"}}}
    text = {"type": "string", "maxLength": 64}
    return {
        ASYNCAPI_PATH: {"get": {
            **ext(voice.SANDBOX), "operationId": "asyncapi", "security": [],
            "summary": "The sockets (realtime agent, speech synthesis) as an AsyncAPI 3.0 document",
            "responses": {"200": {"description": "AsyncAPI 3.0", "content": {"application/json": {
                "schema": {"type": "object", "required": ["asyncapi", "channels"]}}}}}}},
        "/v1/calls": {"post": {
            **ext(voice.T_CALLS), "operationId": "placeCall", "summary": "Place an outbound call",
            "x-sandbox-choice": "The outcome is chosen by toNumber's last four digits: " + voice.SCENARIOS
                                + ". Never re-sent automatically: a timeout can mean the call exists.",
            "requestBody": {"required": True, "content": _json("CallRequest", ex["call_request"])},
            "responses": {"202": {"description": "The call, ringing", "content": _json("CallAccepted",
                                  ex["call_accepted"]), "links": call_link}}
            | _errors(*json_errors, *call_errors, (404, ["agent_not_found", "trunk_not_found"]),
                      (409, ["agent_not_deployed", "trunk_not_active"]), post=True)}},
        "/v1/calls/{call_id}": {"get": {
            **ext(voice.T_CALLS), "operationId": "getCall", "summary": "Read a call (web, socket or outbound)",
            "parameters": [_path_param("call_id", "The call's id (callId of /v1/webcall, call_id of "
                                                  "session.created, callId of POST /v1/calls)")],
            "responses": {"200": {"description": "The call as it stands on the sandbox clock", "content": {
                "application/json": {"schema": {"$ref": REF.format(model="CallRecord")},
                                     "examples": {"outbound": {"value": ex["call"]},
                                                  "web": {"value": ex["web_call"]}}}}}}
            | _errors((404, ["not_found"]), NO_AGENTS)}},
        "/v1/sip-trunks": {"post": {
            **ext(voice.SANDBOX), "operationId": "registerSipTrunk",
            "summary": "Register a SIP trunk (the real page's fields are not published)",
            "requestBody": {"required": True, "content": _json("SipTrunkCreate", ex["trunk_request"])},
            "responses": {"201": {"description": "The trunk, active", "content": _json("SipTrunk", ex["trunk"]),
                                  "links": trunk_link}}
            | _errors(*json_errors, (404, ["agent_not_found"]), (409, ["trunk_number_taken"]), NO_AGENTS,
                      post=True)}},
        "/v1/sip-trunks/{trunk_id}": {"get": {
            **ext(voice.T_CALLS), "operationId": "getSipTrunk", "summary": "Read a SIP trunk",
            "parameters": [_path_param("trunk_id", "The trunk's id")],
            "responses": _ok(200, "The trunk", "SipTrunk", ex["trunk"]) | _errors((404, ["not_found"]), NO_AGENTS)}},
        "/v1/agents/{agent_ref}/versions": {"get": {
            **ext("[T] the path (real-service.md); its answer is the sandbox's"), "operationId": "agentVersions",
            "summary": "An agent's deployed versions, newest first (one per deploy; a draft has none)",
            "parameters": [_path_param("agent_ref", "The agent's uuid or its ua_<handle>.")],
            "responses": _ok(200, "The versions", "Page_AgentVersion_", ex["versions"])
            | _errors((404, ["agent_not_found"]), NO_AGENTS)}},
        "/sandbox/recordings/{call_id}": {"get": {
            **ext("[T] a signed recording URL, fetched without the API key; the path and query are the "
                  "sandbox's"),
            "operationId": "getRecording", "summary": "A call's recording as WAV (the call's recordingUrl)",
            "security": [],
            "parameters": [_path_param("call_id", "The call's id"),
                           {"name": "expires", "in": "query", "required": True, "schema": text,
                            "description": "Unix seconds on the sandbox clock"},
                           {"name": "signature", "in": "query", "required": True, "schema": text,
                            "description": "HMAC-SHA256, hex"}],
            "responses": {
                "200": {"description": "24 kHz mono 16-bit WAV",
                        "content": {"audio/wav": {"schema": {"type": "string", "format": "binary"}}}},
                **{k: v for k, v in _errors((403, ["recording_url_invalid", "recording_url_expired"]),
                                            (404, ["not_found"])).items() if k in ("403", "404")},
            }}},
        "/v1/register-call": {"post": {
            **ext(voice.R_SOCKET), "operationId": "registerCall",
            "summary": "Mint a one-use token for the realtime agent socket (no slot, no bill)",
            "requestBody": {"required": True, "content": _json("RegisterCallRequest", ex["register_request"])},
            "responses": _ok(201, "The token", "RegisterCallAnswer", ex["register"])
            | _errors(*json_errors, (402, ["access_blocked"]), (404, ["agent_not_found"]),
                      (409, ["agent_not_deployed"]), NO_AGENTS, post=True)}},
        "/v1/tts": {"post": {
            **ext(voice.R_TTS), "operationId": "synthesizeSpeech", "summary": "Text to speech, a WAV",
            "requestBody": {"required": True, "content": _json("TtsRequest", ex["tts_request"])},
            "responses": {"200": {"description": "24 kHz mono 16-bit WAV",
                                  "content": {"audio/wav": {"schema": {"type": "string", "format": "binary"}}}}}
            | _errors(*json_errors, (400, ["invalid_request"]), (402, ["access_blocked", "insufficient_balance"]),
                      (429, ["concurrency_limit_exceeded"]), NO_AGENTS, post=True)}},
        "/v1/tts/ws-connect": {"post": {
            **ext(voice.R_TTS), "operationId": "connectSpeechStream",
            "summary": "Mint a speech-synthesis socket (see /asyncapi.json)",
            "requestBody": {"required": True, "content": _json("TtsStreamRequest", ex["tts_stream_request"])},
            "responses": _ok(200, "The socket's URL and token", "TtsStreamSession", ex["tts_stream"])
            | _errors(*json_errors, (402, ["access_blocked", "insufficient_balance"]),
                      (429, ["concurrency_limit_exceeded"]), NO_AGENTS, post=True)}},
    }


def served_operations() -> set[tuple[str, str]]:
    """(method, path) of every HTTP operation the sandbox's app routes."""
    from vap_console.sandbox.app import _routes  # here: the app imports this module

    # the sockets (WebSocketRoute) are in /asyncapi.json
    return {(method.lower(), route.path) for route in _routes() if isinstance(route, Route)
            for method in route.methods or () if method != "HEAD"}


@functools.cache
def document_json() -> str:
    return json.dumps(build_document(), indent=2, ensure_ascii=False) + "\n"


def build_document(*, only_served: bool = True) -> dict[str, Any]:
    """The whole document, built fresh (the schemas from the client's models). The voice
    operations are described whether or not this build serves them yet (register-call and speech
    come from their own modules); ``only_served`` keeps the operations the app routes, so that the
    document never lists a path that would answer 404."""
    ex = examples()
    paths = _operations(ex)
    if only_served:
        served = served_operations()
        paths = {path: kept for path, item in paths.items()
                 if (kept := {m: op for m, op in item.items() if (m, path) in served})}
    return {
        "openapi": "3.1.0",
        "info": {
            "title": "Voice Agent Platform API (vap-console sandbox)",
            "version": "1.0.0",
            "description": "The API as the vap-console sandbox serves it (vap-console "
                           f"{__version__}). Operations marked x-sandbox-extension are not in the spec. "
                           + " ".join(CHOICES.values()),
            "x-sandbox-faults": {f"--faults {name}=": does for name, does in faults.SETTINGS.items()},
            "x-sandbox-agent-pace": agent_pace.described(),
        },
        "servers": [{"url": "http://127.0.0.1:8787", "description": "vap sandbox serve"}],
        "security": [{"bearer": []}],
        "paths": paths,
        "components": {
            "schemas": component_schemas() | voice.schemas(),
            "parameters": {"IdempotencyKey": IDEMPOTENCY_KEY},
            "securitySchemes": {"bearer": {
                "type": "http", "scheme": "bearer",
                "description": "Authorization: Bearer <API_KEY>; the sandbox's keys are printed by "
                               "vap sandbox serve (rk_test_0000000000000000000agent: everything works).",
            }},
        },
    }


async def openapi_document(request: Request) -> Response:
    return Response(document_json(), media_type="application/json")
