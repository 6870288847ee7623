"""The document's schemas: the client's own pydantic models (one source), plus what only the
sandbox decides (its limits on what it accepts), stated on top of them.

Every schema in ``components.schemas`` is generated from a model of ``vap_console.api.models``
(validation mode: the fields a body must carry are ``required``). The request bodies then get the
sandbox's rules as JSON Schema keywords (``REFINEMENTS``); a refinement may only name a field the
model has (``tests/sandbox/test_openapi.py`` checks it), so the two cannot drift apart.
"""

from __future__ import annotations

import copy
from typing import Any

from pydantic import BaseModel
from pydantic.json_schema import models_json_schema

from vap_console.api import limits
from vap_console.api import models as m
from vap_console.sandbox import endpoints, inventory, phone_numbers
from vap_console.sandbox.catalog import ENGINES, F0_RANGE, VOICES, templates
from vap_console.sandbox.clock import EPOCH

REF = "#/components/schemas/{model}"
# What Python's str.strip() removes (str.isspace): a text "not blank" holds one character outside it.
_SPACE = "\\t\\n\\x0b\\x0c\\r\\x1c-\\x20\\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000"
NOT_BLANK = f"[^{_SPACE}]"

# Client models in the document, by the name their schema has there.
MODELS: tuple[type[BaseModel], ...] = (
    m.Rental, m.ComplianceApplication, m.TimelineStep, m.EndUser, m.SearchFilters, m.AvailableNumber,
    m.RentalRequirements, m.DocumentType, m.DataField, m.Eligibility,
    m.Tool, m.ToolConfig, m.ToolAuthOutput, m.ToolCreate, m.ToolConfigInput, m.ToolAuthInput,
    m.NameValue, m.ToolOutput, m.Variable, m.AgentTemplate, m.TtsConfig, m.Agent, m.AgentCreate,
    m.AgentLimits, m.VoiceCatalog, m.VoiceEngine, m.Language, m.VoiceDescription, m.WebCallSession,
    m.ErrorBody, m.ErrorDetail,
    m.Page[m.Rental], m.Page[m.AvailableNumber], m.Page[m.Tool], m.Page[m.Variable],
    m.Page[m.AgentTemplate], m.Page[m.Agent],
)


def _text(limit: limits.Limit, **more: Any) -> dict[str, Any]:
    return {"type": "string", "maxLength": limit.high, **({"minLength": limit.low} if limit.low else {}), **more}


def _optional(schema: dict[str, Any]) -> dict[str, Any]:
    """null is "not sent" everywhere in the sandbox."""
    return {"anyOf": [schema, {"type": "null"}]}


def _list_of(ref: str, limit: limits.Limit = limits.TOOL_LIST) -> dict[str, Any]:
    return _optional({"type": "array", "items": {"$ref": REF.format(model=ref)}, "maxItems": limit.high})


def _tts_for(engine: dict[str, Any]) -> dict[str, Any]:
    """ttsConfig for one voice engine: its presets and whether a description steers it."""
    voices = engine["voices"]
    required_voice = bool(voices) and not engine["descriptions"]
    if voices:
        voice: dict[str, Any] = {"enum": voices if required_voice else ["", *voices]}
    else:
        voice = {"const": ""}
    description = _text(limits.TTS_DESCRIPTION) if engine["descriptions"] else {"const": ""}
    model: dict[str, Any] = {"const": engine["id"]}
    props: dict[str, Any] = {
        "model": _optional(model) if engine["id"] == VOICES["defaultModel"] else model,
        "voice": voice if required_voice else _optional(voice),
        "description": _optional(description),
    }
    for name, (low, high) in endpoints.TTS_NUMBER_RANGES.items():
        kind = "integer" if name in ("top_k", "max_new_tokens") else "number"
        props[name] = _optional({"type": kind, "minimum": low, "maximum": high})
    required = ["voice"] if required_voice else []
    if engine["id"] != VOICES["defaultModel"]:
        required.insert(0, "model")
    return {"type": "object", "title": f"TtsConfig for {engine['id']}", "properties": props, "required": required}


