"""What every request meets before an endpoint: the API key, the per-minute budget, the agent
scope (spec §5, §7, in that order: auth comes before any other check), then Idempotency-Key."""

from __future__ import annotations

import hashlib
import json
import math
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from vap_console.api.limits import IDEMPOTENCY_KEY
from vap_console.sandbox.keys import SANDBOX_KEYS
from vap_console.sandbox.problems import Problem
from vap_console.sandbox.state import Account, SandboxState

# Paths answered without a key: the sandbox's OpenAPI and AsyncAPI documents (sandbox/openapi.py,
# sandbox/voice/asyncapi.py), and call recordings, whose signed URL is their credential
# (sandbox/voice/recordings.py).
DOCUMENT_PATH = "/openapi.json"
ASYNCAPI_PATH = "/asyncapi.json"
RECORDINGS_PREFIX = "/sandbox/recordings/"


# A web call may be started with a register-call token instead of a key: a browser redeems the
# token its server minted (reference voice.md §3.1). Without an Authorization header the endpoint
# itself decides (sandbox/voice/register.py start_webcall): the token, or the key's 401.
WEBCALL_PATH = "/v1/webcall"


def answered_without_key(path: str) -> bool:
    return path in (DOCUMENT_PATH, ASYNCAPI_PATH) or path.startswith(RECORDINGS_PREFIX)


def missing_key() -> Problem:
    return Problem(401, "unauthorized", "Missing API key: send Authorization: Bearer <API_KEY>.")

WINDOW_SECONDS = 60.0
IDEMPOTENCY_KEY_MAX = IDEMPOTENCY_KEY.high
# The body is read whole to fingerprint it, before any route's own limit applies.
IDEMPOTENT_BODY_MAX = 64 * 1024 * 1024


async def _send_problem(send: Send, problem: Problem) -> None:
    body = json.dumps(problem.body()).encode()
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
    headers += [(k.lower().encode(), v.encode()) for k, v in problem.headers.items()]
    await send({"type": "http.response.start", "status": problem.status, "headers": headers})
    await send({"type": "http.response.body", "body": body})


def _header(scope: Scope, name: bytes) -> str | None:
    for key, value in scope.get("headers", []):
        if key.lower() == name:
            return str(value.decode("latin-1"))
    return None


@dataclass
class _Window:
    started: float
    count: int = 0


class RateLimiter:
    """A fixed one-minute window per key; ``timer`` is seconds on any monotonic scale."""

    def __init__(self, limit: int, timer: Callable[[], float]) -> None:
        self.limit = limit
        self.timer = timer
        self.windows: dict[str, _Window] = {}

    def check(self, key: str) -> None:
        now = self.timer()
        window = self.windows.get(key)
        if window is None or now - window.started >= WINDOW_SECONDS:
            window = self.windows[key] = _Window(started=now)
        window.count += 1
        if window.count > self.limit:
            retry = max(1, math.ceil(WINDOW_SECONDS - (now - window.started)))
            raise Problem(
                429, "rate_limited",
                f"This key's budget of {self.limit} requests a minute is spent; retry in {retry} s.",
                headers={"Retry-After": str(retry)}, limit=self.limit, current=window.count,
            )


class Gateway:
    """Auth, budget and scope; puts the key's account into ``scope['state']['account']``."""

    def __init__(self, app: ASGIApp, *, state: SandboxState, limiter: RateLimiter) -> None:
        self.app = app
        self.state = state
        self.limiter = limiter

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or answered_without_key(scope["path"]):
            return await self.app(scope, receive, send)
        if scope["path"] == WEBCALL_PATH and _header(scope, b"authorization") is None:
            return await self.app(scope, receive, send)
        try:
            account = self._admit(scope)
        except Problem as problem:
            return await _send_problem(send, problem)
        scope.setdefault("state", {})["account"] = account
        await self.app(scope, receive, send)

    def _admit(self, scope: Scope) -> Account:
        header = _header(scope, b"authorization")
        if header is None:
            raise missing_key()
        scheme, _, token = header.strip().partition(" ")
        token = token.strip()
        if scheme.lower() != "bearer" or not token or " " in token:
            raise Problem(401, "unauthorized", "Malformed Authorization header: expected Bearer <API_KEY>.")
        key = SANDBOX_KEYS.get(token)
        if key is None:
            raise Problem(401, "unauthorized", "Unknown API key.")
        if not key.accepted:
            raise Problem(401, "unauthorized", f"This API key is {key.auth}.")
        self.limiter.check(key.key)
        if not key.agent_scope:
            raise Problem(403, "forbidden_scope", "This API key was created without the agent scope.")
        return self.state.account(key)


