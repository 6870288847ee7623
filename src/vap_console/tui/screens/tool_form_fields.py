"""The tool form's fields: wire paths, labels and widget ids, and reading them into a ToolCreate.

Kept apart from the screen (tool_form.py) so that what the form sends, and what it refuses, can be
read and changed without the layout and the focus handling around it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from textual.validation import ValidationResult, Validator

from vap_console.api.models import (
    NameValue,
    ToolAuthInput,
    ToolConfigInput,
    ToolCreate,
    ToolKind,
    ToolOutput,
)
from vap_console.api.tool_rules import (
    LLM_PARAMS_KIND,
    NAME_RE,
    OUTPUT_NAME_RE,
    OUTPUT_NAME_RULE,
    auth_problems,
    check_tool_document,
    timeout_ms,
)

# Wire path of each field → the label shown. Widget ids are "f-" + path with dots as dashes.
FIELDS: dict[str, str] = {
    "name": "Name",
    "description": "Description",
    "kind": "Kind",
    "config.method": "Method",
    "config.url": "URL",
    "config.params": "Query params: name=value per line",
    "config.headers": "Headers: Name: value per line",
    "config.body": "Body",
    "config.timeoutMs": "Timeout (ms)",
    "config.waitForResponse": "Wait for response",
    "config.auth.type": "Auth type",
    "config.auth.token": "Auth token",
    "config.auth.password": "Auth password",
    "config.auth.headerName": "Auth header name",
    "config.auth.username": "Auth username",
    "config.llmParams": "LLM params (during_call): name: description per line",
    "config.outputs": "Outputs: variable = dotted.path per line",
}


def wid(path: str) -> str:
    return "f-" + path.replace(".", "-")


def path_of(widget_id: str) -> str | None:
    """The field a widget id belongs to (``f-config-url`` → ``config.url``)."""
    return next((path for path in FIELDS if wid(path) == widget_id), None)


def short_label(path: str) -> str:
    """``Query params: name=value per line`` → ``Query params``."""
    return FIELDS[path].split(" (")[0].split(":")[0]


def eid(path: str) -> str:
    return "err-" + path.replace(".", "-")


def field_for_loc(loc: str) -> str | None:
    """``body.config.params.0.value`` → ``config.params``; None when no field of the form matches."""
    path = loc.removeprefix("body.")
    best = None
    for field in FIELDS:
        if (path == field or path.startswith(field + ".")) and (best is None or len(field) > len(best)):
            best = field
    return best


@dataclass
class Parsed:
    body: ToolCreate | None
    errors: dict[str, list[str]]


def _lines(text: str) -> list[tuple[int, str]]:
    return [(n, line.strip()) for n, line in enumerate(text.splitlines(), 1) if line.strip()]


class TimeoutText(Validator):
    def validate(self, value: str) -> ValidationResult:
        if not value.strip():
            return self.success()  # not sent: the server's default applies
        try:
            timeout_ms(value)
        except ValueError as exc:
            return self.failure(str(exc))
        return self.success()


def param_names(text: str) -> list[str]:
    """The parameter names of the LLM params field (``name: description`` per line)."""
    return [line.partition(":")[0].strip() for _, line in _lines(text)]


def parse_pairs(text: str, sep: str, what: str, errs: list[str]) -> list[tuple[str, str]]:
    pairs = []
    for n, line in _lines(text):
        name, found, value = line.partition(sep)
        if not found or not name.strip():
            errs.append(f"line {n}: write {what}")
            continue
        pairs.append((name.strip(), value.strip()))
    return pairs


def read_tool(value: Callable[[str], Any], errs: dict[str, list[str]]) -> Parsed:
    """The ToolCreate the fields describe (``value(path)``: a field's value), or every problem
    found, added to ``errs`` (the problems already found by the inputs' validators)."""

    def add(path: str, message: str) -> None:
        errs.setdefault(path, []).append(message)

    kind = value("kind")
    param_errs: list[str] = []
    params = parse_pairs(value("config.params"), "=", "name=value", param_errs)
    for e in param_errs:
        add("config.params", e)
    header_errs: list[str] = []
    headers = parse_pairs(value("config.headers"), ":", "Name: value", header_errs)
    for e in header_errs:
        add("config.headers", e)
    output_errs: list[str] = []
    outputs = parse_pairs(value("config.outputs"), "=", "variable = path", output_errs)
    for e in output_errs:
        add("config.outputs", e)
    for name, _ in outputs:
        if not OUTPUT_NAME_RE.match(name):
            add("config.outputs", f"{name}: {OUTPUT_NAME_RULE}")
    llm: list[dict[str, str]] = []
    for n, line in _lines(value("config.llmParams")):
        pname, _, desc = line.partition(":")
        pname = pname.strip()
        if not NAME_RE.match(pname):
            add("config.llmParams", f"line {n}: {pname or '(empty)'} is not a valid parameter name")
        llm.append({"name": pname, "description": desc.strip(), "type": "string"})
    if llm and kind != ToolKind.DURING_CALL:
        add("config.llmParams", LLM_PARAMS_KIND)

    auth_type = value("config.auth.type")
    token = value("config.auth.token")
    password = value("config.auth.password")
    header_name = value("config.auth.headerName").strip()
    username = value("config.auth.username").strip()
    auth: ToolAuthInput | None = None
    for path, problems in auth_problems(auth_type, token, password, header_name, username).items():
        for problem in problems:
            add(path, problem)
    if auth_type != "none":
        given = {"type": auth_type, "token": token, "password": password,
                 "header_name": header_name, "username": username}
        auth = ToolAuthInput(**{k: v for k, v in given.items() if v})
    if errs:
        return Parsed(None, errs)
    timeout = value("config.timeoutMs").strip()
    fields: dict[str, Any] = {
        "method": value("config.method"),
        "url": value("config.url").strip(),
        "params": [NameValue(name=k, value=v) for k, v in params] or None,
        "headers": [NameValue(name=k, value=v) for k, v in headers] or None,
        "body": value("config.body") or None,
        "timeout_ms": timeout_ms(timeout) if timeout else None,
        "wait_for_response": value("config.waitForResponse"),
        "auth": auth,
        "llm_params": llm or None,
        "outputs": [ToolOutput(name=k, path=v) for k, v in outputs] or None,
    }
    # Unset fields are not sent at all, so the server applies its own defaults to them.
    config = ToolConfigInput(**{k: v for k, v in fields.items() if v is not None})
    body = ToolCreate(
        name=value("name").strip(),
        description=value("description").strip(),
        kind=kind,
        config=config,
    )
    # What the fields cannot see one by one (a header's length, how many outputs): the body as it
    # would be sent, through the client's own rules (api/limits.py's numbers), under its field.
    _, found = check_tool_document(body.model_dump(by_alias=True, exclude_none=True))
    for loc, messages in found.items():
        for message in messages:
            add(field_for_loc(loc) or "name", message)
    if errs:
        return Parsed(None, errs)
    return Parsed(body, {})
