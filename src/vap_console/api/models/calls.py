"""Calls: an outbound call placed (``POST /v1/calls``), a call's record (``GET /v1/calls/{id}``)
and the SIP trunk a call goes out through (``GET /v1/sip-trunks/{id}``).

No page of the real service documents these (reference voice.md §4: every field is from one
third party's client), so the models are tolerant: every field but the id may be missing or null,
an unknown status is kept as it came, and a transcript turn may carry its words in ``content`` or
in ``text``.
"""

from __future__ import annotations

import re
from datetime import datetime
from typing import Any

from pydantic import model_validator

from vap_console.api.models.wire import _Wire

# A client polls a record until one of these (voice.md §4).
TERMINAL_STATUSES = frozenset({"completed", "failed", "expired"})


class PlacedCall(_Wire):
    """202 to ``POST /v1/calls``: the call exists and is ringing."""

    call_id: str
    status: str | None = None
    to_number: str | None = None


class TranscriptTurn(_Wire):
    role: str = "unknown"
    content: str = ""

    @model_validator(mode="before")
    @classmethod
    def _words(cls, data: Any) -> Any:
        # One reader of the service falls back to a `text` key: either is what was said.
        if isinstance(data, dict) and not isinstance(data.get("content"), str):
            text = data.get("text")
            data = {**data, "content": text if isinstance(text, str) else ""}
        if isinstance(data, dict) and not isinstance(data.get("role"), str):
            data = {**data, "role": "unknown"}
        return data


class ToolCallMade(_Wire):
    """One call of a tool's webhook during a call, as the record's ``toolCalls`` (a sandbox
    extension, issue 33) tells it: the tool's name, the HTTP status (None: no answer), the
    milliseconds and the error. A value of the wrong type reads as not told, never as a broken record."""

    name: str = "?"
    status: int | None = None
    ms: float | None = None
    error: str | None = None

    @model_validator(mode="before")
    @classmethod
    def _told(cls, data: Any) -> Any:
        if not isinstance(data, dict):
            return data  # refused by pydantic; CallRecord passes dicts only
        kinds = {"name": (str,), "status": (int,), "ms": (int, float), "error": (str,)}
        return {**data, **{key: None if key != "name" else "?" for key, kind in kinds.items()
                           if key in data and (isinstance(data[key], bool) or not isinstance(data[key], kind))}}


class CallRecord(_Wire):
    id: str
    status: str | None = None
    agent_id: str | None = None
    kind: str | None = None
    to_number: str | None = None
    from_trunk_id: str | None = None
    created_at: datetime | None = None
    started_at: datetime | None = None
    ended_at: datetime | None = None
    duration_seconds: float | None = None
    end_reason: str | None = None
    credits_charged: float | None = None
    transcript: list[TranscriptTurn] | None = None
    recording_url: str | None = None
    summary: str | None = None
    # The sandbox's extension (issue 33): None where the record has no such list (the real service).
    tool_calls: list[ToolCallMade] | None = None

    @model_validator(mode="before")
    @classmethod
    def _tool_calls(cls, data: Any) -> Any:
        if isinstance(data, dict) and "toolCalls" in data:
            told = data["toolCalls"]
            data = {**data, "toolCalls": [c for c in told if isinstance(c, dict)] if isinstance(told, list) else None}
        return data

    @property
    def ended(self) -> bool:
        return self.status in TERMINAL_STATUSES

    def __repr__(self) -> str:
        # The signed recording URL is a credential: never whole in a log or a traceback.
        return (f"CallRecord(id={self.id!r}, status={self.status!r}, "
                f"recording_url={'<signed>' if self.recording_url else None})")

    __str__ = __repr__


class SipTrunk(_Wire):
    id: str
    phone_number: str | None = None
    assigned_agent_id: str | None = None
    status: str | None = None
    has_auth: bool | None = None
    termination_uri: str | None = None


def recording_label(url: str | None) -> str:
    """A signed recording URL as it may be shown or logged: its host and the last part of its
    path, never the query (the signature is the credential)."""
    if not url:
        return "(none)"
    rest = url.split("?", 1)[0].split("#", 1)[0]
    scheme, _, after = rest.partition("://")
    host, _, path = after.partition("/")
    tail = path.rstrip("/").rsplit("/", 1)[-1]
    return f"{host or scheme}/…/{tail[:40]} (signed)" if tail else f"{host or scheme} (signed)"


_E164 = re.compile(r"\+[0-9]{8,15}")


def e164_problem(number: str) -> str | None:
    """Why ``number`` is not a number to call (E.164: '+' then 8 to 15 digits), or None."""
    text = number.strip()
    if not text:
        return "the number to call is required"
    if not text.startswith("+"):
        return "start with + and the country code (E.164), e.g. +919812340001"
    if not _E164.fullmatch(text):
        return "use + then 8 to 15 digits, no spaces or dashes (E.164)"
    return None