@dataclass
class _Stored:
    fingerprint: str
    messages: list[Message] = field(default_factory=list)


class Idempotency:
    """Replays the first successful answer to a POST sent again with the same Idempotency-Key.

    Only 2xx answers are kept: an error changed nothing, so sending the same request again is a
    fresh attempt (what a client does after a 502 or a 429). The same key with a different body
    is refused, as it is almost certainly a client bug.
    """

    def __init__(self, app: ASGIApp) -> None:
        self.app = app
        self.stored: dict[tuple[str, str, str], _Stored] = {}
        self.in_flight: set[tuple[str, str, str]] = set()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] != "POST" or "account" not in scope.get("state", {}):
            return await self.app(scope, receive, send)
        idem = _header(scope, b"idempotency-key")
        if idem is None:
            return await self.app(scope, receive, send)
        if not idem.strip() or len(idem) > IDEMPOTENCY_KEY_MAX:
            return await _send_problem(send, Problem(
                422, "invalid_request", "Idempotency-Key must be 1 to 255 characters.",
                details=[{"loc": "header.Idempotency-Key", "message": "must be 1 to 255 characters"}],
            ))
        account = scope["state"]["account"]
        slot = (account.key.key, scope["path"], idem)
        chunks: list[bytes] = []
        size = 0
        while True:
            message = await receive()
            if message["type"] == "http.disconnect":
                return
            chunks.append(message.get("body", b""))
            size += len(chunks[-1])
            if size > IDEMPOTENT_BODY_MAX:
                return await _send_problem(send, Problem(
                    413, "payload_too_large", f"The request body is larger than {IDEMPOTENT_BODY_MAX} bytes.",
                ))
            if not message.get("more_body", False):
                break
        body = b"".join(chunks)
        fingerprint = _fingerprint(scope, body)
        stored = self.stored.get(slot)
        if stored is not None:
            if stored.fingerprint != fingerprint:
                return await _send_problem(send, Problem(
                    409, "idempotency_key_reused",
                    "This Idempotency-Key was already used with a different request body.",
                ))
            for message in stored.messages:
                if message["type"] == "http.response.start":
                    message = {**message, "headers": [*message["headers"], (b"idempotent-replayed", b"true")]}
                await send(message)
            return
        if slot in self.in_flight:
            return await _send_problem(send, Problem(
                409, "idempotency_key_in_use", "A request with this Idempotency-Key is still being handled.",
            ))
        delivered = False

        async def replay() -> Message:
            nonlocal delivered
            if delivered:
                return await receive()
            delivered = True
            return {"type": "http.request", "body": body, "more_body": False}

        captured: list[Message] = []

        async def capture(message: Message) -> None:
            captured.append(message)
            await send(message)

        self.in_flight.add(slot)
        try:
            await self.app(scope, replay, capture)
        finally:
            self.in_flight.discard(slot)
        start = next((m for m in captured if m["type"] == "http.response.start"), None)
        if start is not None and 200 <= start["status"] < 300:
            self.stored[slot] = _Stored(fingerprint, captured)


def _fingerprint(scope: Scope, body: bytes) -> str:
    """Hash a body; a multipart one without its boundary, which a client picks anew on every send."""
    content_type = _header(scope, b"content-type") or ""
    if content_type.strip().lower().startswith("multipart/"):
        for part in content_type.split(";"):
            name, _, value = part.strip().partition("=")
            if name.lower() == "boundary" and value.strip('"'):
                body = body.replace(value.strip('"').encode("latin-1"), b"")
    return hashlib.sha256(body).hexdigest()


def monotonic_timer() -> float:
    return time.monotonic()
