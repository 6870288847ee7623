"""The sandbox as an ASGI app: ``create_app()`` for in-process use, served by ``server.py``."""

from __future__ import annotations

import hashlib
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import BaseRoute, Route, WebSocketRoute
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from vap_console.sandbox import calls, endpoints, phone_numbers
from vap_console.sandbox.clock import Clock, SystemClock, VirtualClock
from vap_console.sandbox.faults import FaultInjector, Faults
from vap_console.sandbox.gateway import RECORDINGS_PREFIX, Gateway, Idempotency, RateLimiter, monotonic_timer
from vap_console.sandbox.hostile_text import HostileText
from vap_console.sandbox.openapi import DOCUMENT_PATH, openapi_document
from vap_console.sandbox.problems import Problem
from vap_console.sandbox.state import SandboxState
from vap_console.sandbox.voice import (
    agent_socket,
    agent_versions,
    outbound,
    recordings,
    register,
    trunks,
    tts,
    tts_socket,
)
from vap_console.sandbox.voice.asyncapi import ASYNCAPI_PATH, asyncapi_document
from vap_console.sandbox.wire import JSON_BODY_MAX

if TYPE_CHECKING:  # its module imports the webhook sender (httpx): only a sandbox that calls tools needs it
    from vap_console.sandbox.voice.tool_calls import ToolCalling

_HTTP_CODES = {
    400: ("invalid_request", "The request could not be read."),
    404: ("not_found", "No such endpoint."),
    405: ("method_not_allowed", "This endpoint does not take that method."),
    413: ("payload_too_large", "The request body is too large."),
}