def _tts_input() -> dict[str, Any]:
    return {
        "description": "Checked against its engine (sandbox): voice one of the engine's presets, a "
                       "description only where the engine is steered by one, numbers in range. "
                       f"f0_up_key {F0_RANGE[0]}..{F0_RANGE[1]}, decimals accepted.",
        "anyOf": [*(_tts_for(engine) for engine in ENGINES.values()), {"type": "null"}],
    }


def _template_slugs() -> list[str]:
    return [t["slug"] for t in templates(EPOCH)]


# --- the sandbox's rules on request bodies, by schema and property ---

REFINEMENTS: dict[str, dict[str, dict[str, Any]]] = {
    "ToolCreate": {
        "name": _text(limits.TOOL_NAME, pattern=limits.TOOL_NAME_PATTERN,
                      description="Unique on the account (409 tool_name_taken)."),
        "description": _text(limits.TOOL_DESCRIPTION),
        "kind": {"enum": list(limits.TOOL_KINDS)},
    },
    "ToolConfigInput": {
        "action": _optional(_text(limits.TOOL_ACTION)),
        "performedAction": _optional(_text(limits.TOOL_ACTION)),
        "curl": _optional(_text(limits.TOOL_BODY)),
        "method": _optional({"enum": list(limits.TOOL_METHODS), "description": "GET when not sent (sandbox)."}),
        "url": _text(limits.TOOL_URL, pattern=limits.TOOL_URL_PATTERN),
        "params": _list_of("NameValue"),
        "headers": _list_of("NameValue"),
        "body": _optional(_text(limits.TOOL_BODY)),
        "timeoutMs": _optional({"type": "integer", "minimum": limits.TOOL_TIMEOUT_MS.low,
                                "maximum": limits.TOOL_TIMEOUT_MS.high,
                                "description": f"{limits.TOOL_DEFAULT_TIMEOUT_MS} when not sent (sandbox)."}),
        "llmParams": _optional({"type": "array", "maxItems": limits.TOOL_LIST.high, "items": {}}),
        "outputs": _optional({
            "type": "array", "items": {"$ref": REF.format(model="ToolOutput")}, "maxItems": limits.TOOL_LIST.high,
            "description": "Names unique within the list, and a variable another tool feeds is refused (422).",
        }),
    },
    "ToolAuthInput": {
        "type": _optional({"enum": list(limits.TOOL_AUTH_TYPES)}),
        "token": _optional(_text(limits.TOOL_SECRET, writeOnly=True)),
        "password": _optional(_text(limits.TOOL_SECRET, writeOnly=True)),
        "headerName": _optional(_text(limits.TOOL_AUTH_NAME)),
        "username": _optional(_text(limits.TOOL_AUTH_NAME)),
    },
    "NameValue": {"name": _text(limits.TOOL_PAIR_NAME), "value": _text(limits.TOOL_PAIR_VALUE)},
    "ToolOutput": {
        "name": _text(limits.TOOL_PAIR_NAME, pattern=limits.VARIABLE_NAME_PATTERN),
        "path": _text(limits.TOOL_PAIR_VALUE),
    },
    "EndUser": {
        **{f: _optional(_text(limits.RENTAL_TEXT)) for f in phone_numbers.END_USER_FIELDS},
        "name": _text(limits.RENTAL_TEXT, pattern=NOT_BLANK, description="The legal name."),
        "email": _optional(_text(limits.RENTAL_TEXT, pattern="^$|@")),
    },
    "AgentCreate": {
        "name": _text(limits.AGENT_NAME, pattern=NOT_BLANK),
        "systemInstruction": _optional(_text(limits.AGENT_PROMPT)),
        "greeting": _optional(_text(limits.AGENT_PROMPT)),
        "source": _optional({"enum": ["template", "blank"], "description": "blank when not sent (sandbox)."}),
        "templateSlug": _optional({"type": "string"}),
    },
}
# Which fields the sandbox requires beyond the model's (the spec leaves the tool's open).
REQUIRED: dict[str, list[str]] = {"ToolConfigInput": ["url"]}


def _agent_create_rule() -> dict[str, Any]:
    """source template needs an existing templateSlug (a rule across two fields)."""
    return {
        "anyOf": [
            {"properties": {"source": {"const": "template"}, "templateSlug": {"enum": _template_slugs()}},
             "required": ["source", "templateSlug"]},
            {"properties": {"source": {"enum": ["blank", None]}}},
            {"not": {"required": ["source"]}},
        ],
    }


