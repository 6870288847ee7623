"""The tools and variables pages read without pydantic, for `vap tools try`.

Why: importing pydantic, building the tools module's model classes and then the Tool validator
was ~200 ms of `vap tools try`'s ~560 ms (bench/tools.py), more than all of its requests; a script
run in CI pays it on every try. This module reads the same JSON into plain records holding what
trying a tool reads, and nothing else.

The models (api/models/tools.py) stay the one definition of the API's shape. A page is read here
only when every value is exactly what the model takes as it is: the JSON types the fields declare
(no coercion of "5000" or 5000.0 into an int), wire (camelCase) names only, UTF-8 with no NaN, no
lone surrogate, no deep nesting, datetimes in plain RFC 3339. Anything else, or anything unusual,
gives None and the caller validates the body with the models: the same values, or the same error
as before. tests/api/test_tool_view_matches_models.py holds the two readings equal on generated
answers. No pydantic, Textual or httpx here.
"""

from __future__ import annotations

import json
import re
from datetime import datetime
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from typing import TypeAlias

    from vap_console.api.models import Tool, Variable

# The tools module's DEFAULT_TOOL_PREFIX (models/tools.py): a test holds the two equal.
DEFAULT_TOOL_PREFIX = "default-"
# What pydantic's datetime certainly accepts and fromisoformat reads alike; others go to the model.
# (fromisoformat takes an offset of +05:99; pydantic does not.)
_DATETIME = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{1,6})?(Z|[+-]([01]\d|2[0-3]):[0-5]\d)\Z")
# An escaped surrogate: json.loads takes a lone one, pydantic-core does not. Rare: let the model say.
_SURROGATE = re.compile(r"\\u[dD][89a-fA-F]")
# pydantic-core's JSON parser refuses nesting deeper than ~200 (anywhere: unknown fields are kept).
_DEPTH_LIMIT = 64


class _Unusual(ValueError):
    """Not plainly the model's shape: the models read this body."""


# Plain classes, not dataclasses: making a frozen, slotted dataclass was ~5 ms a class on this
# machine (its methods are generated and compiled at import), 30 ms for these six; these take none.


class NameValueView:
    __slots__ = ("name", "value")

    def __init__(self, name: str, value: str) -> None:
        self.name, self.value = name, value


class OutputView:
    __slots__ = ("name", "path")

    def __init__(self, name: str, path: str) -> None:
        self.name, self.path = name, path


class AuthView:
    __slots__ = ("has_secret", "header_name", "type", "username")

    def __init__(self, type_: str | None, header_name: str, username: str, has_secret: bool) -> None:
        self.type, self.header_name, self.username, self.has_secret = type_, header_name, username, has_secret


class ConfigView:
    __slots__ = ("auth", "body", "headers", "llm_params", "method", "outputs", "params", "timeout_ms", "url",
                 "wait_for_response")

    def __init__(self, method: str | None, url: str | None, params: tuple[NameValueView, ...],
                 headers: tuple[NameValueView, ...], body: str, timeout_ms: int | None, wait_for_response: bool,
                 llm_params: list[Any], outputs: tuple[OutputView, ...], auth: AuthView | None) -> None:
        self.method, self.url, self.params, self.headers, self.body = method, url, params, headers, body
        self.timeout_ms, self.wait_for_response, self.llm_params = timeout_ms, wait_for_response, llm_params
        self.outputs, self.auth = outputs, auth


class ToolView:
    __slots__ = ("config", "description", "id", "is_default", "kind", "name")

    def __init__(self, id_: str, name: str, description: str, kind: str, config: ConfigView, is_default: bool) -> None:
        self.id, self.name, self.description, self.kind = id_, name, description, kind
        self.config, self.is_default = config, is_default

    @property
    def builtin(self) -> bool:  # as Tool.builtin
        return self.is_default or self.id.startswith(DEFAULT_TOOL_PREFIX)

    def __repr__(self) -> str:
        return f"ToolView(id={self.id!r}, name={self.name!r})"


class VariableView:
    __slots__ = ("default_value", "id", "name")

    def __init__(self, id_: str, name: str, default_value: str) -> None:
        self.id, self.name, self.default_value = id_, name, default_value


if TYPE_CHECKING:
    # What the try path takes: a model (the console has them), or a record from here.
    AnyTool: TypeAlias = Tool | ToolView
    AnyVariable: TypeAlias = Variable | VariableView


def tools_page(body: bytes | bytearray | None) -> list[ToolView] | None:
    """GET /v1/tools's items, or None when the models must read the body."""
    try:
        return [_tool(item) for item in _items(body)]
    except _Unusual:
        return None


def variables_page(body: bytes | bytearray | None) -> list[VariableView] | None:
    """GET /v1/variables's items, or None when the models must read the body."""
    try:
        return [_variable(item) for item in _items(body)]
    except _Unusual:
        return None


# --- reading ---


def _unusual(*_: Any) -> Any:
    raise _Unusual


