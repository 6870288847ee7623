"""A tool's webhook request, built as the platform builds it (spec 2.4), and the outputs its answer gives.

One builder for every place that calls a tool: `vap tools try` (scripting/tool_try.py), and next the
console's Try dialog and the sandbox's ``--call-tools``. Nothing here sends (api/tool_webhook.py
does) or imports httpx or Textual, so a screen can show the request before anything goes out.

The placeholder rule, written once (spec 2.4): a ``{token}`` inside url, params, headers and body
is filled first from the model's arguments, then from the account's variables, then from the
call's context params ({call_id}, {agent_id}, {phone_number}: reference/real-service.md). A value
goes in as it is, with no escaping (the spec says "filled", nothing more); a token nothing fills is
refused before anything is sent (UnfilledPlaceholders names each, and where it is). Only
``{`` + a letter or ``_`` + letters, digits, ``_`` or ``.`` + ``}`` is a token, so a JSON body's own
braces (``{"patient": …}``) are left alone.

The credential is write-only on the platform (``hasSecret``), so the person hands it in; it is
added as the auth header only in ``send_headers`` and masked (``Credential.mask``) everywhere else.
"""

from __future__ import annotations

import base64
import json
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from vap_console.api.limits import TOOL_DEFAULT_TIMEOUT_MS
from vap_console.masking import visible_tail

if TYPE_CHECKING:
    # A model, or api/tool_view.py's record of one (`vap tools try` reads without pydantic).
    from vap_console.api.tool_view import AnyTool as Tool

TOKEN = re.compile(r"\{([A-Za-z_][A-Za-z0-9_.]*)\}")
# The call's context params the service fills itself (its public docs; user_id is reserved).
CONTEXT_PARAMS = ("call_id", "agent_id", "phone_number")
# What stands in for them when nobody says (`--context k=v` does): plainly not a real call's.
# +1 202 555 0100 is in the range kept for fiction.
CONTEXT_STAND_INS = {"call_id": "call_try", "agent_id": "agent_try", "phone_number": "+12025550100"}

ARGUMENT = "argument"
VARIABLE = "variable"
CONTEXT = "context"
SOURCES = (ARGUMENT, VARIABLE, CONTEXT)
# What a header value may not hold once filled: a line break would start a header of its own.
_HEADER_BREAKERS = re.compile(r"[\x00-\x1f\x7f]")


def tokens(value: str) -> list[str]:
    """The tokens in ``value``, in order, each as often as it is written."""
    return [m.group(1) for m in TOKEN.finditer(value)]


@dataclass(frozen=True)
class Filled:
    """One token filled: from which source, with what."""

    token: str
    source: str
    value: str


@dataclass(frozen=True)
class Sources:
    """The three sources of the placeholder rule, in its order."""

    arguments: Mapping[str, str] = field(default_factory=dict)
    variables: Mapping[str, str] = field(default_factory=dict)
    context: Mapping[str, str] = field(default_factory=dict)

    def lookup(self, token: str) -> Filled | None:
        for source, values in ((ARGUMENT, self.arguments), (VARIABLE, self.variables), (CONTEXT, self.context)):
            if token in values:
                return Filled(token, source, values[token])
        return None


class UnfilledPlaceholders(ValueError):
    """Tokens nothing fills, each with where it is written (``url``, ``params.phone``, ``body``)."""

    def __init__(self, tool: str, where: dict[str, list[str]]) -> None:
        self.tool = tool
        self.where = where
        listed = "; ".join(f"{{{t}}} in {', '.join(places)}" for t, places in where.items())
        super().__init__(f"tool {tool}: nothing fills {listed}")


class BadHeader(ValueError):
    """A header whose filled value cannot be sent (a line break or other control character)."""


def fill(text: str, sources: Sources) -> tuple[str, list[Filled], list[str]]:
    """``text`` with every token filled by the rule; what filled each, and the tokens left open."""
    filled: list[Filled] = []
    open_: list[str] = []

    def one(match: re.Match[str]) -> str:
        found = sources.lookup(match.group(1))
        if found is None:
            open_.append(match.group(1))
            return match.group(0)
        filled.append(found)
        return found.value

    return TOKEN.sub(one, text), filled, open_


