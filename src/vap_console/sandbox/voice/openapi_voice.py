"""The voice side's HTTP operations in the sandbox's OpenAPI document (sandbox/openapi.py merges
them in): calls, SIP trunks, agent versions, recordings, register-call and speech synthesis.

None of them is specified by the spec (its section 1 only names them), so every one is marked
``x-sandbox-extension`` and says where its shape comes from in ``x-source``: [R] published by the
vendor, [T] a third party's client (reference voice.md), or "sandbox" (the sandbox's own choice).
A field the sources never showed is marked ``x-sandbox-extension`` on its schema too.
The examples are what a fresh sandbox answers on the virtual clock.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from vap_console.sandbox.calls import CALL_HOLD_SECONDS
from vap_console.sandbox.clock import VirtualClock, iso
from vap_console.sandbox.keys import KEYS
from vap_console.sandbox.state import SandboxState
from vap_console.sandbox.voice.call_records import (
    CALLING,
    COMPLETED,
    EXPIRED,
    FAILED,
    IN_PROGRESS,
    PRICE_CREDITS_PER_MINUTE,
    CallRecord,
    Step,
)
from vap_console.sandbox.voice.outbound import OUTCOMES, REF_MAX, Outcome, plan
from vap_console.sandbox.voice.recordings import RECORDING_URL_SECONDS, signature
from vap_console.sandbox.voice.trunks import (
    CREDENTIAL_MAX,
    E164_PATTERN,
    SIP_URI_PATTERN,
    trunks_of,
)

REF = "#/components/schemas/{model}"
NOT_BLANK = "[^\\t\\n\\x0b\\x0c\\r\\x1c-\\x20\\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000]"
T_CALLS = "[T] Anushlinux/voice-agents-benchmarks src/voice_bench/target/rumik/client.py (voice.md §4)"
R_SOCKET = "[R] ira-rumik/cookbooks docs/protocol-reference.md (voice.md §3.1)"
R_TTS = "[R] docs.rumik.ai/models, silk.rumik.ai/docs, ira-rumik/pipecat tts.py (voice.md §5)"
SANDBOX = "sandbox: its own, no published shape"
TTS_MODELS = ["muga", "mulberry", "mulberry-1.6"]
SCENARIOS = "; ".join(f"…{o.value}: {text}" if o is not Outcome.ANSWERED else f"any other ending: {text}"
                      for o, text in OUTCOMES.items())


def _ref(name: str) -> dict[str, Any]:
    return {"$ref": REF.format(model=name)}


def _nullable(schema: dict[str, Any]) -> dict[str, Any]:
    return {"anyOf": [schema, {"type": "null"}]}


def _ext(schema: dict[str, Any], why: str = SANDBOX) -> dict[str, Any]:
    return {**schema, "x-sandbox-extension": True, "x-source": why}


def _id_text(description: str) -> dict[str, Any]:
    return {"type": "string", "maxLength": REF_MAX, "pattern": NOT_BLANK, "description": description}


def schemas() -> dict[str, Any]:
    e164 = {"type": "string", "pattern": E164_PATTERN, "description": "E.164: + and 8 to 15 digits."}
    timestamp = {"type": "string", "format": "date-time"}
    return {
        "CallRequest": {
            "type": "object", "title": "CallRequest", "x-source": T_CALLS,
            "properties": {
                "agentId": _id_text("The agent's uuid or ua_<handle>; it must be deployed."),
                "toNumber": {**e164, "description": "The callee, E.164. " + SCENARIOS},
                "fromTrunkId": _id_text("One of the account's SIP trunks, or (sandbox choice) the id of one of its "
                                        "rented numbers; active either way."),
            },
            "required": ["agentId", "toNumber", "fromTrunkId"],
        },
        "CallAccepted": {
            "type": "object", "title": "CallAccepted", "x-source": T_CALLS,
            "properties": {"callId": {"type": "string"}, "status": {"const": CALLING}, "toNumber": e164},
            "required": ["callId", "status", "toNumber"],
        },
        "CallRecord": {
            "type": "object", "title": "CallRecord", "x-source": T_CALLS,
            "description": "A web call, a socket session or an outbound call. Poll until status is completed, "
                           "failed or expired.",
            "properties": {
                "id": {"type": "string", "format": "uuid"},
                "agentId": _ext({"type": "string"}),
                "kind": _ext({"enum": ["web", "socket", "outbound"]}),
                "status": {"enum": [CALLING, IN_PROGRESS, COMPLETED, FAILED, EXPIRED],
                           "description": f"{IN_PROGRESS} is the sandbox's (answered, still going): the sources "
                                          "show only calling and the three terminal ones."},
                "toNumber": _ext(_nullable(e164)),
                "fromTrunkId": _ext(_nullable({"type": "string"})),
                "createdAt": _ext(timestamp),
                "startedAt": _ext(_nullable(timestamp)),
                "endedAt": _ext(_nullable(timestamp)),
                "durationSeconds": {"type": "integer", "minimum": 0},
                "endReason": _nullable({"type": "string", "examples": [
                    "participant_disconnected", "no_participant", "no_answer", "busy", "carrier_error",
                    "client_requested", "max_duration"]}),
                "creditsCharged": {"type": "number", "minimum": 0,
                                   "description": f"Sandbox price: {PRICE_CREDITS_PER_MINUTE} credits (₹1 each in "
                                                  "the ledger) per started minute from startedAt to endedAt."},
                "transcript": {"type": "array", "items": {
                    "type": "object", "properties": {"role": {"enum": ["user", "assistant"]},
                                                     "content": {"type": "string"}},
                    "required": ["role", "content"]}},
                "toolsCalled": _ext({"type": "array", "items": {"type": "string"}}),
                "toolCalls": _ext({"type": "array", "description":
                    "With `vap sandbox serve --call-tools`: each call of a tool's webhook, in order: the "
                    "arguments the agent gave it, the caller's turn that led to it (1-based; null for a "
                    "before_call tool), the request as sent (its secret masked), the status, the "
                    "milliseconds, the outputs read, or the error. Empty otherwise.", "items": {
                        "type": "object", "properties": {
                            "name": {"type": "string"}, "kind": {"type": "string"},
                            "args": {"type": "object", "additionalProperties": {"type": "string"}},
                            "turn": _nullable({"type": "integer", "minimum": 1}),
                            "request": _nullable({"type": "object"}), "status": _nullable({"type": "integer"}),
                            "ms": _nullable({"type": "number"}),
                            "outputs": {"type": "object", "additionalProperties": {"type": "string"}},
                            "error": _nullable({"type": "string"})},
                        "required": ["name", "kind", "args", "turn", "request", "status", "ms", "outputs",
                                     "error"]}}),
                "recordingUrl": _nullable({"type": "string", "format": "uri", "description":
                    "Signed, expiring; fetch it with no Authorization header. null until the call ends, "
                    "and when there was nothing to record."}),
                "summary": _nullable({"type": "string"}),
            },
            "required": ["id", "status", "durationSeconds", "endReason", "creditsCharged", "transcript",
                         "recordingUrl", "summary"],
        },
        "SipTrunk": {
            "type": "object", "title": "SipTrunk", "x-source": T_CALLS,
            "properties": {
                "id": {"type": "string"}, "phoneNumber": e164, "assignedAgentId": _nullable({"type": "string"}),
                "status": {"type": "string", "examples": ["active", "inactive"]}, "hasAuth": {"type": "boolean"},
                "terminationUri": {"type": "string"}, "createdAt": _ext(timestamp),
            },
            "required": ["id", "phoneNumber", "assignedAgentId", "status", "hasAuth", "terminationUri"],
        },
        "SipTrunkCreate": _ext({
            "type": "object", "title": "SipTrunkCreate",
            "description": "username and password go together (hasAuth); assignedAgentId is any agent's uuid or "
                           "ua_<handle>.",
            "properties": {
                "phoneNumber": e164,
                "terminationUri": {"type": "string", "pattern": SIP_URI_PATTERN},
                "username": _nullable({"type": "string", "minLength": 1, "maxLength": CREDENTIAL_MAX}),
                "password": _nullable({"type": "string", "minLength": 1, "maxLength": CREDENTIAL_MAX,
                                       "writeOnly": True}),
                "assignedAgentId": _nullable({"type": "string"}),
            },
            "required": ["phoneNumber", "terminationUri"],
            # Both credentials as strings, or neither (absent or null): null is "not sent" in the sandbox.
            "anyOf": [{"properties": {"username": {"type": "string"}, "password": {"type": "string"}},
                       "required": ["username", "password"]},
                      {"properties": {"username": {"type": "null"}, "password": {"type": "null"}}}],
        }),
        "AgentVersion": _ext({
            "type": "object", "title": "AgentVersion",
            "properties": {"version": {"type": "integer", "minimum": 1}, "agentId": {"type": "string"},
                           "deployedAt": timestamp, "name": {"type": "string"},
                           "systemInstruction": {"type": "string"}, "greeting": {"type": "string"},
                           "ttsConfig": {"type": "object"}},
            "required": ["version", "agentId", "deployedAt"],
        }),
        "Page_AgentVersion_": _ext({
            "type": "object", "title": "Page[AgentVersion]",
            "properties": {"items": {"type": "array", "items": _ref("AgentVersion")}, "count": {"type": "integer"}},
            "required": ["items", "count"],
        }),
        "RegisterCallAnswer": {
            "type": "object", "title": "RegisterCallAnswer", "x-source": R_SOCKET,
            "properties": {
                "access_token": {"type": "string", "pattern": "^wct_", "description": "One use: spent when the "
                                 "socket connects (GET /v1/agent/connect?token=, see /asyncapi.json)."},
                "expires_in": {"const": 300}, "sample_rate": {"const": 24000},
                "call_id": _ext({"type": "string", "format": "uuid", "description": "The call record's id "
                                 "(GET /v1/calls/{call_id}), as session.created gives it"},
                                "[T] a third party reads it; harmless extra"),
            },
            "required": ["access_token", "expires_in", "sample_rate", "call_id"],
        },
        "TtsRequest": {
            "type": "object", "title": "TtsRequest", "x-source": R_TTS,
            "properties": {
                "text": {"type": "string", "minLength": 1, "maxLength": 2000,
                         "description": "muga: at most one tone tag, leading, such as [happy] (optional)."},
                "model": _nullable({"enum": TTS_MODELS, "default": "muga"}),
                "description": _nullable({"type": "string", "description": "mulberry only"}),
                "speaker": _nullable({"type": "string", "description": "mulberry: speaker_1…speaker_4"}),
                "f0_up_key": _nullable({"type": "number", "minimum": -12, "maximum": 12}),
                **{name: _nullable({"type": "number"}) for name in ("temperature", "top_p", "repetition_penalty")},
                **{name: _nullable({"type": "integer"}) for name in ("top_k", "max_new_tokens")},
            },
            "required": ["text"],
        },
        "TtsStreamRequest": {
            "type": "object", "title": "TtsStreamRequest", "x-source": R_TTS,
            "properties": {"model": _nullable({"enum": TTS_MODELS, "default": "muga"}),
                           "text": {"type": "string", "minLength": 1, "maxLength": 2000}},
            "required": ["text"],
        },
        "TtsStreamSession": {
            "type": "object", "title": "TtsStreamSession", "x-source": R_TTS,
            "properties": {"ws_url": {"type": "string", "description": "Connect with ?token=<token> (see "
                                      "/asyncapi.json, channel ttsStream)."},
                           "token": {"type": "string"}, "request_id": {"type": "string"}},
            "required": ["ws_url", "token", "request_id"],
        },
    }


def examples() -> dict[str, Any]:
    """A completed outbound call, a trunk and a version, as a fresh sandbox answers them."""
    clock = VirtualClock()
    state = SandboxState(clock)
    account = state.account(KEYS[0])
    now = state.now()
    agent = sorted((a for a in account.agents.values() if a.deployed), key=lambda a: a.created_at)[0]
    trunk = next(iter(trunks_of(account, state.origin).values()))
    to_number = "+919812340001"
    record = CallRecord(id="01a0c94d-2aeb-7131-8edc-e77564edae39", agent_id=agent.id, kind="outbound",
                        status=CALLING, created_at=now, to_number=to_number, from_trunk_id=trunk.id,
                        steps=plan(Outcome.ANSWERED, account, agent, now))
    end = record.ends_at() or now
    expires = int(end.timestamp()) + RECORDING_URL_SECONDS
    url = (f"http://127.0.0.1:8787/sandbox/recordings/{record.id}?expires={expires}"
           f"&signature={signature(account, record.id, expires)}")
    web = CallRecord(id="3f1c9a52-0b7e-4d61-9a3f-5c8e2d4b7a10", agent_id=agent.id, kind="web", status=CALLING,
                     created_at=now, started_at=now,
                     steps=[Step(now + timedelta(seconds=CALL_HOLD_SECONDS), EXPIRED, "no_participant")])
    return {
        "call_request": {"agentId": agent.handle, "toNumber": to_number, "fromTrunkId": trunk.id},
        "call_accepted": {"callId": record.id, "status": CALLING, "toNumber": to_number},
        "call": record.to_wire(end, url),
        "web_call": web.to_wire(web.ends_at() or now, None),
        "trunk": trunk.to_wire(account),
        "trunk_request": {"phoneNumber": "+912071234599", "terminationUri": "sip:pbx.example.com",
                          "username": "clinic", "password": "secret", "assignedAgentId": agent.handle},
        "versions": {"items": [{"version": 1, "agentId": agent.id, "deployedAt": iso(agent.updated_at),
                                "name": agent.name, "systemInstruction": agent.system_instruction,
                                "greeting": agent.greeting, "ttsConfig": agent.tts_config}], "count": 1},
        "register_request": {"agent_id": agent.handle},
        "register": {"access_token": "wct_" + "0" * 32, "expires_in": 300, "sample_rate": 24000,
                     "call_id": "45a2200c-b77e-5669-8622-9e3c818d0925"},
        "tts_request": {"text": "[happy] Namaste! Your appointment is confirmed.", "model": "muga"},
        "tts_stream_request": {"model": "muga", "text": "[neutral] Namaste!"},
        "tts_stream": {"ws_url": "ws://127.0.0.1:8787/v1/tts/ws/0f1e2d3c4b5a69788796a5b4c3d2e1f0",
                       "token": "tts_" + "0" * 32, "request_id": "0f1e2d3c4b5a69788796a5b4c3d2e1f0"},
    }
