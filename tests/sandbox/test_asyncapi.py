"""The sockets' AsyncAPI 3.0 document (issue 23, point 6): served without a key, valid against the
AsyncAPI Initiative's own JSON Schema for 3.0.0, and carrying every server event and client
message of the reference (voice.md §3.4, §3.5, §5) with its exact fields, and the close codes.

tests/sandbox/schemas/asyncapi-3.0.0.json is ``schemas/3.0.0-without-$id.json`` of the npm package
``@asyncapi/specs`` 6.11.1 (Apache-2.0, the AsyncAPI Initiative; NOTICE beside it), shipped so the
test needs no network; sha256 abe96881dbfaad495ccbb6bd8d3fb43ca18a13b9d7564849ccb66f39d5e5b20f.
"""

from __future__ import annotations

import copy
import hashlib
import json
from pathlib import Path
from typing import Any

import httpx
import jsonschema
import pytest

from vap_console.sandbox.voice.asyncapi import asyncapi_json, build_asyncapi

SCHEMA = Path(__file__).parent / "schemas" / "asyncapi-3.0.0.json"
SHA256 = "abe96881dbfaad495ccbb6bd8d3fb43ca18a13b9d7564849ccb66f39d5e5b20f"

# voice.md §3.4 and §3.5: type → its exact fields.
AGENT_SERVER = {
    "session.created": {"session_id", "call_id", "sample_rate", "channels"},
    "output_audio.delta": {"audio"},
    "agent_start_talking": {"timestamp"},
    "agent_stop_talking": {"timestamp"},
    "interruption": set(),
    "transcript": {"role", "text"},
    "transcript.delta": {"role", "text"},
    "session.closed": {"reason"},
    # The sandbox's own extension (--call-tools): marked so, never passed off as the vendor's.
    "sandbox.tool_call": {"name", "kind", "status", "ms", "outputs", "error"},
    "error": {"code", "message"},
}
AGENT_CLIENT = {
    "input_audio_buffer.append": {"audio"},
    "input_audio_buffer.commit": set(),
    "input_text.send": {"text"},
    "session.close": set(),
}
# voice.md §5: the speech socket's JSON control frames (the audio itself is binary).
TTS_SERVER = {"queued": {"queue_depth"}, "done": {"audio_duration", "rtf"}, "timeout": {"message"},
              "error": {"message"}, "cancelled": set()}
TTS_CLIENT = {"close": set(), "cancel": set()}


@pytest.fixture(scope="module")
def validator() -> jsonschema.Draft7Validator:
    assert hashlib.sha256(SCHEMA.read_bytes()).hexdigest() == SHA256
    schema = json.loads(SCHEMA.read_text())
    jsonschema.Draft7Validator.check_schema(schema)
    return jsonschema.Draft7Validator(schema)


@pytest.fixture(scope="module")
def document() -> dict[str, Any]:
    return build_asyncapi()


def test_the_document_is_valid_asyncapi_3(validator: jsonschema.Draft7Validator, document: dict[str, Any]) -> None:
    errors = [f"{list(e.absolute_path)}: {e.message[:200]}" for e in validator.iter_errors(document)]
    assert errors == []
    # The schema is a real check: a wrong version, a channel without an address field's type, an
    # operation with an unknown action are refused.
    for path, value in ((("asyncapi",), "2.6.0"), (("channels", "agentConnect", "address"), 5),
                        (("operations", "sendAgentEvents", "action"), "publish")):
        broken = copy.deepcopy(document)
        target = broken
        for part in path[:-1]:
            target = target[part]
        target[path[-1]] = value
        assert any(True for _ in validator.iter_errors(broken)), path


def test_every_reference_resolves(document: dict[str, Any]) -> None:
    def refs(node: Any) -> list[str]:
        if isinstance(node, dict):
            return ([node["$ref"]] if "$ref" in node else []) + [r for v in node.values() for r in refs(v)]
        if isinstance(node, list):
            return [r for v in node for r in refs(v)]
        return []

    found = refs(document)
    assert len(found) > 40
    for ref in found:
        target: Any = document
        for part in ref.removeprefix("#/").split("/"):
            target = target[part]
        assert isinstance(target, dict), ref


def _by_type(document: dict[str, Any], operation: str) -> dict[str, set[str]]:
    """type → fields of the JSON messages an operation carries."""
    op = document["operations"][operation]
    channel = op["channel"]["$ref"].split("/")[-1]
    out = {}
    for ref in op["messages"]:
        name = ref["$ref"].split("/")[-1]
        assert ref["$ref"] == f"#/channels/{channel}/messages/{name}"
        message = document["components"]["messages"][name]
        payload = message["payload"]
        if message["contentType"] != "application/json" or "type" not in payload.get("properties", {}):
            continue
        fields = set(payload["properties"]) - {"type"}
        assert set(payload["required"]) == fields | {"type"}, name
        out[payload["properties"]["type"]["const"]] = fields
    return out


def test_every_event_and_message_of_the_agent_socket_with_its_exact_fields(document: dict[str, Any]) -> None:
    assert _by_type(document, "sendAgentEvents") == AGENT_SERVER
    assert _by_type(document, "receiveAgentMessages") == AGENT_CLIENT
    assert document["operations"]["sendAgentEvents"]["action"] == "send"
    channel = document["channels"]["agentConnect"]
    assert channel["address"] == "/v1/agent/connect"
    assert channel["bindings"]["ws"]["query"]["required"] == ["token"]
    codes = {c["code"]: c["meaning"] for c in channel["x-close-codes"]}
    assert {4401, 4000, 1000} <= set(codes) and "spent" in codes[4401] and "error frame" in codes[4000]
    assert all(str(code) in channel["description"] for code in codes)


def test_every_frame_of_the_speech_socket(document: dict[str, Any]) -> None:
    assert _by_type(document, "sendSpeech") == TTS_SERVER
    assert _by_type(document, "receiveSynthesis") == TTS_CLIENT
    messages = document["components"]["messages"]
    assert messages["ttsAudio"]["contentType"] == "application/octet-stream"
    assert messages["ttsSynthesis"]["payload"]["required"] == ["text"]
    assert "model" not in messages["ttsSynthesis"]["payload"]["properties"]  # chosen at mint only
    assert all(m["x-source"].startswith(("[R]", "[T]")) or (m["x-source"] == "sandbox" and m["name"].startswith("sandbox."))
               for m in messages.values())
    channel = document["channels"]["ttsStream"]
    assert set(channel["parameters"]) == {"request_id"} and "{request_id}" in channel["address"]
    assert {c["code"] for c in channel["x-close-codes"]} == {1000, 4001, 4029}


def test_the_examples_fit_their_payloads(document: dict[str, Any]) -> None:
    examples = 0
    for message in document["components"]["messages"].values():
        for example in message.get("examples", []):
            jsonschema.Draft7Validator(message["payload"]).validate(example["payload"])
            examples += 1
    assert examples >= 3


async def test_it_is_served_without_a_key(sandbox_transport: httpx.ASGITransport) -> None:
    async with httpx.AsyncClient(transport=sandbox_transport, base_url="http://sandbox") as client:
        response = await client.get("/asyncapi.json")
    assert response.status_code == 200 and response.headers["content-type"].startswith("application/json")
    assert response.json() == json.loads(asyncapi_json())
