"""Tools and the variables they feed (spec 2.4, 2.5): validation, defaults, write-only credentials."""

from __future__ import annotations

import re
from datetime import datetime
from typing import Any

from vap_console.api import limits
from vap_console.sandbox.problems import FieldProblems, Problem, json_object, whole
from vap_console.sandbox.records import Account, ToolRecord, VariableRecord

# The whole string: matched with fullmatch, since a `$` also matches before a final newline.
NAME_RE = re.compile(limits.TOOL_NAME_PATTERN.strip("^$"))
URL_RE = re.compile(limits.TOOL_URL_PATTERN.strip("^$"))
OUTPUT_NAME_RE = re.compile(limits.VARIABLE_NAME_PATTERN.strip("^$"))
KINDS = limits.TOOL_KINDS
METHODS = limits.TOOL_METHODS
DEFAULT_TIMEOUT_MS = limits.TOOL_DEFAULT_TIMEOUT_MS
# {name} in a prompt is a variable; {{name}} attaches a tool.
VARIABLE_RE = re.compile(r"(?<!\{)\{([A-Za-z_][A-Za-z0-9_]*)\}(?!\})")


def _text(p: FieldProblems, loc: str, value: Any, *, limit: limits.Limit, required: bool = False) -> str | None:
    if value is None:
        if required:
            p.add(loc, "is required")
        return None
    if not isinstance(value, str):
        p.add(loc, "must be a string")
        return None
    problem = limit.problem(len(value))
    if problem:
        p.add(loc, problem)
        return None
    return value


def _pairs(p: FieldProblems, loc: str, value: Any, keys: tuple[str, str],
           rules: tuple[limits.Limit, limits.Limit]) -> list[dict[str, str]]:
    if value is None:
        return []
    if not isinstance(value, list):
        p.add(loc, f"must be a list of {{{keys[0]}, {keys[1]}}} objects")
        return []
    problem = limits.TOOL_LIST.problem(len(value))
    if problem:
        p.add(loc, problem)
        return []
    out = []
    for i, item in enumerate(value):
        if not isinstance(item, dict):
            p.add(f"{loc}.{i}", f"must be an object with {keys[0]} and {keys[1]}")
            continue
        pair = {}
        for key, limit in zip(keys, rules, strict=True):
            text = _text(p, f"{loc}.{i}.{key}", item.get(key), limit=limit, required=True)
            pair[key] = text or ""
        out.append(pair)
    return out


def check_tool(body: Any, account: Account) -> dict[str, Any]:
    """The tool as it will be stored and returned, plus its credentials; 422/409 otherwise."""
    body = json_object(body)
    p = FieldProblems()
    name = _text(p, "name", body.get("name"), limit=limits.TOOL_NAME, required=True)
    if name is not None and not NAME_RE.fullmatch(name):
        p.add("name", "must start with a letter and hold only letters, digits and underscores")
    description = _text(p, "description", body.get("description"), limit=limits.TOOL_DESCRIPTION, required=True)
    kind = body.get("kind")
    if kind is None:
        p.add("kind", "is required")
    elif kind not in KINDS:
        p.add("kind", "must be before_call or during_call")
    config, secret = _check_config(p, body.get("config"), account)
    p.raise_if_any()
    assert name is not None and description is not None
    if account.tool_by_name(name):
        raise Problem(409, "tool_name_taken", f"A tool named {name} already exists on this account.")
    return {"name": name, "description": description, "kind": kind, "config": config, "secret": secret}