@dataclass(frozen=True)
class Credential:
    """The auth header a tool's webhook gets, built from the secret the person gave."""

    kind: str
    header: str
    value: str = field(repr=False)
    secret: str = field(repr=False)

    def shown(self) -> str:
        """The header's value as it may be shown: the secret masked to its last four."""
        return self.mask(self.value)

    def mask(self, text: str) -> str:
        """``text`` with the secret, and the header value made from it, masked: a webhook may echo
        either back (a basic header's base64 holds the password)."""
        hint = f"…{visible_tail(self.secret)}"
        # The credential part of the header (after "Bearer " or "Basic "), and the secret itself:
        # the scheme stays readable.
        for secret in sorted({self.value.split(" ", 1)[-1], self.secret}, key=len, reverse=True):
            if secret:
                text = text.replace(secret, hint)
        return text


def credential(tool: Tool, secret: str | None) -> Credential | None:
    """The header the tool's auth makes of ``secret`` (None: no auth, or no secret given)."""
    auth = tool.config.auth
    kind = (auth.type if auth else None) or "none"
    if kind == "none" or not secret:
        return None
    if kind == "bearer":
        return Credential(kind, "Authorization", f"Bearer {secret}", secret)
    if kind == "basic":
        user = auth.username if auth else ""
        pair = base64.b64encode(f"{user}:{secret}".encode()).decode("ascii")
        return Credential(kind, "Authorization", f"Basic {pair}", secret)
    if kind == "api_key":
        return Credential(kind, (auth.header_name if auth else "") or "X-API-Key", secret, secret)
    raise ValueError(f"auth type {kind} is not one the console knows how to send (bearer, basic, api_key)")


def auth_kind(tool: Tool) -> str:
    auth = tool.config.auth
    return (auth.type if auth else None) or "none"


@dataclass(frozen=True)
class ToolRequest:
    """The request exactly as it goes out, the credential apart."""

    tool: str
    method: str
    url: str
    params: tuple[tuple[str, str], ...]
    headers: tuple[tuple[str, str], ...]
    body: str
    timeout_ms: int
    wait_for_response: bool
    auth_kind: str
    credential: Credential | None = None
    filled: tuple[Filled, ...] = ()

    @property
    def secret_missing(self) -> bool:
        """The tool has auth but no secret was given: the request goes without its header."""
        return self.auth_kind != "none" and self.credential is None

    def send_headers(self) -> list[tuple[str, str]]:
        """The headers to send: the configured ones, then the auth header (replacing one of its name)."""
        if self.credential is None:
            return list(self.headers)
        auth = self.credential
        return [(n, v) for n, v in self.headers if n.lower() != auth.header.lower()] + [(auth.header, auth.value)]

    def shown_headers(self) -> list[tuple[str, str]]:
        """The headers as they may be shown: the auth header's secret masked."""
        return [(n, self.mask(v)) for n, v in self.send_headers()]

    def mask(self, text: str) -> str:
        return self.credential.mask(text) if self.credential is not None else text

    def wire(self) -> dict[str, Any]:
        """The request as `--json` shows it (secret masked)."""
        return {
            "method": self.method, "url": self.url,
            "params": [{"name": n, "value": v} for n, v in self.params],
            "headers": [{"name": n, "value": v} for n, v in self.shown_headers()],
            "body": self.body, "timeoutMs": self.timeout_ms, "waitForResponse": self.wait_for_response,
            "auth": {"type": self.auth_kind,
                     "secret": "none needed" if self.auth_kind == "none"
                     else "not given: sent without it" if self.credential is None else "given (masked)"},
            "filled": [{"token": f.token, "from": f.source, "value": f.value} for f in self.filled],
        }