def component_schemas() -> dict[str, Any]:
    """``components.schemas``: the client's models, refined with the sandbox's rules."""
    _, top = models_json_schema([(model, "validation") for model in MODELS], ref_template=REF)
    schemas: dict[str, Any] = top["$defs"]
    for name, fields in REFINEMENTS.items():
        props = schemas[name]["properties"]
        for field, rule in fields.items():
            title = props[field].get("title")
            props[field] = copy.deepcopy(rule) | ({"title": title} if title else {})
            # Only set where the pydantic default matters to a reader; "not sent" is what null means.
            props[field].pop("default", None)
        schemas[name]["required"] = sorted(set(schemas[name].get("required", [])) | set(REQUIRED.get(name, [])))
    schemas["AgentCreate"]["properties"]["ttsConfig"] = _tts_input()
    schemas["AgentCreate"] |= _agent_create_rule()
    schemas.update(_extra_schemas())
    return schemas


def _extra_schemas() -> dict[str, Any]:
    """Bodies with no client model: the web call's, and the rental payload's document entries."""
    agent_ref = _text(limits.AGENT_REF, pattern=NOT_BLANK, description="The agent's uuid or its ua_<handle>.")
    known = {d["id"]: d for d in inventory.DOCUMENT_TYPES}
    entries = []
    for type_id, spec in known.items():
        fields = {f["key"]: _text(limits.RENTAL_TEXT, **({"pattern": NOT_BLANK} if f["required"] else {}))
                  for f in spec["dataFields"]}
        entries.append({
            "type": "object", "title": f"{type_id} document",
            "properties": {
                "documentTypeId": {"const": type_id},
                "dataFields": {"type": "object", "properties": fields,
                               "required": [f["key"] for f in spec["dataFields"] if f["required"]],
                               "additionalProperties": _text(limits.RENTAL_TEXT),
                               "propertyNames": {"minLength": limits.DATA_FIELD_KEY.low,
                                                 "maxLength": limits.DATA_FIELD_KEY.high}},
            },
            "required": ["documentTypeId", "dataFields"],
        })
    return {
        "WebCallRequest": {
            "type": "object", "title": "WebCallRequest",
            "properties": {"agentId": agent_ref, "agent_id": {"description": "Read only when agentId is absent."},
                           "accessToken": {"type": "string",
                                           "description": "A POST /v1/register-call token, spent here: the "
                                                          "room of its call, with or without a key; when it "
                                                          "is sent, agentId is not read."}},
            "anyOf": [{"required": ["agentId"]},
                      {"required": ["agent_id"], "properties": {"agent_id": agent_ref}},
                      {"required": ["accessToken"]}],
            "description": "agentId, or its alias agent_id (spec 4.4); or a register-call accessToken "
                           "(reference voice.md §3.1).",
        },
        "RegisterCallRequest": {
            "type": "object", "title": "RegisterCallRequest",
            "properties": {"agentId": agent_ref, "agent_id": {"description": "Read only when agentId is absent."}},
            "anyOf": [{"required": ["agentId"]},
                      {"required": ["agent_id"], "properties": {"agent_id": agent_ref}}],
            "description": "agentId, or its alias agent_id (reference voice.md §3.1).",
        },
        "RentalDocument": {"oneOf": entries, "title": "RentalDocument"},
    }


def requested_number_pattern() -> str:
    """What the sandbox takes as an Indian number: bare digits with 91 (12 digits, 13 for toll-free
    1800 numbers), ten digits without it, or E.164; spaces and dashes anywhere, blanks around it."""
    gap = "[ -]*"

    def digits(text: str) -> str:
        return "".join(f"{gap}{ch}" for ch in text)

    body = "|".join((
        f"{digits('91')}(?:{gap}[0-9]){{10}}",
        f"{digits('911800')}(?:{gap}[0-9]){{7}}",
        f"{gap}[1-9](?:{gap}[0-9]){{9}}",
    ))
    return f"^[{_SPACE}]*(?:{gap}\\+)?(?:{body}){gap}[{_SPACE}]*$"