def _check_config(p: FieldProblems, config: Any, account: Account) -> tuple[dict[str, Any], dict[str, str]]:
    if config is None:
        p.add("config", "is required")
        return {}, {}
    if not isinstance(config, dict):
        p.add("config", "must be an object")
        return {}, {}
    # null is treated as not sent throughout: clients that dump optional fields as null mean that.
    method = config.get("method")
    if method is None:
        method = "GET"
    if method not in METHODS:  # exactly as written, as the client's tool rules check it
        p.add("config.method", "must be one of " + ", ".join(METHODS))
        method = "GET"
    url = _text(p, "config.url", config.get("url"), limit=limits.TOOL_URL, required=True)
    if url is not None and not URL_RE.fullmatch(url):
        p.add("config.url", "must be an http:// or https:// address with a host name or IPv4 address, with no spaces")
    action = _text(p, "config.action", config.get("action"), limit=limits.TOOL_ACTION)
    performed = _text(p, "config.performedAction", config.get("performedAction"), limit=limits.TOOL_ACTION)
    curl = _text(p, "config.curl", config.get("curl"), limit=limits.TOOL_BODY)
    body_text = _text(p, "config.body", config.get("body"), limit=limits.TOOL_BODY)
    timeout = config.get("timeoutMs")
    if timeout is None:
        timeout = DEFAULT_TIMEOUT_MS
    timeout = whole(timeout) if whole(timeout) is not None else timeout
    if isinstance(timeout, bool) or not isinstance(timeout, int) or not limits.TOOL_TIMEOUT_MS.allows(timeout):
        p.add("config.timeoutMs", f"must be a whole number of milliseconds, {limits.TOOL_TIMEOUT_MS.rule()}")
        timeout = DEFAULT_TIMEOUT_MS
    wait = config.get("waitForResponse")
    if wait is None:
        wait = True
    if not isinstance(wait, bool):
        p.add("config.waitForResponse", "must be true or false")
        wait = True
    llm_params = config.get("llmParams")
    if llm_params is None:
        llm_params = []
    if not isinstance(llm_params, list) or not limits.TOOL_LIST.allows(len(llm_params)):
        p.add("config.llmParams", f"must be a list of {limits.TOOL_LIST.rule()}")
        llm_params = []
    outputs = _pairs(p, "config.outputs", config.get("outputs"), ("name", "path"),
                     (limits.TOOL_PAIR_NAME, limits.TOOL_PAIR_VALUE))
    seen: set[str] = set()
    for i, out in enumerate(outputs):
        if not OUTPUT_NAME_RE.fullmatch(out["name"]):
            p.add(f"config.outputs.{i}.name", "must be a variable name: a letter or _, then letters, digits, _")
        elif out["name"] in seen:
            p.add(f"config.outputs.{i}.name", "is listed twice")
        else:
            var = account.variables.get(out["name"])
            if var and var.tool_id and var.tool_id in account.tools:
                owner = account.tools[var.tool_id].name
                p.add(f"config.outputs.{i}.name", f"variable {out['name']} is already fed by tool {owner}")
        seen.add(out["name"])
    auth_out, secret = _check_auth(p, config.get("auth"))
    return {
        "action": action if action is not None else method.lower(),
        "performedAction": performed if performed is not None else "end_call",
        "curl": curl or "",
        "method": method,
        "url": url or "",
        "params": _pairs(p, "config.params", config.get("params"), ("name", "value"),
                         (limits.TOOL_PAIR_NAME, limits.TOOL_PAIR_VALUE)),
        "headers": _pairs(p, "config.headers", config.get("headers"), ("name", "value"),
                          (limits.TOOL_PAIR_NAME, limits.TOOL_PAIR_VALUE)),
        "body": body_text or "",
        "timeoutMs": timeout,
        "waitForResponse": wait,
        "auth": auth_out,
        "llmParams": llm_params,
        "outputs": outputs,
    }, secret


def _check_auth(p: FieldProblems, auth: Any) -> tuple[dict[str, Any], dict[str, str]]:
    if auth is None:
        auth = {}
    if not isinstance(auth, dict):
        p.add("config.auth", "must be an object")
        auth = {}
    kind = _text(p, "config.auth.type", auth.get("type"), limit=limits.TOOL_AUTH_TYPE)
    if kind is not None and kind not in limits.TOOL_AUTH_TYPES:
        p.add("config.auth.type", "must be one of " + ", ".join(limits.TOOL_AUTH_TYPES))
    header = _text(p, "config.auth.headerName", auth.get("headerName"), limit=limits.TOOL_AUTH_NAME)
    username = _text(p, "config.auth.username", auth.get("username"), limit=limits.TOOL_AUTH_NAME)
    secret = {}
    for key in ("token", "password"):
        value = _text(p, f"config.auth.{key}", auth.get(key), limit=limits.TOOL_SECRET)
        if value:
            secret[key] = value
    return {
        "type": kind or "none",
        "headerName": header or "X-API-Key",
        "username": username or "",
        "hasSecret": bool(secret),
    }, secret


def add_tool(account: Account, fields: dict[str, Any], tool_id: str, now: datetime) -> ToolRecord:
    tool = ToolRecord(
        id=tool_id, name=fields["name"], description=fields["description"], kind=fields["kind"],
        config=fields["config"], is_default=tool_id.startswith("default-"),
        created_at=now, updated_at=now, secret=fields["secret"],
    )
    account.tools[tool.id] = tool
    for out in tool.config["outputs"]:
        if out["name"]:
            var = declare_variable(account, out["name"], now)
            var.tool_id, var.tool_output, var.updated_at = tool.id, out["path"], now
    return tool


def delete_tool(account: Account, tool_id: str, now: datetime) -> None:
    tool = account.tools.get(tool_id)
    if tool is None:
        raise Problem(404, "agent_tool_not_found", f"No tool with id {tool_id!s:.80} on this account.")
    if tool.is_default:
        raise Problem(403, "tool_is_default", f"{tool.name} is a built-in tool and cannot be deleted.")
    del account.tools[tool_id]
    for var in account.variables.values():
        if var.tool_id == tool_id:  # back to the default value: nothing feeds it any more
            var.tool_id, var.tool_output, var.updated_at = None, None, now


def declare_variable(account: Account, name: str, now: datetime, default: str = "") -> VariableRecord:
    var = account.variables.get(name)
    if var is None:
        var = account.variables[name] = VariableRecord(
            id=account.next_id("variable"), name=name, default_value=default,
            tool_id=None, tool_output=None, created_at=now, updated_at=now,
        )
    return var


def variables_in(*texts: str | None) -> list[str]:
    names: list[str] = []
    for text in texts:
        for name in VARIABLE_RE.findall(text or ""):
            if name not in names:
                names.append(name)
    return names
