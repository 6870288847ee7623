"""The typed async client: one method per endpoint of the spec, plus the probed extensions.

Retry rules (DESIGN §2):

* GET and DELETE are retried on connection errors, timeouts, 429, 502 and 503, with exponential
  backoff and jitter, waiting Retry-After when the server sends it (capped at 60 s).
* POST is retried only on 429: the server says it did not process the request. Any other failure
  of a POST is raised as it is. A POST whose outcome is unknown (connection lost after it was sent,
  read timeout) raises OutcomeUnknown and is never resent; a connect error before anything was
  sent raises ConnectionFailed, which is safe to retry.
* Every POST carries an Idempotency-Key, the caller's when given so that a retried submission is
  the same submission to the server.

The API key is held by a masking auth object: it is in no repr, str, log record or exception.
"""

from __future__ import annotations

import asyncio
import email.utils
import json as _json
import logging
import random
import re
import time
import uuid
from collections.abc import Awaitable, Callable, Mapping
from typing import Any, TypeVar
from urllib.parse import quote

import httpx
from pydantic import BaseModel, ValidationError

from vap_console import __version__
from vap_console.api import errors
from vap_console.api.models import (
    Agent,
    AgentCreate,
    AgentTemplate,
    AvailableNumber,
    Page,
    Rental,
    RentalRequirements,
    Tool,
    ToolCreate,
    Variable,
    VoiceCatalog,
    WebCallSession,
)
from vap_console.api.rental import ProgressCallback, RentalApplication, RequestBody

M = TypeVar("M", bound=BaseModel)

log = logging.getLogger(__name__)

Sleep = Callable[[float], Awaitable[Any]]

RETRY_AFTER_CAP = 60.0
RETRY_STATUSES = frozenset({429, 502, 503})
# An error the server will repeat however often it is asked: not worth a retry.
_PERMANENT_CODES = frozenset({errors.NotConfigured.code_name})


def new_idempotency_key() -> str:
    """A fresh Idempotency-Key; pass the same one again to resend the same logical submission."""
    return str(uuid.uuid4())


def mask_key(key: str) -> str:
    """``…abcd``: enough to tell keys apart, never enough to use one."""
    return f"…{key[-4:]}" if len(key) >= 12 else "…"


class _BearerAuth(httpx.Auth):
    """Adds the key at send time, so it never sits in a dict of headers that could be printed."""

    def __init__(self, key: str) -> None:
        self._key = key

    def auth_flow(self, request: httpx.Request):  # type: ignore[override]
        request.headers["Authorization"] = "Bearer " + self._key
        yield request

    def __repr__(self) -> str:
        return f"<BearerAuth {mask_key(self._key)}>"


class _ScrubSecrets(logging.Filter):
    """Belt and braces for httpx/httpcore DEBUG logs: a bearer token never reaches a handler."""

    _BEARER = re.compile(r"(?i)(bearer\s+)[^\s'\"\\,)]+")
    _HEADER = re.compile(r"(?i)(\(b?'authorization',\s*b?')[^']*(')")

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        scrubbed = self._HEADER.sub(r"\1[redacted]\2", self._BEARER.sub(r"\1[redacted]", message))
        if scrubbed != message:
            record.msg, record.args = scrubbed, ()
        return True


_SCRUB = _ScrubSecrets()
_SCRUBBED_LOGGERS = (
    "httpx", "httpcore", "httpcore.connection", "httpcore.http11", "httpcore.http2",
    "httpcore.proxy", "hpack", "h11",
)


def _install_log_scrubber() -> None:
    for name in _SCRUBBED_LOGGERS:
        logger = logging.getLogger(name)
        if _SCRUB not in logger.filters:
            logger.addFilter(_SCRUB)


def parse_retry_after(value: str | None, *, now: float | None = None) -> float | None:
    """Seconds to wait from a Retry-After header (integer seconds or an HTTP date), or None."""
    if not value:
        return None
    value = value.strip()
    try:
        seconds = float(value)
    except ValueError:
        try:
            when = email.utils.parsedate_to_datetime(value)
        except (TypeError, ValueError):
            return None
        if when is None:
            return None
        seconds = when.timestamp() - (time.time() if now is None else now)
    if seconds != seconds:  # NaN
        return None
    return max(0.0, seconds)


