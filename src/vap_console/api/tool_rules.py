"""The rules a new tool is checked against before it is sent (spec 2.4), without any UI.

The console's tool form (tui/screens/tool_form.py, tool_form_fields.py) and `vap tools create
--file` both use them, so a file is refused for the same reasons, in the same words, as the form.
Each problem names the field by its wire path (``config.auth.token``) and the rule. The numbers and
patterns are ``api/limits.py``'s, which the sandbox checks too.
"""

from __future__ import annotations

import re
from decimal import Decimal
from typing import Any

from pydantic import ValidationError

from vap_console.api import limits
from vap_console.api.models import ToolCreate, ToolKind

METHODS = limits.TOOL_METHODS
AUTH_TYPES = limits.TOOL_AUTH_TYPES
# Matched with `.match`, as the tool form uses them: each means the whole string.
NAME_RE = limits.whole(limits.TOOL_NAME_PATTERN)
URL_RE = limits.whole(limits.TOOL_URL_PATTERN)
OUTPUT_NAME_RE = limits.whole(limits.VARIABLE_NAME_PATTERN)
_DURATION = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*(ms|s)?\s*$", re.IGNORECASE)

NAME_REQUIRED = "is required"
NAME_TOO_LONG = f"at most {limits.TOOL_NAME.high} characters"
NAME_SHAPE = "must start with a letter and hold only letters, digits and _"
DESCRIPTION_RULE = f"must be {limits.TOOL_DESCRIPTION.rule()}"
URL_RULE = "must be an http:// or https:// URL with a host name or IPv4 address, with no spaces"
LLM_PARAMS_KIND = "only a during_call tool takes llmParams (the model supplies them)"
OUTPUT_NAME_RULE = "a variable name starts with a letter or _, then letters, digits or _"

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
    if not limits.TOOL_TIMEOUT_MS.allows(ms):
        raise ValueError(f"must be {limits.TOOL_TIMEOUT_MS.rule()}")
    return ms


def name_problems(name: str) -> list[str]:
    found = []
    if not name:
        found.append(NAME_REQUIRED)
    if len(name) > limits.TOOL_NAME.high:
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


def _length(add: Any, path: str, value: str, limit: limits.Limit, what: str = "") -> None:
    problem = limit.problem(len(value))
    if problem:
        add(path, f"{what}{problem}" if what else problem)


def _count(add: Any, path: str, items: list[Any]) -> None:
    problem = limits.TOOL_LIST.problem(len(items))
    if problem:
        add(path, problem)


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
    # Measured as it will be sent (a file's text is sent as written), and never blank.
    raw_description = data.get("description")
    description = raw_description if isinstance(raw_description, str) else ""
    if not limits.TOOL_DESCRIPTION.allows(len(description)) or not description.strip():
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
    raw_url = config.get("url")
    url = raw_url if isinstance(raw_url, str) else ""
    if not URL_RE.match(url):
        add("config.url", URL_RULE)
    _length(add, "config.url", url, limits.TOOL_URL)
    for path, limit in (("body", limits.TOOL_BODY), ("curl", limits.TOOL_BODY), ("action", limits.TOOL_ACTION),
                        ("performedAction", limits.TOOL_ACTION)):
        value = config.get(path)
        if value is not None and not isinstance(value, str):
            add(f"config.{path}", "must be a string")
        elif value is not None:
            _length(add, f"config.{path}", value, limit)
    timeout = config.get("timeoutMs")
    if timeout is not None:
        if isinstance(timeout, bool) or not isinstance(timeout, int):
            add("config.timeoutMs", "must be a whole number of milliseconds")
        else:
            try:
                timeout_ms(str(timeout))
            except ValueError as exc:
                add("config.timeoutMs", str(exc))
    for path in ("params", "headers"):
        items = config.get(path)
        if items is None:
            continue
        if not isinstance(items, list) or not all(
            isinstance(i, dict) and _text(i.get("name")) and isinstance(i.get("value"), str) for i in items
        ):
            add(f"config.{path}", "must be a list of {name, value} with a name on each")
            continue
        _count(add, f"config.{path}", items)
        for n, item in enumerate(items, 1):
            _length(add, f"config.{path}", item["name"], limits.TOOL_PAIR_NAME, f"item {n}: name ")
            _length(add, f"config.{path}", item["value"], limits.TOOL_PAIR_VALUE, f"item {n}: value ")
    llm = config.get("llmParams")
    if llm:
        if kind != ToolKind.DURING_CALL:
            add("config.llmParams", LLM_PARAMS_KIND)
        if isinstance(llm, list):
            _count(add, "config.llmParams", llm)
        for n, item in enumerate(llm if isinstance(llm, list) else [None], 1):
            pname = _text(item.get("name")) if isinstance(item, dict) else ""
            if not NAME_RE.match(pname):
                add("config.llmParams", f"item {n}: {pname or '(empty)'} is not a valid parameter name")
    outputs = config.get("outputs")
    if isinstance(outputs, list):
        _count(add, "config.outputs", outputs)
    seen: set[str] = set()
    for item in outputs if isinstance(outputs, list) else ([] if outputs is None else [None]):
        oname = _text(item.get("name")) if isinstance(item, dict) else ""
        opath = item.get("path") if isinstance(item, dict) else None
        # The spec: "path is a dotted path into the response (empty string is accepted)".
        if not OUTPUT_NAME_RE.match(oname) or not isinstance(opath, str):
            add("config.outputs", f"{oname or '(empty)'}: {OUTPUT_NAME_RULE}, with a path")
            continue
        if oname in seen:
            add("config.outputs", f"{oname}: is listed twice")
        seen.add(oname)
        _length(add, "config.outputs", oname, limits.TOOL_PAIR_NAME, f"{oname[:20]}…: name ")
        _length(add, "config.outputs", opath, limits.TOOL_PAIR_VALUE, f"{oname}: path ")
    auth = config.get("auth")
    if auth is not None:
        if not isinstance(auth, dict):
            add("config.auth", "must be an object")
        else:
            auth_type = auth.get("type") or "none"
            if auth_type not in AUTH_TYPES:
                add("config.auth.type", f"must be one of {', '.join(AUTH_TYPES)}")
            for key, limit in (("headerName", limits.TOOL_AUTH_NAME), ("username", limits.TOOL_AUTH_NAME),
                               ("token", limits.TOOL_SECRET), ("password", limits.TOOL_SECRET)):
                value = auth.get(key)
                if value is not None and not isinstance(value, str):
                    add(f"config.auth.{key}", "must be a string")
                elif value is not None:  # the credential's length only, never the credential
                    _length(add, f"config.auth.{key}", value, limit)
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
