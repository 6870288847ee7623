"""The ``hostile_text=1`` fault: every string the sandbox serves carries terminal control.

Whatever a client shows of the sandbox's answers must reach a terminal as text, never as control.
With this fault every string value of every JSON answer (names, statuses, reasons, ids,
transcripts, error messages), and the text fields of the agent socket's frames (``transcript``,
``delta``, ``role``, ``reason``, ``message``, ``code``, ``call_id``), is wrapped in ``PREFIX`` and
``SUFFIX``: an OSC 52 clipboard write, an OSC 0 title, a CSI that clears the screen, the same CSI
as a C1 byte, a right-to-left override, NUL and the noncharacter U+FFFF (which XML cannot hold).
Every JSON object also gains one member whose *key* is hostile (``HOSTILE_KEY``), as an agent's
extra ``ttsConfig`` keys would be.

What is left alone, so the answers still parse and a client can still act on them:

* date-times (a key ``at`` or ending in ``At``): a date is not text, the models read it as a date;
* a socket frame's ``type``, which says what the frame is;
* ids keep working as ids: the fault takes its own decoration out of every request's path, query
  and JSON body before the sandbox sees it, so an id (or token) read from a hostile answer and
  sent back as it came reaches the same record. A client that *shows* an id shows it decorated.
"""

from __future__ import annotations

import contextlib
import json
from typing import Any
from urllib.parse import quote, unquote

from starlette.types import ASGIApp, Message, Receive, Scope, Send

# An OSC 52 clipboard write ("hostile"), a window title, clear screen as CSI and as the C1 CSI,
# colour, a right-to-left override, NUL, and U+FFFF.
PREFIX = "\x1b]52;c;aG9zdGlsZQ==\x07\x1b]0;pwned\x07\x1b[2J\x9b31m\u202e\x00"
SUFFIX = "\uffff\u202c\x1b[0m"
HOSTILE_KEY = f"{PREFIX}extra{SUFFIX}"
# A socket frame's members that are text (the others are numbers, audio, or the frame's type).
SOCKET_TEXT = ("transcript", "text", "delta", "role", "reason", "message", "code", "call_id")


def decorate(value: str) -> str:
    return f"{PREFIX}{value}{SUFFIX}"


def undecorate(value: str) -> str:
    """``value`` with every decoration this fault added taken out."""
    return value.replace(PREFIX, "").replace(SUFFIX, "")


def _is_date(key: str) -> bool:
    return key == "at" or key.endswith("At")


def hostile(value: Any, key: str = "") -> Any:
    """A JSON value with every string (but dates) decorated and a hostile key in every object."""
    if isinstance(value, dict):
        out = {k: hostile(v, k) for k, v in value.items()}
        out[HOSTILE_KEY] = decorate("value")
        return out
    if isinstance(value, list):
        return [hostile(item, key) for item in value]
    if isinstance(value, str) and not _is_date(key):
        return decorate(value)
    return value


def hostile_frame(frame: dict[str, Any]) -> dict[str, Any]:
    """An agent-socket frame with its text members decorated (``type`` and audio untouched)."""
    return {k: decorate(v) if k in SOCKET_TEXT and isinstance(v, str) else v for k, v in frame.items()}


def _undecorated_json(value: Any) -> Any:
    if isinstance(value, dict):
        return {undecorate(k): _undecorated_json(v) for k, v in value.items() if k != HOSTILE_KEY}
    if isinstance(value, list):
        return [_undecorated_json(item) for item in value]
    return undecorate(value) if isinstance(value, str) else value


def _plain_scope(scope: Scope) -> Scope:
    path = undecorate(scope["path"])
    query = scope.get("query_string", b"").decode("latin-1")
    if "%" in query:
        # Percent-encoded like every query: decoded, stripped of the decoration, encoded again.
        parts = [undecorate(unquote(part)) for part in query.split("&")]
        query = "&".join(quote(part, safe="=+,:;/@") for part in parts)
    return {**scope, "path": path, "raw_path": quote(path).encode(), "query_string": query.encode("latin-1")}


class HostileText:
    """ASGI middleware: decorates every JSON answer, and undoes the decoration on what comes in."""

    def __init__(self, app: ASGIApp, enabled: bool) -> None:
        self.app = app
        self.enabled = enabled

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if not self.enabled or scope["type"] not in ("http", "websocket"):
            return await self.app(scope, receive, send)
        scope = _plain_scope(scope)
        if scope["type"] == "websocket":
            return await self.app(scope, receive, send)
        await self.app(scope, _plain_body(scope, receive), _decorating(send))


def _plain_body(scope: Scope, receive: Receive) -> Receive:
    """The request's JSON body with the decoration taken out (read whole: the sandbox caps it)."""
    headers = dict(scope.get("headers", []))
    if b"json" not in headers.get(b"content-type", b""):
        return receive
    chunks: list[bytes] = []
    done = False

    async def read() -> Message:
        nonlocal done
        if done:
            return await receive()
        while True:
            message = await receive()
            if message["type"] != "http.request":
                return message
            chunks.append(message.get("body", b""))
            if not message.get("more_body"):
                break
        done = True
        body = b"".join(chunks)
        with contextlib.suppress(ValueError, UnicodeDecodeError):  # not JSON: the sandbox says so itself
            body = json.dumps(_undecorated_json(json.loads(body)), ensure_ascii=False).encode()
        return {"type": "http.request", "body": body, "more_body": False}

    return read


def _decorating(send: Send) -> Send:
    start: dict[str, Any] = {}
    chunks: list[bytes] = []

    async def decorating(message: Message) -> None:
        if message["type"] == "http.response.start":
            if b"json" not in dict(message.get("headers", [])).get(b"content-type", b""):
                start["pass"] = True
                return await send(message)
            start.update(message)
            return None
        if start.get("pass") or message["type"] != "http.response.body":
            return await send(message)
        chunks.append(message.get("body", b""))
        if message.get("more_body"):
            return None
        body = b"".join(chunks)
        with contextlib.suppress(ValueError, UnicodeDecodeError):
            body = json.dumps(hostile(json.loads(body)), ensure_ascii=False).encode()
        kept = [(k, v) for k, v in start.get("headers", []) if k.lower() != b"content-length"]
        await send({**start, "headers": [*kept, (b"content-length", str(len(body)).encode())]})
        await send({"type": "http.response.body", "body": body})
        return None

    return decorating