def _describe_validation(error: ValidationError, limit: int = 3) -> str:
    """``timeline is missing; count: Input should be a valid integer`` — no input values shown."""
    parts = []
    for item in error.errors(include_input=False, include_url=False)[:limit]:
        loc = ""
        for piece in item["loc"]:
            loc += f"[{piece}]" if isinstance(piece, int) else (f".{piece}" if loc else str(piece))
        loc = loc or "body"
        if item["type"] == "missing":
            parts.append(f"{loc} is missing")
        else:
            parts.append(f"{loc}: {item['msg']}")
    more = error.error_count() - limit
    if more > 0:
        parts.append(f"and {more} more")
    return "; ".join(parts)


class VapClient:
    """Async client for the Voice Agent Platform API, over one pooled httpx.AsyncClient.

    Use as ``async with VapClient(url, key) as client: ...`` or call ``aclose()`` when done.
    ``transport`` replaces the network (httpx.MockTransport in tests); ``sleep`` replaces the
    wait between retries (tests and the UI need not really wait). ``on_wait``, when set, hears
    about each wait before it starts (the failure and the seconds), so a UI can say why it waits.
    """

    def __init__(
        self,
        base_url: str,
        api_key: str,
        *,
        timeout: float = 10.0,
        max_retries: int = 2,
        transport: httpx.AsyncBaseTransport | None = None,
        sleep: Sleep = asyncio.sleep,
        backoff_base: float = 0.5,
        retry_after_cap: float = RETRY_AFTER_CAP,
    ) -> None:
        url = httpx.URL(base_url.strip())
        if url.scheme not in ("http", "https") or not url.host:
            raise ValueError(
                f"base_url must be an http:// or https:// address, got {base_url.strip()!r}"
            )
        if not api_key or not api_key.strip():
            raise ValueError("api_key is required")
        if max_retries < 0:
            raise ValueError("max_retries must be 0 or more")
        self._base_url = str(url).rstrip("/")
        self._auth = _BearerAuth(api_key.strip())
        self._key_hint = mask_key(api_key.strip())
        self.max_retries = max_retries
        self.backoff_base = backoff_base
        self.retry_after_cap = retry_after_cap
        self._sleep = sleep
        self.on_wait: Callable[[errors.ApiError, float], None] | None = None
        self._random = random.Random()
        _install_log_scrubber()
        self._http = httpx.AsyncClient(
            base_url=self._base_url,
            auth=self._auth,
            timeout=timeout,
            transport=transport,
            headers={"User-Agent": f"vap-console/{__version__}", "Accept": "application/json"},
            follow_redirects=False,
        )

    # --- lifecycle and identity ---

    @property
    def base_url(self) -> str:
        return self._base_url

    @property
    def key_hint(self) -> str:
        """The key masked to its last four characters, for status lines."""
        return self._key_hint

    def __repr__(self) -> str:
        return f"VapClient(base_url={self._base_url!r}, api_key={self._key_hint!r})"

    __str__ = __repr__

    async def __aenter__(self) -> VapClient:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        await self._http.aclose()

    @property
    def closed(self) -> bool:
        return self._http.is_closed

    # --- phone numbers ---

    async def rent_number(
        self,
        application: RentalApplication,
        *,
        idempotency_key: str | None = None,
        on_progress: ProgressCallback | None = None,
    ) -> Rental:
        """POST /v1/phone-numbers. Validates the files first (RentalValidationError, nothing sent).

        Charges the wallet: on OutcomeUnknown or a retryable error, send again with the same
        ``idempotency_key`` (the error carries it as ``.idempotency_key``) to avoid renting twice.
        """
        application.validate_files()
        body = application.build_body()
        response = await self._send(
            "POST", "/v1/phone-numbers", body=body, idempotency_key=idempotency_key,
            on_progress=on_progress,
        )
        return self._parse(Rental, response, "POST /v1/phone-numbers")

    async def get_rental(self, rental_id: str) -> Rental:
        path = f"/v1/phone-numbers/{_segment(rental_id)}"
        return self._parse(Rental, await self._send("GET", path), f"GET {path}")

    async def list_rentals(self) -> Page[Rental]:
        """Extension: GET /v1/phone-numbers. NotSupported when the server lacks it."""
        return await self._get_model(Page[Rental], "/v1/phone-numbers", extension=True)

    async def search_numbers(
        self,
        country_iso: str,
        number_type: str | None = None,
        pattern: str | None = None,
        city: str | None = None,
    ) -> Page[AvailableNumber]:
        """Extension: GET /v1/phone-numbers/available. NotSupported when the server lacks it."""
        params = _params(countryIso=country_iso, numberType=number_type, pattern=pattern, city=city)
        return await self._get_model(
            Page[AvailableNumber], "/v1/phone-numbers/available", params=params, extension=True
        )

    async def rental_requirements(
        self, country_iso: str, number_type: str | None = None
    ) -> RentalRequirements:
        """Extension: GET /v1/phone-numbers/requirements. NotSupported when the server lacks it."""
        params = _params(countryIso=country_iso, numberType=number_type)
        return await self._get_model(
            RentalRequirements, "/v1/phone-numbers/requirements", params=params, extension=True
        )

    # --- tools and variables ---

    async def create_tool(self, tool: ToolCreate, *, idempotency_key: str | None = None) -> Tool:
        response = await self._send(
            "POST", "/v1/tools", json=tool.model_dump(mode="json", by_alias=True),
            idempotency_key=idempotency_key,
        )
        return self._parse(Tool, response, "POST /v1/tools")

    async def delete_tool(self, tool_id: str) -> None:
        await self._send("DELETE", f"/v1/tools/{_segment(tool_id)}")

    async def list_tools(self) -> Page[Tool]:
        """Extension: GET /v1/tools. NotSupported when the server lacks it."""
        return await self._get_model(Page[Tool], "/v1/tools", extension=True)

    async def list_variables(self) -> Page[Variable]:
        return await self._get_model(Page[Variable], "/v1/variables")

    # --- agents, templates, voices, web calls ---

    async def list_templates(self) -> Page[AgentTemplate]:
        return await self._get_model(Page[AgentTemplate], "/v1/agents/templates")

    async def create_agent(
        self, agent: AgentCreate, *, idempotency_key: str | None = None
    ) -> Agent:
        response = await self._send(
            "POST", "/v1/agents", json=agent.model_dump(mode="json", by_alias=True),
            idempotency_key=idempotency_key,
        )
        return self._parse(Agent, response, "POST /v1/agents")

    async def delete_agent(self, agent_ref: str) -> None:
        await self._send("DELETE", f"/v1/agents/{_segment(agent_ref)}")

    async def list_agents(self) -> Page[Agent]:
        """Extension: GET /v1/agents. NotSupported when the server lacks it."""
        return await self._get_model(Page[Agent], "/v1/agents", extension=True)

    async def list_voices(self) -> VoiceCatalog:
        return await self._get_model(VoiceCatalog, "/v1/voices")

    async def start_webcall(
        self, agent_ref: str, *, idempotency_key: str | None = None
    ) -> WebCallSession:
        response = await self._send(
            "POST", "/v1/webcall", json={"agentId": agent_ref}, idempotency_key=idempotency_key
        )
        return self._parse(WebCallSession, response, "POST /v1/webcall")

    # --- plumbing ---

    async def _get_model(
        self,
        model: type[M],
        path: str,
        *,
        params: Mapping[str, str] | None = None,
        extension: bool = False,
    ) -> M:
        response = await self._send("GET", path, params=params, extension=extension)
        return self._parse(model, response, f"GET {path}")

    def _parse(self, model: type[M], response: httpx.Response, what: str) -> M:
        try:
            # Straight from bytes: one pass in pydantic-core, no intermediate dicts.
            return model.model_validate_json(response.content)
        except ValidationError as exc:
            if any(item["type"] == "json_invalid" for item in exc.errors(include_input=False)):
                kind = response.headers.get("content-type", "no content type")
                problem = f"the answer to {what} is not JSON ({kind})"
            else:
                problem = f"the answer to {what} broke the schema: {_describe_validation(exc)}"
        # Raised outside the except block: no chained exception to drag internals along.
        raise errors.UnexpectedResponse(problem, status=response.status_code)

    def _backoff(self, attempt: int) -> float:
        # "Equal jitter": half the exponential step fixed, half random, so waits still grow.
        step = self.backoff_base * (2**attempt)
        return min(self.retry_after_cap, step / 2 + self._random.uniform(0, step / 2))

    async def _send(
        self,
        method: str,
        path: str,
        *,
        params: Mapping[str, str] | None = None,
        json: Any = None,
        body: RequestBody | None = None,
        idempotency_key: str | None = None,
        on_progress: ProgressCallback | None = None,
        extension: bool = False,
    ) -> httpx.Response:
        """Send with the retry rules above; a 2xx response, or an ApiError raised."""
        is_post = method == "POST"
        headers: dict[str, str] = {}
        if is_post:
            idempotency_key = idempotency_key or new_idempotency_key()
            headers["Idempotency-Key"] = idempotency_key
            if body is None:
                body = RequestBody.of_json(_dumps(json))
        attempt = 0
        # Whether an earlier attempt may have reached the server (for DELETE's 404 below).
        maybe_applied = False
        while True:
            request = self._http.build_request(
                method,
                path,
                params=params,
                headers={**headers, **body.headers} if body is not None else headers,
                content=body.stream(on_progress) if body is not None else None,
            )
            failure: errors.ApiError | None = None
            response: httpx.Response | None = None
            retry_after: float | None = None
            try:
                response = await self._http.send(request)
            except httpx.TransportError as exc:
                failure = _transport_failure(exc, method, path, is_post, self._base_url)
                if not isinstance(exc, (httpx.ConnectError, httpx.ConnectTimeout, httpx.PoolTimeout)):
                    maybe_applied = True
            if response is not None:
                if response.is_success:
                    return response
                retry_after = parse_retry_after(response.headers.get("retry-after"))
                if response.is_redirect:
                    # Not followed: a POST would turn into a GET, and the key would go along.
                    failure = errors.ApiError(
                        f"The server redirected {method} {path} to "
                        f"{response.headers.get('location')}; set the base URL to the new address",
                        status=response.status_code,
                        code="redirected",
                    )
                else:
                    failure = errors.error_from_body(
                        response.status_code, _json_or_none(response), retry_after
                    )
                if (
                    method == "DELETE"
                    and maybe_applied
                    and response.status_code == 404
                    and isinstance(failure, (errors.AgentNotFound, errors.ToolNotFound, errors.NotFound))
                ):
                    # An earlier attempt got through before its answer was lost: it is gone.
                    return response
                if extension and _means_not_supported(response.status_code, failure):
                    failure = errors.NotSupported(
                        f"This server does not offer {method} {path}",
                        status=response.status_code,
                    )
                elif response.status_code in (502, 503):
                    maybe_applied = maybe_applied or not is_post
            assert failure is not None
            if is_post:
                failure.idempotency_key = idempotency_key
            if attempt < self.max_retries and self._should_retry(method, response, failure):
                delay = (
                    min(retry_after, self.retry_after_cap)
                    if retry_after is not None
                    else self._backoff(attempt)
                )
                attempt += 1
                log.info("%s %s failed (%s); retry %d of %d in %.2f s", method, path,
                         failure.code, attempt, self.max_retries, delay)
                if self.on_wait is not None:
                    self.on_wait(failure, delay)
                await self._sleep(delay)
                continue
            raise failure

    @staticmethod
    def _should_retry(
        method: str, response: httpx.Response | None, failure: errors.ApiError
    ) -> bool:
        if response is None:
            # Transport failure: only idempotent methods, and not a broken configuration.
            return method != "POST" and failure.retryable
        if response.status_code == 429:
            return True
        if method == "POST":
            return False
        return response.status_code in RETRY_STATUSES and failure.code not in _PERMANENT_CODES