# A duplicate key: the last one wins, as in pydantic-core.
_DECODER = json.JSONDecoder(parse_constant=_unusual)  # NaN and Infinity are not JSON


def _items(body: bytes | bytearray | None) -> list[Any]:
    try:
        text = (body or b"").decode("utf-8")
        if _SURROGATE.search(text):
            raise _Unusual
        page = _DECODER.decode(text)
    except (ValueError, RecursionError):  # not UTF-8, not JSON, or _Unusual
        raise _Unusual from None
    if not _shallow(page):
        raise _Unusual
    obj = _object(page)
    if type(obj.get("count")) is not int or not isinstance(obj.get("items"), list):
        raise _Unusual
    items: list[Any] = obj["items"]
    return items


def _shallow(document: Any) -> bool:
    """Whether no value in ``document`` nests deeper than _DEPTH_LIMIT."""
    stack = [(document, 1)]
    while stack:
        value, depth = stack.pop()
        children = value.values() if isinstance(value, dict) else value if isinstance(value, list) else ()
        for child in children:
            if isinstance(child, (dict, list)):
                if depth >= _DEPTH_LIMIT:
                    return False
                stack.append((child, depth + 1))
    return True


def _object(value: Any, python: tuple[str, ...] = ()) -> dict[str, Any]:
    """``value`` as an object; a key that is a field's Python name (the model takes those too,
    populate_by_name) is unusual."""
    if not isinstance(value, dict) or any(name in value for name in python):
        raise _Unusual
    return value


def _str(obj: dict[str, Any], key: str, default: Any = ...) -> Any:
    """A str field (``default``: its default when absent; None in it: null allowed)."""
    if key not in obj:
        if default is ...:
            raise _Unusual
        return default
    value = obj[key]
    if isinstance(value, str) or (value is None and default is None):
        return value
    raise _Unusual


def _bool(obj: dict[str, Any], key: str, default: bool) -> bool:
    value = obj.get(key, default)
    if type(value) is not bool:
        raise _Unusual
    return value


def _datetime(obj: dict[str, Any], key: str, *, optional: bool) -> None:
    """Checked only: the try path reads no date, but the model would refuse a bad one."""
    if key not in obj or (optional and obj[key] is None):
        if optional:
            return
        raise _Unusual
    value = obj[key]
    if not isinstance(value, str) or not _DATETIME.match(value):
        raise _Unusual
    try:
        datetime.fromisoformat(value)
    except ValueError:
        raise _Unusual from None


def _list(obj: dict[str, Any], key: str) -> list[Any]:
    value = obj.get(key, [])
    if not isinstance(value, list):
        raise _Unusual
    return value


def _name_values(obj: dict[str, Any], key: str) -> tuple[NameValueView, ...]:
    items = (_object(item) for item in _list(obj, key))
    return tuple(NameValueView(_str(i, "name"), _str(i, "value")) for i in items)


def _tool(value: Any) -> ToolView:
    obj = _object(value, ("is_default", "created_at", "updated_at"))
    _datetime(obj, "createdAt", optional=True)
    _datetime(obj, "updatedAt", optional=True)
    return ToolView(_str(obj, "id"), _str(obj, "name"), _str(obj, "description"), _str(obj, "kind"),
                    _config(obj.get("config", ...)), _bool(obj, "isDefault", False))


def _config(value: Any) -> ConfigView:
    obj = _object(value, ("performed_action", "timeout_ms", "wait_for_response", "llm_params"))
    _str(obj, "action", None)
    _str(obj, "performedAction", "end_call")
    _str(obj, "curl", "")
    timeout = obj.get("timeoutMs")
    if timeout is not None and type(timeout) is not int:
        raise _Unusual
    outputs = tuple(OutputView(_str(o, "name"), _str(o, "path"))
                    for o in (_object(item) for item in _list(obj, "outputs")))
    auth = obj.get("auth")
    return ConfigView(_str(obj, "method", None), _str(obj, "url", None), _name_values(obj, "params"),
                      _name_values(obj, "headers"), _str(obj, "body", ""), timeout,
                      _bool(obj, "waitForResponse", True), _list(obj, "llmParams"), outputs,
                      None if auth is None else _auth(auth))


def _auth(value: Any) -> AuthView:
    obj = _object(value, ("header_name", "has_secret"))
    return AuthView(_str(obj, "type", None), _str(obj, "headerName", "X-API-Key"), _str(obj, "username", ""),
                    _bool(obj, "hasSecret", False))


def _variable(value: Any) -> VariableView:
    obj = _object(value, ("default_value", "tool_id", "tool_output", "created_at", "updated_at"))
    _str(obj, "toolId", None)
    _str(obj, "toolOutput", None)
    _datetime(obj, "createdAt", optional=False)
    _datetime(obj, "updatedAt", optional=False)
    return VariableView(_str(obj, "id"), _str(obj, "name"), _str(obj, "defaultValue"))
