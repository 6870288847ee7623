"""The sandbox's two sockets as an AsyncAPI 3.0 document: ``GET /asyncapi.json`` (no key needed).

The realtime agent socket (``/v1/agent/connect?token=wct_…``) and the speech-synthesis socket
(the ``ws_url`` that ``POST /v1/tts/ws-connect`` answers), every server event and client message
with its exact fields, as the reference gives them (voice.md §3.4, §3.5, §3.6 and §5). The
document describes the sandbox: ``send`` is what the server sends, ``receive`` what it takes.
Each message carries ``x-source``: [R] published by the vendor, [T] a third party's.
"""

from __future__ import annotations

import functools
import json
from typing import Any

from starlette.requests import Request
from starlette.responses import Response

from vap_console import __version__
from vap_console.sandbox.gateway import ASYNCAPI_PATH

__all__ = ["ASYNCAPI_PATH", "asyncapi_document", "asyncapi_json", "build_asyncapi"]

_REF = "#/components/messages/{name}"
PROTOCOL = "ira-rumik/cookbooks docs/protocol-reference.md"
TTS_CLIENT = "ira-rumik/pipecat src/pipecat/services/rumik/tts.py"

AUDIO = {"type": "string", "contentEncoding": "base64",
         "description": "PCM signed 16-bit little-endian, 24 kHz, mono, base64 in the JSON."}
TIMESTAMP = {"type": "string", "format": "date-time", "description": "ISO 8601"}
ROLE = {"type": "string", "enum": ["user", "assistant"]}

# Close codes of the agent socket (voice.md §3.6).
AGENT_CLOSE_CODES = [
    {"code": 4401, "meaning": "token unknown, already spent or expired: mint a new one; can come before any frame",
     "source": "[R]"},
    {"code": 4000, "meaning": "the call could not start; the error frame just before says why "
                              "(insufficient_balance, concurrency_limit_exceeded, agent_start_failed, not_configured)",
     "source": "[R]"},
    {"code": 1000, "meaning": "normal end, after session.closed", "source": "[R]"},
    {"code": 1011, "meaning": "the sandbox's injected fault: the socket dropped mid-call", "source": "sandbox"},
]
# Close codes of the speech socket: the vendor publishes none beyond a normal close.
TTS_CLOSE_CODES = [
    {"code": 1000, "meaning": "normal end: after a close frame, or after timeout", "source": "[R]"},
    {"code": 4001, "meaning": "token unknown, already spent or expired: mint a new one (an error frame first)",
     "source": "sandbox"},
    {"code": 4029, "meaning": "every concurrent slot is taken (an error frame first)", "source": "sandbox"},
]


def _frame(kind: str, fields: dict[str, Any], *, required: list[str] | None = None) -> dict[str, Any]:
    return {
        "type": "object",
        "properties": {"type": {"type": "string", "const": kind}, **fields},
        "required": ["type", *(list(fields) if required is None else required)],
    }


def _message(name: str, kind: str | None, summary: str, payload: dict[str, Any], source: str,
             *, content_type: str = "application/json", example: dict[str, Any] | None = None) -> dict[str, Any]:
    message: dict[str, Any] = {
        "name": kind or name, "title": kind or name, "summary": summary,
        "contentType": content_type, "payload": payload, "x-source": source,
    }
    if example is not None:
        message["examples"] = [{"name": name, "payload": example}]
    return message