def build_request(tool: Tool, sources: Sources, secret: str | None = None) -> ToolRequest:
    """The request the platform sends for ``tool``. UnfilledPlaceholders when a token is left open,
    BadHeader when a filled header value could not be sent; nothing is sent either way."""
    config = tool.config
    where: dict[str, list[str]] = {}
    filled: dict[str, Filled] = {}

    def done(text: str, place: str) -> str:
        out, used, left = fill(text, sources)
        for item in used:
            filled.setdefault(item.token, item)
        for token in left:
            places = where.setdefault(token, [])
            if place not in places:
                places.append(place)
        return out

    url = done(config.url or "", "url")
    params = tuple((p.name, done(p.value, f"params.{p.name}")) for p in config.params)
    headers = tuple((h.name, done(h.value, f"headers.{h.name}")) for h in config.headers)
    body = done(config.body, "body")
    if where:
        raise UnfilledPlaceholders(tool.name, where)
    for name, value in headers:
        if _HEADER_BREAKERS.search(value) or _HEADER_BREAKERS.search(name):
            raise BadHeader(f"tool {tool.name}: header {name}: its value holds a line break or control "
                            "character once filled, which no header can carry")
    if secret is not None and _HEADER_BREAKERS.search(secret):
        raise BadHeader(f"tool {tool.name}: the secret holds a line break or control character, "
                        "which no header can carry")
    return ToolRequest(
        tool=tool.name, method=(config.method or "GET").upper(), url=url, params=params, headers=headers,
        body=body, timeout_ms=config.timeout_ms or TOOL_DEFAULT_TIMEOUT_MS,
        wait_for_response=config.wait_for_response, auth_kind=auth_kind(tool),
        credential=credential(tool, secret), filled=tuple(filled.values()),
    )


def sources_for(tool: Tool, arguments: Mapping[str, str], variables: Mapping[str, str],
                context: Mapping[str, str] | None = None) -> Sources:
    """The rule's sources for one try of ``tool``: only the arguments its own llmParams name,
    the account's variable values, and the context given over the plain stand-ins."""
    own = set(llm_param_names(tool))
    return Sources({k: v for k, v in arguments.items() if k in own}, dict(variables),
                   {**CONTEXT_STAND_INS, **(context or {})})


def left_open(tool: Tool, variables: Iterable[str]) -> list[str]:
    """The tokens of ``tool`` that no argument, variable or context param fills: someone must type
    them for a try (the platform would send the braces)."""
    known = set(llm_param_names(tool)) | set(variables) | set(CONTEXT_PARAMS)
    return [token for token in open_tokens(tool) if token not in known]


def open_tokens(tool: Tool) -> list[str]:
    """Every token the tool's request holds, once each, in the order written."""
    config = tool.config
    texts = [config.url or "", *(p.value for p in config.params), *(h.value for h in config.headers), config.body]
    seen: list[str] = []
    for text in texts:
        for token in tokens(text):
            if token not in seen:
                seen.append(token)
    return seen


def llm_param_names(tool: Tool) -> list[str]:
    """The arguments the model supplies (``llmParams`` entries' names; the spec leaves their shape
    open: an object with ``name``, or a bare string)."""
    names = []
    for item in tool.config.llm_params:
        name = item.get("name") if isinstance(item, dict) else item if isinstance(item, str) else None
        if isinstance(name, str) and name:
            names.append(name)
    return names


# --- the answer: the outputs it gives ---

MISSING: Any = object()


def value_at(document: Any, path: str) -> Any:
    """The value at a dotted ``path`` (``data.name``, ``items.0.id``) in a JSON document, or MISSING.
    The empty path is the whole document (the spec accepts it)."""
    if path == "":
        return document
    here = document
    for part in path.split("."):
        if isinstance(here, dict) and part in here:
            here = here[part]
        elif isinstance(here, list) and part.isdigit() and int(part) < len(here):
            here = here[int(part)]
        else:
            return MISSING
    return here


def as_variable(value: Any) -> str:
    """A value as the variable it fills holds it: text as it is, anything else as JSON."""
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


@dataclass(frozen=True)
class OutputRead:
    """One ``outputs`` entry against the answer: its path, the value found (None: missing), the
    variable it fills (the output's name)."""

    name: str
    path: str
    value: str | None

    @property
    def found(self) -> bool:
        return self.value is not None


def parse_json(body: bytes) -> tuple[bool, Any]:
    """(True, document) when ``body`` is JSON in UTF-8, else (False, None)."""
    try:
        return True, json.loads(body.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        return False, None


def read_outputs(tool: Tool, document: Any, is_json: bool) -> list[OutputRead]:
    """Each output of ``tool`` read from the answer's JSON (all missing when it was not JSON)."""
    reads = []
    for out in tool.config.outputs:
        value = value_at(document, out.path) if is_json else MISSING
        reads.append(OutputRead(out.name, out.path, None if value is MISSING else as_variable(value)))
    return reads


def unknown_names(given: Iterable[str], known: Iterable[str]) -> list[str]:
    """Names in ``given`` that are not in ``known``, in the order given."""
    allowed = set(known)
    return [name for name in given if name not in allowed]
