"""The rules a new tool is checked against before it is sent (spec 2.4), without any UI.

The console's tool form (tui/screens/tool_form.py, tool_form_fields.py) and `vap tools create
--file` both use them, so a file is refused for the same reasons, in the same words, as the form.
Each problem names the field by its wire path (``config.auth.token``) and the rule.
"""

from __future__ import annotations

import re
from decimal import Decimal
from typing import Any

from pydantic import ValidationError

from vap_console.api.models import (
    TOOL_DESCRIPTION_MAX,
    TOOL_NAME_MAX,
    TOOL_NAME_PATTERN,
    ToolCreate,
    ToolKind,
)

METHODS = ("GET", "POST", "PUT", "PATCH", "DELETE")
AUTH_TYPES = ("none", "bearer", "basic", "api_key")
# The spec's patterns mean the whole string; in Python a `$` also matches before a final newline
# ("lookup\n"), so they end in \Z here and `.match` (as the tool form uses them) checks it all.
NAME_RE = re.compile(TOOL_NAME_PATTERN.removesuffix("$") + r"\Z")
URL_RE = re.compile(r"^https?://\S+\Z")
TIMEOUT_MAX_MS = 600_000
_DURATION = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*(ms|s)?\s*$", re.IGNORECASE)

NAME_REQUIRED = "is required"
NAME_TOO_LONG = f"at most {TOOL_NAME_MAX} characters"
NAME_SHAPE = "must start with a letter and hold only letters, digits and _"
DESCRIPTION_RULE = f"must be 1 to {TOOL_DESCRIPTION_MAX} characters"
URL_RULE = "must be an http:// or https:// URL"
LLM_PARAMS_KIND = "only a during_call tool takes llmParams (the model supplies them)"
OUTPUT_NAME_RULE = "a variable name starts with a letter, then letters, digits or _"

Problems = dict[str, list[str]]


def timeout_ms(text: str) -> int:
    """``10000`` or ``10000ms`` → 10000, ``12.5s`` → 12500; ValueError naming the rule otherwise.

    Never a silent change: what is not a whole number of milliseconds is refused and said why.
    """
    match = _DURATION.match(text)
    if not match:
        raise ValueError("write milliseconds (10000) or seconds with an s (12.5s)")
    seconds = (match.group(2) or "ms").lower() == "s"
    value = Decimal(match.group(1)) * (1000 if seconds else 1)
    if value != value.to_integral_value():
        raise ValueError(f"{text.strip()} is {value.normalize():f} ms: a timeout is whole milliseconds")
    ms = int(value)
    if not 1 <= ms <= TIMEOUT_MAX_MS:
        raise ValueError(f"must be from 1 ms to {TIMEOUT_MAX_MS:,} ms (10 minutes)")
    return ms


def name_problems(name: str) -> list[str]:
    found = []
    if not name:
        found.append(NAME_REQUIRED)
    if len(name) > TOOL_NAME_MAX:
        found.append(NAME_TOO_LONG)
    if not NAME_RE.match(name):
        found.append(NAME_SHAPE)
    return found


def auth_problems(auth_type: str, token: str, password: str, header_name: str, username: str) -> Problems:
    """What an auth section lacks for its type (the credential itself is never echoed)."""
    errs: Problems = {}

    def add(path: str, message: str) -> None:
        errs.setdefault(path, []).append(message)

    if auth_type == "bearer" and not token:
        add("config.auth.token", "bearer auth needs a token")
    if auth_type == "basic":
        if not username:
            add("config.auth.username", "basic auth needs a username")
        if not password:
            add("config.auth.password", "basic auth needs a password")
    if auth_type == "api_key":
        if not token:
            add("config.auth.token", "api_key auth needs the key as token")
        if not header_name:
            add("config.auth.headerName", "api_key auth needs the header name")
    if auth_type == "none" and (token or password):
        add("config.auth.type", "choose an auth type for the credential typed below")
    return errs


def _text(value: Any) -> str:
    return value.strip() if isinstance(value, str) else ""