def _agent_messages() -> dict[str, dict[str, Any]]:
    src = f"[R] {PROTOCOL}"
    return {
        "sessionCreated": _message(
            "sessionCreated", "session.created", "Always the first frame; billing starts here.",
            _frame("session.created", {"session_id": {"type": "string"}, "call_id": {"type": "string",
                   "description": "The call record's id: GET /v1/calls/{call_id}."},
                   "sample_rate": {"type": "integer", "const": 24000}, "channels": {"type": "integer", "const": 1}}),
            src, example={"type": "session.created", "session_id": "sess_1", "call_id": "3f1c9a52-0b7e-4d61-9a3f-"
                          "5c8e2d4b7a10", "sample_rate": 24000, "channels": 1}),
        "outputAudioDelta": _message(
            "outputAudioDelta", "output_audio.delta", "20 ms of agent speech (960 bytes of PCM); play back to back.",
            _frame("output_audio.delta", {"audio": AUDIO}), src),
        "agentStartTalking": _message(
            "agentStartTalking", "agent_start_talking", "The agent starts a turn (best-effort).",
            _frame("agent_start_talking", {"timestamp": TIMESTAMP}), src),
        "agentStopTalking": _message(
            "agentStopTalking", "agent_stop_talking", "The agent ends a turn (best-effort).",
            _frame("agent_stop_talking", {"timestamp": TIMESTAMP}), src),
        "interruption": _message(
            "interruption", "interruption", "The caller spoke over the agent: flush the playback buffer.",
            _frame("interruption", {}), src),
        "transcript": _message(
            "transcript", "transcript", "A settled turn (best-effort).",
            _frame("transcript", {"role": ROLE, "text": {"type": "string"}}), src,
            example={"type": "transcript", "role": "assistant", "text": "Namaste! How can I help?"}),
        "transcriptDelta": _message(
            "transcriptDelta", "transcript.delta", "The turn so far (best-effort).",
            _frame("transcript.delta", {"role": ROLE, "text": {"type": "string"}}), src),
        "sessionClosed": _message(
            "sessionClosed", "session.closed", "The call ended; the socket closes right after (1000).",
            _frame("session.closed", {"reason": {"type": "string", "enum": [
                "client_requested", "ended", "max_duration", "error"]}}), src),
        "agentError": _message(
            "agentError", "error", "A malformed frame (the call goes on), or a fatal error followed by close 4000.",
            _frame("error", {"code": {"type": "string", "examples": [
                "insufficient_balance", "concurrency_limit_exceeded", "agent_start_failed", "not_configured",
                "invalid_audio", "invalid_text", "invalid_frame", "unknown_type"],
                "description": "The four fatal codes are the vendor's; a malformed frame's are the sandbox's: "
                               "invalid_audio, invalid_text, invalid_frame, unknown_type (docs/sandbox-voice.md)."},
                "message": {"type": "string"}}), src),
        "sandboxToolCall": _message(
            "sandboxToolCall", "sandbox.tool_call",
            "Sandbox extension, only with `vap sandbox serve --call-tools`: a tool's webhook was called "
            "(before_call ones after session.created, a during_call one before the answer that uses it). "
            "The call record's toolCalls has the request too (GET /v1/calls/{call_id}).",
            _frame("sandbox.tool_call", {
                "name": {"type": "string"}, "kind": {"type": "string", "enum": ["before_call", "during_call"]},
                "status": {"type": ["integer", "null"]}, "ms": {"type": ["number", "null"]},
                "outputs": {"type": "object", "additionalProperties": {"type": "string"}},
                "error": {"type": ["string", "null"]}}), "sandbox",
            example={"type": "sandbox.tool_call", "name": "book_appointment", "kind": "during_call",
                     "status": 200, "ms": 84.2, "outputs": {"appointment_slot": "Friday 10 am"}, "error": None}),
        "inputAudioAppend": _message(
            "inputAudioAppend", "input_audio_buffer.append",
            "Caller audio, sent continuously after session.created; at most 1 s (48,000 bytes) a frame.",
            _frame("input_audio_buffer.append", {"audio": AUDIO}), src),
        "inputAudioCommit": _message(
            "inputAudioCommit", "input_audio_buffer.commit",
            "Accepted for compatibility; the server's voice detection decides turns.",
            _frame("input_audio_buffer.commit", {}), src),
        "inputTextSend": _message(
            "inputTextSend", "input_text.send", "Type instead of talk: a user turn as text.",
            _frame("input_text.send", {"text": {"type": "string"}}), src,
            example={"type": "input_text.send", "text": "What are your opening hours?"}),
        "sessionClose": _message(
            "sessionClose", "session.close", "Polite hang-up: session.closed comes back first.",
            _frame("session.close", {}), src),
    }


def _tts_messages() -> dict[str, dict[str, Any]]:
    src = f"[R] {TTS_CLIENT}; docs.rumik.ai/streaming"
    return {
        "ttsSynthesis": _message(
            "ttsSynthesis", None, "One utterance to speak (model is chosen at mint, not here); one in flight "
                                  "at a time, the socket stays open across utterances.",
            {"type": "object", "properties": {
                "text": {"type": "string", "maxLength": 2000}, "description": {"type": "string"},
                "speaker": {"type": "string"}, "f0_up_key": {"type": "number", "minimum": -12, "maximum": 12},
                "temperature": {"type": "number"}, "top_p": {"type": "number"}, "top_k": {"type": "integer"},
                "repetition_penalty": {"type": "number"}, "max_new_tokens": {"type": "integer"}},
             "required": ["text"]}, src, example={"text": "[happy] Namaste!"}),
        "ttsClose": _message("ttsClose", "close", "Sent before closing the socket.", _frame("close", {}), src),
        "ttsCancel": _message("ttsCancel", "cancel", "Barge-in: drop the utterance in flight (a third party's; "
                                                     "the vendor's client reconnects instead).",
                              _frame("cancel", {}), "[T] code-index id 68754293081"),
        "ttsAudio": _message(
            "ttsAudio", "audio", "A binary frame of raw PCM signed 16-bit little-endian, 24 kHz, mono.",
            {"type": "string", "format": "binary"}, src, content_type="application/octet-stream"),
        "ttsQueued": _message("ttsQueued", "queued", "The utterance waits behind others.",
                              _frame("queued", {"queue_depth": {"type": "integer", "minimum": 0}}), src),
        "ttsDone": _message("ttsDone", "done", "The utterance's audio is all sent.",
                            _frame("done", {"audio_duration": {"type": "number", "description": "seconds"},
                                            "rtf": {"type": "number", "description": "real-time factor"}}), src),
        "ttsTimeout": _message("ttsTimeout", "timeout", "The socket sat idle too long and closes.",
                               _frame("timeout", {"message": {"type": "string"}}), src),
        "ttsError": _message("ttsError", "error", "The utterance failed.",
                             _frame("error", {"message": {"type": "string"}}), src),
        "ttsCancelled": _message("ttsCancelled", "cancelled", "Answer to cancel (a third party's).",
                                 _frame("cancelled", {}), "[T] code-index id 68754293081"),
    }