def _transport_failure(
    exc: httpx.TransportError, method: str, path: str, is_post: bool, base_url: str
) -> errors.ApiError:
    """Map an httpx failure to our error, keeping nothing of the request (its headers hold the key)."""
    what = f"{method} {path}"
    reason = str(exc) or type(exc).__name__
    if isinstance(exc, httpx.ConnectError):
        return errors.ConnectionFailed(f"Could not connect to {base_url}: {reason}")
    if isinstance(exc, (httpx.ConnectTimeout, httpx.PoolTimeout)):
        return errors.TimedOut(f"Could not connect to {base_url} in time; {what} was not sent")
    if is_post:
        return errors.OutcomeUnknown(
            f"{what} was sent but the connection ended before the answer ({reason})"
            if not isinstance(exc, httpx.TimeoutException)
            else f"{what} was sent but no answer came in time"
        )
    if isinstance(exc, httpx.TimeoutException):
        return errors.TimedOut(f"No answer to {what} in time")
    return errors.ConnectionFailed(f"The connection was lost during {what}: {reason}")


def _means_not_supported(status: int, failure: errors.ApiError) -> bool:
    """A 404/405 on an extension path means "not here" — unless it names a code of the spec."""
    if status == 405:
        return True
    return status == 404 and type(failure) in (errors.ApiError, errors.NotFound)


def _json_or_none(response: httpx.Response) -> Any:
    try:
        return response.json()
    except ValueError:
        return None


def _dumps(value: Any) -> bytes:
    return _json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode()


def _segment(value: str) -> str:
    """One path segment: an id can never walk to another path."""
    if not value or not str(value).strip():
        raise ValueError("an id is required")
    return quote(str(value).strip(), safe="")


def _params(**values: str | None) -> dict[str, str]:
    return {k: v for k, v in values.items() if v not in (None, "")}