class RequestIds:
    """Every answer carries ``x-request-id``, as the real service's do, so that a client can quote
    it to support; outermost, so that the budget's 429, an injected fault's 5xx and the 404 of an
    unknown path carry one too.

    Sandbox behaviour (docs/sandbox.md): the ids are deterministic, not random. Each is ``sbx_``
    and 8 hex digits hashed from the method, the path and how many times this sandbox instance
    has been asked that method and path (``request_id``): a fresh sandbox asked the same things
    answers with the same ids, so screenshots of an error state are the same on every run, while
    within one instance no two answers share an id. The real service's ids are its own.
    """

    def __init__(self, app: ASGIApp) -> None:
        self.app = app
        self._asked: dict[tuple[str, str], int] = {}

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        what = (scope.get("method", ""), scope.get("path", ""))
        self._asked[what] = times = self._asked.get(what, 0) + 1
        request_id = request_id_for(*what, times).encode()

        async def send_with_id(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = [h for h in message.get("headers", []) if h[0].lower() != b"x-request-id"]
                message = {**message, "headers": [*headers, (b"x-request-id", request_id)]}
            await send(message)

        await self.app(scope, receive, send_with_id)


Endpoint = Callable[[Request], Awaitable[Response]]


def _by_method(**handlers: Endpoint) -> Endpoint:
    """One endpoint for a path that takes several methods. Two Routes on one path would each
    answer a wrong method with a 405 whose ``Allow`` lists only their own methods."""

    async def dispatch(request: Request) -> Response:
        method = "GET" if request.method == "HEAD" else request.method
        return await handlers[method](request)

    return dispatch


def request_id_for(method: str, path: str, times: int) -> str:
    """The sandbox's x-request-id for the ``times``-th ``method path`` asked of one instance."""
    digest = hashlib.sha256(f"{method} {path} {times}".encode()).hexdigest()
    return f"sbx_{digest[:8]}"


def _routes() -> list[BaseRoute]:
    json_limit = JSON_BODY_MAX + 1
    return [
        Route(DOCUMENT_PATH, openapi_document, methods=["GET"]),
        # The larger limit is the POST's: a GET has no body.
        Route("/v1/phone-numbers", _by_method(GET=phone_numbers.list_rentals, POST=phone_numbers.rent_number),
              methods=["GET", "POST"], max_body_size=phone_numbers.UPLOAD_BODY_MAX),
        Route("/v1/phone-numbers/available", phone_numbers.search_numbers, methods=["GET"]),
        Route("/v1/phone-numbers/requirements", phone_numbers.requirements, methods=["GET"]),
        Route("/v1/phone-numbers/{number_id}", phone_numbers.get_rental, methods=["GET"]),
        Route("/v1/tools", _by_method(GET=endpoints.list_tools, POST=endpoints.create_tool),
              methods=["GET", "POST"], max_body_size=json_limit),
        Route("/v1/tools/{tool_id}", endpoints.remove_tool, methods=["DELETE"]),
        Route("/v1/variables", endpoints.list_variables, methods=["GET"]),
        Route("/v1/voices", endpoints.list_voices, methods=["GET"]),
        Route("/v1/agents/templates", endpoints.list_templates, methods=["GET"]),
        Route("/v1/agents", _by_method(GET=endpoints.list_agents, POST=endpoints.create_agent),
              methods=["GET", "POST"], max_body_size=json_limit),
        Route("/v1/agents/{agent_ref}", _by_method(GET=endpoints.get_agent, DELETE=endpoints.delete_agent),
              methods=["GET", "DELETE"]),
        Route("/v1/agent/limits", calls.agent_limits, methods=["GET"]),
        Route("/v1/webcall", register.start_webcall, methods=["POST"], max_body_size=json_limit),
        Route("/v1/register-call", register.register_call, methods=["POST"], max_body_size=json_limit),
        WebSocketRoute("/v1/agent/connect", agent_socket.connect),
        # Speech synthesis (sandbox/voice/tts.py, tts_socket.py; docs/sandbox-voice.md "Speech synthesis").
        Route("/v1/tts", tts.synthesize_speech, methods=["POST"], max_body_size=json_limit),
        Route("/v1/tts/ws-connect", tts_socket.connect_speech_stream, methods=["POST"], max_body_size=json_limit),
        WebSocketRoute("/v1/tts/ws/{request_id}", tts_socket.speech_socket),
        # Sandbox only: the dashboard's Deploy button of the real service.
        Route("/sandbox/agents/{agent_ref}/deploy", calls.deploy_agent, methods=["POST"]),
        # Calls, trunks and versions (sandbox/voice/, docs/sandbox-voice.md "Calls and trunks").
        Route(ASYNCAPI_PATH, asyncapi_document, methods=["GET"]),
        Route("/v1/calls", outbound.place_call, methods=["POST"], max_body_size=json_limit),
        Route("/v1/calls/{call_id}", outbound.get_call, methods=["GET"]),
        Route("/v1/sip-trunks", trunks.register_trunk, methods=["POST"], max_body_size=json_limit),
        Route("/v1/sip-trunks/{trunk_id}", trunks.get_trunk, methods=["GET"]),
        Route("/v1/agents/{agent_ref}/versions", agent_versions.list_versions, methods=["GET"]),
        # Sandbox only: where a call's signed recordingUrl points; no key (the signature is one).
        Route(RECORDINGS_PREFIX + "{call_id}", recordings.get_recording, methods=["GET"]),
    ]


async def _on_problem(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, Problem)
    return exc.response()


async def _on_http(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, HTTPException)
    code, message = _HTTP_CODES.get(exc.status_code, ("error", str(exc.detail)))
    body: dict[str, object] = {"error": message, "code": code}
    if code == "invalid_request":
        body["details"] = [{"loc": "body", "message": str(exc.detail)}]
    return JSONResponse(body, status_code=exc.status_code, headers=exc.headers)


async def _on_crash(request: Request, exc: Exception) -> Response:
    # Only a sandbox bug gets here; still answer in the spec's shape.
    return JSONResponse({"error": "The sandbox failed on this request.", "code": "internal_error"}, status_code=500)


def create_app(
    *, clock: Clock | None = None, rate_limit: int = 600, faults: Faults | str | None = None,
    call_tools: ToolCalling | None = None, run_seed: str = "",
) -> Starlette:
    """The sandbox's ASGI app; its state is ``app.state.sandbox`` (a ``SandboxState``).
    ``call_tools``: call the account's tools for real (voice/tool_calls.py); None: stand-ins.
    ``run_seed`` makes its call ids its own (``vap sandbox serve`` passes a fresh one each start);
    "" gives every instance the same ids (tests, screenshots)."""
    clock = clock or SystemClock()
    if rate_limit < 1:
        raise ValueError("rate_limit must be at least 1 request a minute")
    if not isinstance(faults, Faults):
        faults = Faults.parse(faults)
    state = SandboxState(clock, run_seed)
    # The budget runs on the virtual clock in tests (advance a minute to refill it) and on real
    # seconds otherwise: --speed makes rentals faster, not the budget looser.
    timer = (lambda: clock.now().timestamp()) if isinstance(clock, VirtualClock) else monotonic_timer
    limiter = RateLimiter(rate_limit, timer)
    app = Starlette(
        routes=_routes(),
        middleware=[
            Middleware(RequestIds),
            # Outside the gateway, so its refusals (401, 429) carry the hostile text too.
            Middleware(HostileText, enabled=faults.hostile_text),
            Middleware(FaultInjector, faults=faults),
            Middleware(Gateway, state=state, limiter=limiter),
            Middleware(Idempotency),
        ],
        exception_handlers={Problem: _on_problem, HTTPException: _on_http, Exception: _on_crash},
    )
    # A trailing slash is a 404 like any unknown path, not a redirect a client would not follow.
    app.router.redirect_slashes = False
    app.state.sandbox = state
    app.state.faults = faults
    app.state.limiter = limiter
    app.state.speech_sockets = tts_socket.SpeechSockets()
    app.state.call_tools = call_tools
    return app