AGENT_SENT = ["sessionCreated", "outputAudioDelta", "agentStartTalking", "agentStopTalking", "interruption",
              "transcript", "transcriptDelta", "sessionClosed", "agentError", "sandboxToolCall"]
AGENT_RECEIVED = ["inputAudioAppend", "inputAudioCommit", "inputTextSend", "sessionClose"]
TTS_SENT = ["ttsAudio", "ttsQueued", "ttsDone", "ttsTimeout", "ttsError", "ttsCancelled"]
TTS_RECEIVED = ["ttsSynthesis", "ttsClose", "ttsCancel"]


def _channel_messages(names: list[str]) -> dict[str, Any]:
    return {name: {"$ref": _REF.format(name=name)} for name in names}


def _operation(channel: str, action: str, names: list[str], summary: str) -> dict[str, Any]:
    return {"action": action, "channel": {"$ref": f"#/channels/{channel}"}, "summary": summary,
            "messages": [{"$ref": f"#/channels/{channel}/messages/{name}"} for name in names]}


def build_asyncapi() -> dict[str, Any]:
    close_text = "; ".join(f"{c['code']}: {c['meaning']} {c['source']}" for c in AGENT_CLOSE_CODES)
    return {
        "asyncapi": "3.0.0",
        "info": {
            "title": "Voice Agent Platform sockets (vap-console sandbox)",
            "version": "1.0.0",
            "description": f"The realtime agent socket and the speech-synthesis socket as the vap-console sandbox "
                           f"(vap-console {__version__}) serves them, after the vendor's published protocol. "
                           "JSON text frames both ways on the agent socket; clients ignore binary frames there.",
        },
        "defaultContentType": "application/json",
        "servers": {"sandbox": {"host": "127.0.0.1:8787", "protocol": "ws",
                                "description": "vap sandbox serve (ws:// for http://, wss:// for https://)"}},
        "channels": {
            "agentConnect": {
                "address": "/v1/agent/connect",
                "title": "Realtime agent socket",
                "description": "Connect with ?token= the access_token of POST /v1/register-call (one use, 300 s). "
                               "Wait for session.created before sending audio. Close codes: " + close_text,
                "messages": _channel_messages(AGENT_SENT + AGENT_RECEIVED),
                "bindings": {"ws": {"method": "GET", "query": {
                    "type": "object", "properties": {"token": {"type": "string", "pattern": "^wct_"}},
                    "required": ["token"]}}},
                "x-close-codes": AGENT_CLOSE_CODES,
                "x-source": f"[R] {PROTOCOL}",
            },
            "ttsStream": {
                "address": "/v1/tts/ws/{request_id}",
                "title": "Speech-synthesis socket",
                "description": "The ws_url that POST /v1/tts/ws-connect answers (take it as given: the vendor's "
                               "own path differs), with ?token=<token> (&token= when the URL has a query already). "
                               "JSON synthesis frames in; binary PCM frames and JSON control frames out. Close "
                               "codes: " + "; ".join(f"{c['code']}: {c['meaning']} {c['source']}"
                                                     for c in TTS_CLOSE_CODES),
                "parameters": {"request_id": {"description": "request_id of POST /v1/tts/ws-connect"}},
                "messages": _channel_messages(TTS_SENT + TTS_RECEIVED),
                "bindings": {"ws": {"method": "GET", "query": {
                    "type": "object", "properties": {"token": {"type": "string"}}, "required": ["token"]}}},
                "x-close-codes": TTS_CLOSE_CODES,
                "x-source": f"[R] {TTS_CLIENT}; docs.rumik.ai/streaming",
            },
        },
        "operations": {
            "sendAgentEvents": _operation("agentConnect", "send", AGENT_SENT, "Server → client events"),
            "receiveAgentMessages": _operation("agentConnect", "receive", AGENT_RECEIVED, "Client → server messages"),
            "sendSpeech": _operation("ttsStream", "send", TTS_SENT, "Audio and control frames"),
            "receiveSynthesis": _operation("ttsStream", "receive", TTS_RECEIVED, "Synthesis and control frames"),
        },
        "components": {"messages": {**_agent_messages(), **_tts_messages()}},
    }


@functools.cache
def asyncapi_json() -> str:
    return json.dumps(build_asyncapi(), indent=2, ensure_ascii=False) + "\n"


async def asyncapi_document(request: Request) -> Response:
    return Response(asyncapi_json(), media_type="application/json")