def check_tool_document(data: Any) -> tuple[ToolCreate | None, Problems]:
    """A tool as the API takes it (``POST /v1/tools``'s JSON body), checked with the form's rules:
    the body to send, or None and every problem by field."""
    errs: Problems = {}

    def add(path: str, message: str) -> None:
        errs.setdefault(path, []).append(message)

    if not isinstance(data, dict):
        return None, {"tool": ["must be a JSON object with name, description, kind and config"]}
    for path, value in (("name", data.get("name")), ("description", data.get("description")),
                        ("kind", data.get("kind"))):
        if value is not None and not isinstance(value, str):
            add(path, "must be a string")
    # The name as it will be sent: a file's "lookup\n" or " lookup" is refused, not sent as is.
    raw_name = data.get("name")
    name = raw_name if isinstance(raw_name, str) else ""
    for problem in name_problems(name):
        add("name", problem)
    description = _text(data.get("description"))
    if not 1 <= len(description) <= TOOL_DESCRIPTION_MAX:
        add("description", DESCRIPTION_RULE)
    kind = data.get("kind", ToolKind.BEFORE_CALL)
    if kind not in ToolKind.ALL:
        add("kind", f"must be one of {', '.join(ToolKind.ALL)}")
    config = data.get("config")
    if not isinstance(config, dict):
        add("config", "is required: an object with at least url")
        return None, errs
    method = config.get("method", "GET")
    if method not in METHODS:
        add("config.method", f"must be one of {', '.join(METHODS)}")
    if not URL_RE.match(_text(config.get("url"))):
        add("config.url", URL_RULE)
    timeout = config.get("timeoutMs")
    if timeout is not None:
        if isinstance(timeout, bool) or not isinstance(timeout, int):
            add("config.timeoutMs", "must be a whole number of milliseconds")
        else:
            try:
                timeout_ms(str(timeout))
            except ValueError as exc:
                add("config.timeoutMs", str(exc))
    for path, sep_name in (("params", "value"), ("headers", "value")):
        items = config.get(path)
        if items is None:
            continue
        if not isinstance(items, list) or not all(
            isinstance(i, dict) and _text(i.get("name")) and isinstance(i.get(sep_name), str) for i in items
        ):
            add(f"config.{path}", "must be a list of {name, value} with a name on each")
    llm = config.get("llmParams")
    if llm:
        if kind != ToolKind.DURING_CALL:
            add("config.llmParams", LLM_PARAMS_KIND)
        for n, item in enumerate(llm if isinstance(llm, list) else [None], 1):
            pname = _text(item.get("name")) if isinstance(item, dict) else ""
            if not NAME_RE.match(pname):
                add("config.llmParams", f"item {n}: {pname or '(empty)'} is not a valid parameter name")
    outputs = config.get("outputs")
    for item in outputs if isinstance(outputs, list) else ([] if outputs is None else [None]):
        oname = _text(item.get("name")) if isinstance(item, dict) else ""
        if not NAME_RE.match(oname) or not (isinstance(item, dict) and _text(item.get("path"))):
            add("config.outputs", f"{oname or '(empty)'}: {OUTPUT_NAME_RULE}, with a path")
    auth = config.get("auth")
    if auth is not None:
        if not isinstance(auth, dict):
            add("config.auth", "must be an object")
        else:
            auth_type = auth.get("type") or "none"
            if auth_type not in AUTH_TYPES:
                add("config.auth.type", f"must be one of {', '.join(AUTH_TYPES)}")
            for path, problems in auth_problems(
                auth_type, _text(auth.get("token")), _text(auth.get("password")),
                _text(auth.get("headerName")), _text(auth.get("username")),
            ).items():
                errs.setdefault(path, []).extend(problems)
    if errs:
        return None, errs
    try:
        return ToolCreate.model_validate(data), {}
    except ValidationError as exc:
        for error in exc.errors(include_input=False):
            add(".".join(str(p) for p in error["loc"]) or "tool", error["msg"])
        return None, errs
