"""The typed async client: one method per endpoint of the spec, plus the probed extensions.

Retry rules (DESIGN §2):

* GET and DELETE are retried on connection errors, timeouts, 429, 502 and 503, with exponential
  backoff and jitter, waiting Retry-After when the server sends it (capped at 60 s).
* POST is retried only on 429: the server says it did not process the request. Any other failure
  of a POST is raised as it is. A POST whose outcome is unknown (connection lost after it was sent,
  read timeout, deadline passed after sending) raises OutcomeUnknown and is never resent; a
  connect error before anything was sent raises ConnectionFailed, which is safe to retry.
* Every POST carries an Idempotency-Key, the caller's when given so that a retried submission is
  the same submission to the server.

Deadlines (the loop's clock, ``asyncio.timeout_at``):

* Each attempt has ``request_timeout`` (30 s) for everything: connecting, sending, waiting, and
  reading the whole body, not only each read (httpx's ``timeout``, 10 s, still bounds each
  connect, read and write). A body trickling in a byte at a time ends there.
* Each call has ``total_timeout`` (120 s, as the vendor's SDK) across its attempts and the waits
  between them: no retry is begun whose wait would end after it, and no attempt runs past it.
* Every byte sent or received pushes both deadlines later by ``1 / min_transfer_rate`` seconds
  (16 KiB/s, ~128 kbit/s): ten 5 MB documents on a slow uplink, or a 20 MB page on a slow link,
  are never cut off while they move at least that fast; a stall or a trickle is.
* When a deadline passes, a GET or DELETE raises TimedOut (retryable); a POST raises
  OutcomeUnknown once any of its body was handed to the network, else TimedOut (nothing sent).

Answers the client cannot use all raise UnexpectedResponse, saying what was asked, what came back
and what to do: a 2xx body that is not JSON, cut short, not UTF-8, badly encoded (Content-Encoding)
or breaking the schema; a redirect (Redirected, never followed); a status the API does not use
without the API's error body; a body over ``max_response_bytes`` (ResponseTooLarge, 64 MiB, read by
streaming and counting, Content-Length checked first). For a POST, an unusable 2xx may have taken
effect: the error has ``maybe_applied=True`` and the ``idempotency_key`` to resend with. No
exception other than an ApiError leaves a method, except ValueError for bad arguments and
RentalValidationError for an application that cannot be sent.

Bodies over ``parse_in_thread_bytes`` (1 MiB) are validated in a worker thread and in pieces of a
few hundred KiB (validate_in_pieces: pydantic-core holds the GIL for a whole call), so a large page
does not freeze the event loop; a rental's files are checked and read in worker threads too.

The API key is held by a masking auth object: it is in no repr, str, log record or exception.
"""

from __future__ import annotations

import asyncio
import contextlib
import email.utils
import functools
import json as _json
import logging
import random
import re
import time
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable, Generator, Mapping
from dataclasses import dataclass
from math import isfinite
from typing import Any, TypeVar, get_origin
from urllib.parse import quote

import httpx
from pydantic import BaseModel, TypeAdapter, ValidationError

from vap_console import __version__
from vap_console.api import errors
from vap_console.api.models import (
    Agent,
    AgentCreate,
    AgentLimits,
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
from vap_console.masking import visible_tail

M = TypeVar("M", bound=BaseModel)

log = logging.getLogger(__name__)

Sleep = Callable[[float], Awaitable[Any]]

RETRY_AFTER_CAP = 60.0
MIB = 1024 * 1024
# Defaults: see the module docstring and docs/api.md for the reasoning.
REQUEST_TIMEOUT = 30.0
TOTAL_TIMEOUT = 120.0
MIN_TRANSFER_RATE = 16 * 1024
MAX_RESPONSE_BYTES = 64 * MIB
# Measured (docs/api.md): below ~0.5 MiB a body parses on the loop in under ~5 ms, less than the
# GIL's 5 ms switch interval a worker thread makes the loop wait; from ~1 MiB the thread wins.
PARSE_IN_THREAD_BYTES = MIB
# An error body is read up to this much; beyond it the status alone says what happened.
ERROR_BODY_BYTES = MIB
# How long closing a response may take before the connection is simply dropped.
CLOSE_TIMEOUT = 5.0
RETRY_STATUSES = frozenset({429, 502, 503})
# An error the server will repeat however often it is asked: not worth a retry.
_PERMANENT_CODES = frozenset({errors.NotConfigured.code_name, errors.CallsNotConfigured.code_name})


def new_idempotency_key() -> str:
    """A fresh Idempotency-Key; pass the same one again to resend the same logical submission."""
    return str(uuid.uuid4())


def mask_key(key: str) -> str:
    """``…abcd``: enough to tell keys apart, never enough to use one (the rule: vap_console.masking)."""
    return f"…{visible_tail(key)}"


class _BearerAuth(httpx.Auth):
    """Adds the key at send time, so it never sits in a dict of headers that could be printed."""

    def __init__(self, key: str) -> None:
        self._key = key

    @property
    def secret(self) -> str:
        return self._key

    def auth_flow(self, request: httpx.Request) -> Generator[httpx.Request, httpx.Response, None]:
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
            seconds = when.timestamp() - (time.time() if now is None else now)
        except (TypeError, ValueError, IndexError, OverflowError, AttributeError):
            return None
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

    ``timeout`` bounds each connect, read and write (httpx); ``request_timeout`` each attempt as a
    whole; ``total_timeout`` the call with its retries; ``min_transfer_rate`` (bytes/s) is the pace
    at which a large body earns more time; ``max_response_bytes`` the largest body accepted;
    ``parse_in_thread_bytes`` the body size from which validation runs in a worker thread.
    """

    def __init__(
        self,
        base_url: str,
        api_key: str,
        *,
        timeout: float = 10.0,
        request_timeout: float = REQUEST_TIMEOUT,
        total_timeout: float = TOTAL_TIMEOUT,
        min_transfer_rate: float = MIN_TRANSFER_RATE,
        max_response_bytes: int = MAX_RESPONSE_BYTES,
        parse_in_thread_bytes: int = PARSE_IN_THREAD_BYTES,
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
        if not _API_KEY_CHARS.match(api_key.strip()):
            # It goes into a header: anything else fails at send time, in a message quoting it.
            raise ValueError("api_key must be printable ASCII without spaces")
        if max_retries < 0:
            raise ValueError("max_retries must be 0 or more")
        for name, value in (
            ("timeout", timeout), ("request_timeout", request_timeout),
            ("total_timeout", total_timeout), ("min_transfer_rate", min_transfer_rate),
            ("max_response_bytes", max_response_bytes),
        ):
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not (
                isfinite(value) and value > 0
            ):
                raise ValueError(f"{name} must be a number more than 0, got {value!r}")
        if parse_in_thread_bytes < 0:
            raise ValueError("parse_in_thread_bytes must be 0 or more")
        self._base_url = str(url).rstrip("/")
        self._auth = _BearerAuth(api_key.strip())
        self._key_hint = mask_key(api_key.strip())
        self.max_retries = max_retries
        self.backoff_base = backoff_base
        self.retry_after_cap = retry_after_cap
        self.request_timeout = float(request_timeout)
        self.total_timeout = float(total_timeout)
        self.min_transfer_rate = float(min_transfer_rate)
        self.max_response_bytes = int(max_response_bytes)
        self.parse_in_thread_bytes = int(parse_in_thread_bytes)
        self._sleep = sleep
        self.on_wait: Callable[[errors.ApiError, float], None] | None = None
        self._random = random.Random()
        # The last 2xx answer as it came (status, body bytes, x-request-id): what `vap … --json`
        # prints, so that a script sees exactly what the API returned, not a re-serialised model.
        self.last_answer: Answer | None = None
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
        max_retries: int | None = None,
    ) -> Rental:
        """POST /v1/phone-numbers. Validates the files first (RentalValidationError, nothing sent).

        Charges the wallet: on OutcomeUnknown or a retryable error, send again with the same
        ``idempotency_key`` (the error carries it as ``.idempotency_key``) to avoid renting twice.
        ``max_retries=0`` sends it once even after a 429 (`vap numbers rent` retries nothing).
        """
        # Stats and magic-byte reads in a worker thread: a slow disk never stalls the loop.
        body = await asyncio.to_thread(_checked_body, application)
        answer = await self._send(
            "POST", "/v1/phone-numbers", body=body, idempotency_key=idempotency_key,
            on_progress=on_progress, max_retries=max_retries,
        )
        return await self._parse(Rental, answer)

    async def get_rental(self, rental_id: str) -> Rental:
        path = f"/v1/phone-numbers/{_segment(rental_id)}"
        return await self._parse(Rental, await self._send("GET", path))

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
        answer = await self._send(
            "POST", "/v1/tools", json=tool.model_dump(mode="json", by_alias=True),
            idempotency_key=idempotency_key,
        )
        return await self._parse(Tool, answer)

    async def delete_tool(self, tool_id: str) -> None:
        await self._send("DELETE", f"/v1/tools/{_segment(tool_id)}", want_body=False)

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
        answer = await self._send(
            "POST", "/v1/agents", json=agent.model_dump(mode="json", by_alias=True),
            idempotency_key=idempotency_key,
        )
        return await self._parse(Agent, answer)

    async def delete_agent(self, agent_ref: str) -> None:
        await self._send("DELETE", f"/v1/agents/{_segment(agent_ref)}", want_body=False)

    async def list_agents(self) -> Page[Agent]:
        """Extension: GET /v1/agents. NotSupported when the server lacks it."""
        return await self._get_model(Page[Agent], "/v1/agents", extension=True)

    async def list_voices(self) -> VoiceCatalog:
        return await self._get_model(VoiceCatalog, "/v1/voices")

    async def get_agent(self, agent_ref: str) -> Agent:
        """GET /v1/agents/{ref} (the real service has it; the spec does not name it).
        NotSupported when the server lacks it; AgentNotFound for an unknown agent."""
        return await self._get_model(Agent, f"/v1/agents/{_segment(agent_ref)}", extension=True)

    async def agent_limits(self) -> AgentLimits:
        """GET /v1/agent/limits: the account's concurrent-call slots. NotSupported when absent."""
        return await self._get_model(AgentLimits, "/v1/agent/limits", extension=True)

    async def sandbox_deploy_agent(self, agent_ref: str) -> Agent:
        """Sandbox only (POST /sandbox/agents/{ref}/deploy): what the dashboard's Deploy does on
        the real service, which has no such endpoint. NotSupported elsewhere."""
        answer = await self._send(
            "POST", f"/sandbox/agents/{_segment(agent_ref)}/deploy", extension=True, max_retries=0,
        )
        return await self._parse(Agent, answer)

    async def start_webcall(
        self, agent_ref: str, *, idempotency_key: str | None = None
    ) -> WebCallSession:
        """POST /v1/webcall. Billed from the moment it is answered and holds a call slot, so it is
        never sent twice by the client, not even after a 429 (``max_retries=0``)."""
        answer = await self._send(
            "POST", "/v1/webcall", json={"agentId": agent_ref}, idempotency_key=idempotency_key,
            max_retries=0,
        )
        return await self._parse(WebCallSession, answer)

    # --- plumbing ---

    async def _get_model(
        self,
        model: type[M],
        path: str,
        *,
        params: Mapping[str, str] | None = None,
        extension: bool = False,
    ) -> M:
        answer = await self._send("GET", path, params=params, extension=extension)
        return await self._parse(model, answer)

    async def _parse(self, model: type[M], answer: _Answer) -> M:
        """The model from a 2xx body; UnexpectedResponse when the body cannot be it.

        A body over ``parse_in_thread_bytes`` is validated in a worker thread, in pieces (see
        validate_in_pieces): the loop keeps its turn every few milliseconds instead of waiting for
        the whole parse (a 50,000-variable page is 0.3 s here, 1.2-1.6 s with the UI's work).
        """
        data = answer.body if answer.body is not None else b""
        try:
            # Straight from bytes: one pass in pydantic-core, no intermediate dicts.
            if len(data) > self.parse_in_thread_bytes:
                return await asyncio.to_thread(validate_in_pieces, model, data)
            return model.model_validate_json(data)
        except ValidationError as exc:
            invalid = [e for e in exc.errors(include_input=False) if e["type"] == "json_invalid"]
            if invalid:
                problem = self._not_json(answer, invalid[0]["msg"].removeprefix("Invalid JSON: "))
            else:
                problem = (
                    f"The answer to {answer.what} breaks the API schema ({_describe_validation(exc)})"
                    ": check the base URL, or update vap-console for a newer API"
                )
        except Exception as exc:  # noqa: BLE001 - whatever a validator raised, the answer is unusable
            problem = (f"The answer to {answer.what} could not be read ({type(exc).__name__}): "
                       f"check the base URL {self._base_url}")
        # Raised outside the except block: no chained exception to drag internals along.
        raise self._clean(errors.UnexpectedResponse(
            problem, status=answer.status, maybe_applied=answer.method == "POST",
        ), answer.idempotency_key)

    def _not_json(self, answer: _Answer, why: str) -> str:
        size = len(answer.body or b"")
        media = _content_type(answer.content_type)
        got = (f"empty ({media})" if not size
               else f"not JSON ({media}, {size:,} bytes: {_shorten(why, 120)})")
        return (f"The answer to {answer.what} is {got}: check the base URL {self._base_url}; "
                "a proxy or login page may be answering")

    def _backoff(self, attempt: int) -> float:
        # "Equal jitter": half the exponential step fixed, half random, so waits still grow.
        step = self.backoff_base * (2**attempt)
        return float(min(self.retry_after_cap, step / 2 + self._random.uniform(0, step / 2)))

    def _clean(self, failure: errors.ApiError, idempotency_key: str | None = None) -> errors.ApiError:
        """The error as raised: the POST's key attached, no trace of the API key (a hostile server
        may echo it back in a message, a Location or a content type)."""
        if idempotency_key is not None:
            failure.idempotency_key = idempotency_key
        secret = self._auth.secret
        if secret in failure.message or any(secret in d.loc + d.message for d in failure.details):
            failure.message = failure.message.replace(secret, self._key_hint)
            failure.details = [
                errors.FieldError(d.loc.replace(secret, self._key_hint),
                                  d.message.replace(secret, self._key_hint))
                for d in failure.details
            ]
        location = getattr(failure, "location", None)
        if location and secret in location:
            failure.location = location.replace(secret, self._key_hint)  # type: ignore[attr-defined]  # getattr found one
        failure.args = (failure._sentence(),)
        return failure

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
        want_body: bool = True,
        max_retries: int | None = None,
    ) -> _Answer:
        """Send with the retry rules and deadlines above; a 2xx answer, or an ApiError raised."""
        is_post = method == "POST"
        what = f"{method} {path}"
        if self._http.is_closed:
            raise errors.ApiError(f"{what} was not sent: this client is closed",
                                  code="client_closed")
        headers: dict[str, str] = {}
        if is_post:
            idempotency_key = _checked_idempotency_key(idempotency_key)
            headers["Idempotency-Key"] = idempotency_key
            if body is None:
                body = RequestBody.of_json(_dumps(json))
        else:
            idempotency_key = None
        deadlines = _Deadlines(self)
        attempt = 0
        # Whether an earlier attempt may have reached the server (for DELETE's 404 below).
        reached = False
        while True:
            sent = _Sent()
            request = self._http.build_request(
                method,
                path,
                params=params,
                headers={**headers, **body.headers} if body is not None else headers,
                content=self._upload(body, on_progress, deadlines, sent) if body is not None else None,
            )
            response: httpx.Response | None = None
            data: bytearray | None = None
            problem: BaseException | None = None
            expired = False
            scope: asyncio.Timeout | None = None
            try:
                async with asyncio.timeout_at(deadlines.start_attempt()) as scope:
                    deadlines.scope = scope
                    try:
                        response = await self._http.send(request, stream=True)
                        data = await self._read(response, deadlines, want_body)
                    finally:
                        if response is not None:
                            await _close_quietly(response)
            except TimeoutError as exc:
                if scope is not None and scope.expired():
                    expired = True
                else:
                    problem = exc
            except _attempt_failures() as exc:
                problem = exc
            finally:
                deadlines.scope = None

            status = response.status_code if response is not None else None
            ok = status is not None and 200 <= status < 300
            retry_status = status
            retry_after: float | None = None
            if (expired or problem is not None) and (status is None or ok):
                # No answer, or a 2xx whose body could not be had: nothing to map by status.
                failure = self._attempt_failure(
                    what, is_post, status, problem, sent.started, deadlines.call_bound
                )
                retry_status = None
                reached = reached or status is not None or not isinstance(problem, _BEFORE_SENDING)
            else:
                # An answer. A non-2xx whose body could not be read is judged by its status.
                assert response is not None and status is not None
                answer = _Answer(method, what, status, response.headers.get("content-type", ""),
                                 data if not (expired or problem is not None) else None,
                                 idempotency_key)
                if ok:
                    answer.request_id = _request_id(response.headers)
                    self.last_answer = answer
                    return answer
                retry_after = parse_retry_after(response.headers.get("retry-after"))
                failure = self._error_answer(answer, response.headers, retry_after)
                # What support needs to find this request in the server's logs.
                failure.request_id = _request_id(response.headers)
                if (
                    method == "DELETE"
                    and reached
                    and status == 404
                    and isinstance(failure, (errors.AgentNotFound, errors.ToolNotFound, errors.NotFound))
                ):
                    # An earlier attempt got through before its answer was lost: it is gone.
                    return answer
                if extension and _means_not_supported(status, failure):
                    failure = errors.NotSupported(
                        f"This server does not offer {method} {path}", status=status,
                    )
                elif status in (502, 503):
                    reached = reached or not is_post
            retries = self.max_retries if max_retries is None else max_retries
            if attempt < retries and self._should_retry(method, retry_status, failure):
                delay = (
                    min(retry_after, self.retry_after_cap)
                    if retry_after is not None
                    else self._backoff(attempt)
                )
                # The call's budget: no wait that would end after it (the caller hears the last
                # failure now, with its Retry-After, rather than a timeout later).
                if delay < deadlines.left():
                    attempt += 1
                    log.info("%s %s failed (%s); retry %d of %d in %.2f s", method, path,
                             failure.code, attempt, self.max_retries, delay)
                    if self.on_wait is not None:
                        self.on_wait(self._clean(failure, idempotency_key), delay)
                    await self._sleep(delay)
                    continue
            raise self._clean(failure, idempotency_key)

    async def _upload(
        self,
        body: RequestBody,
        on_progress: ProgressCallback | None,
        deadlines: _Deadlines,
        sent: _Sent,
    ) -> AsyncIterator[bytes]:
        """The body as the transport pulls it: notes that sending began, and each chunk the
        transport takes buys time on the deadlines (a large upload on a slow link is not cut)."""
        async for chunk in body.stream(on_progress):
            sent.started = True
            yield chunk
            deadlines.moved(len(chunk))

    async def _read(
        self, response: httpx.Response, deadlines: _Deadlines, want_body: bool
    ) -> bytearray | None:
        """The body, streamed with a running count against the size limit.

        A 2xx body over the limit raises _TooLarge; an error body over its smaller limit is
        dropped (the status still says what happened); a redirect's is never read.
        """
        status = response.status_code
        if 200 <= status < 300:
            if not want_body:
                return None
            limit, strict = self.max_response_bytes, True
        elif 300 <= status < 400:
            return None
        else:
            limit, strict = min(self.max_response_bytes, ERROR_BODY_BYTES), False
        declared = _content_length(response)
        if declared is not None and declared > limit:
            if strict:
                raise _TooLarge(declared)
            return None
        data = bytearray()
        counted = 0
        async for chunk in response.aiter_bytes():
            raw = response.num_bytes_downloaded
            deadlines.moved(raw - counted)
            counted = raw
            if len(data) + len(chunk) > limit:
                if strict:
                    raise _TooLarge(None)
                return None
            data += chunk
        return data

    def _attempt_failure(
        self,
        what: str,
        is_post: bool,
        status: int | None,
        problem: BaseException | None,
        started: bool,
        call_bound: bool,
    ) -> errors.ApiError:
        """The error for an attempt that ended without a usable answer (``problem`` None: the
        deadline passed). ``status`` is set when a 2xx arrived but its body could not be had."""
        if problem is None:
            within = (f"the {self.total_timeout:g} s allowed for the call" if call_bound
                      else f"{self.request_timeout:g} s")
            advice = ("the server or the network is slow or stalled; try again, or raise "
                      "request_timeout under [network] in config.toml")
            if status is not None:
                if is_post:
                    return errors.OutcomeUnknown(
                        f"{what} was answered HTTP {status} but the body did not arrive within "
                        f"{within}", status=status)
                return errors.TimedOut(
                    f"The answer to {what} did not arrive in full within {within}: {advice}",
                    status=status)
            if is_post and not started:
                return errors.TimedOut(
                    f"{what} was not sent: no connection within {within}; check the network "
                    f"and the base URL {self._base_url}")
            if is_post:
                return errors.OutcomeUnknown(f"{what} was sent but no answer came within {within}")
            return errors.TimedOut(f"No answer to {what} within {within}: {advice}")
        if isinstance(problem, _TooLarge):
            size = f"{problem.size:,} bytes" if problem.size is not None else "more"
            return errors.ResponseTooLarge(
                f"The answer to {what} is over the {_mib(self.max_response_bytes)} limit ({size}): "
                f"raise max_response_mib under [network] in config.toml (max_response_bytes "
                f"for VapClient) if this much data is expected",
                status=status, max_bytes=self.max_response_bytes, maybe_applied=is_post,
            )
        if isinstance(problem, httpx.DecodingError):
            return errors.UnexpectedResponse(
                f"The answer to {what} could not be decoded ({_reason(problem)}): its body does "
                f"not match its Content-Encoding; check the base URL {self._base_url} and any "
                "proxy in between",
                status=status, maybe_applied=is_post,
            )
        if status is not None:
            reason = _reason(problem)
            if is_post:
                return errors.OutcomeUnknown(
                    f"{what} was answered HTTP {status} but the connection ended before the body "
                    f"arrived ({reason})", status=status)
            if isinstance(problem, (httpx.TimeoutException, TimeoutError)):
                return errors.TimedOut(f"The answer to {what} stopped arriving ({reason})",
                                       status=status)
            return errors.ConnectionFailed(
                f"The connection was lost while reading the answer to {what}: {reason}",
                status=status)
        return _transport_failure(problem, what, is_post, self._base_url)

    def _error_answer(
        self, answer: _Answer, headers: httpx.Headers, retry_after: float | None
    ) -> errors.ApiError:
        """The error for a non-2xx answer: the API's own error body when there is one, else the
        status's meaning, else UnexpectedResponse saying what came back."""
        status, what, is_post = answer.status, answer.what, answer.method == "POST"
        if 300 <= status < 400:
            location = headers.get("location")
            # 303 See Other is how a server says "done, the result is over there".
            applied = is_post and status == 303
            if location:
                location = _shorten(location, 300)
                return errors.Redirected(
                    f"The server redirected {what} to {location}; set the base URL to the new "
                    "address", status=status, location=location, maybe_applied=applied)
            return errors.Redirected(
                f"{what} was answered with a redirect that names no address: check the base URL "
                f"{self._base_url}; a proxy or login page may be answering",
                status=status, maybe_applied=applied)
        body = _json_or_none(answer.body)
        if errors.has_error_body(body):
            return errors.error_from_body(status, body, retry_after)
        # Not the API's error body: a proxy, a gateway, a web server.
        if errors.error_class_for(status, None) is errors.ApiError:
            got = _content_type(answer.content_type) if answer.body else "no body"
            return errors.UnexpectedResponse(
                f"{what} was answered with {got}, not an answer of the API: check the base URL "
                f"{self._base_url}; a proxy or login page may be answering",
                status=status)
        failure = errors.error_from_body(status, None, retry_after)
        if is_post and status >= 500 and status != 503:
            # A gateway's 502/504 or a crash page: the request may have gone through behind it.
            failure.maybe_applied = True
        return failure

    @staticmethod
    def _should_retry(method: str, status: int | None, failure: errors.ApiError) -> bool:
        if status is None:
            # Transport failure: only idempotent methods, and not a broken configuration.
            return method != "POST" and failure.retryable
        if status == 429:
            # The budget's 429 says "not processed, ask again later"; a full set of call slots
            # says nothing of when one frees.
            return not isinstance(failure, errors.ConcurrencyLimitExceeded)
        if method == "POST":
            return False
        return status in RETRY_STATUSES and failure.code not in _PERMANENT_CODES


@dataclass
class Answer:
    """A final answer: the status and the body as read (None when not read or unreadable)."""

    method: str
    what: str
    status: int
    content_type: str
    body: bytearray | None
    idempotency_key: str | None
    request_id: str | None = None


_Answer = Answer
_REQUEST_ID = re.compile(r"[A-Za-z0-9._:/+=-]{1,128}")


def _request_id(headers: httpx.Headers) -> str | None:
    """The server's ``x-request-id`` when it is a plausible id (it is quoted to people)."""
    value = headers.get("x-request-id", "").strip()
    return value if _REQUEST_ID.fullmatch(value) else None


@dataclass
class _Sent:
    """Whether the transport began pulling the request body: the request head is out."""

    started: bool = False


class _TooLarge(Exception):
    def __init__(self, size: int | None) -> None:
        self.size = size


class _Deadlines:
    """The attempt's deadline and the call's, on the loop's clock. Each byte moved (sent or
    received) pushes both later by 1/min_transfer_rate seconds: a large body moving at a slow
    but real pace is not cut off, a stall or a trickle is."""

    def __init__(self, client: VapClient) -> None:
        self._loop = asyncio.get_running_loop()
        self._per_attempt = client.request_timeout
        self._rate = client.min_transfer_rate
        self.call_end = self._loop.time() + client.total_timeout
        self.attempt_end = self.call_end
        self.scope: asyncio.Timeout | None = None

    def start_attempt(self) -> float:
        self.attempt_end = self._loop.time() + self._per_attempt
        return self.when

    @property
    def when(self) -> float:
        return min(self.attempt_end, self.call_end)

    @property
    def call_bound(self) -> bool:
        """Whether the call's budget, not the attempt's own deadline, is the nearer one."""
        return self.call_end < self.attempt_end

    def left(self) -> float:
        return self.call_end - self._loop.time()

    def moved(self, n: int) -> None:
        if n <= 0:
            return
        extra = n / self._rate
        self.attempt_end += extra
        self.call_end += extra
        scope = self.scope
        if scope is not None and not scope.expired():
            with contextlib.suppress(RuntimeError):  # the scope is closing: nothing left to extend
                scope.reschedule(self.when)


# --- validating a large body without holding the GIL for all of it ---

# pydantic-core holds the GIL for the whole of a model_validate_json call: moved to a worker thread
# as it is, a 10 MB page still stops the event loop's thread for the whole parse (measured: the
# loop's worst gap equals the parse time, 0.25-0.37 s, in a thread or not). Cut into calls of a
# few hundred KiB each, the interpreter can hand the GIL to the loop between them (every 5 ms,
# sys.getswitchinterval()).
PIECE_CHARS = 256 * 1024
_WHITESPACE = re.compile(r"[ \t\n\r]*")


def _skip_space(text: str, i: int) -> int:
    """The first index at or after ``i`` that is not JSON whitespace."""
    found = _WHITESPACE.match(text, i)
    assert found is not None  # a pattern that can match nothing matches at every index
    return found.end()


def _not_json_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


# Finds where each value ends (the objects it builds are thrown away); strict about control
# characters, and NaN/Infinity refused, as pydantic-core's parser is.
_SCANNER = _json.JSONDecoder(parse_constant=_not_json_constant)


class _NotPlain(ValueError):
    """The body is not the plain shape the piecewise path handles: validate it whole."""


@functools.lru_cache(maxsize=128)
def _list_fields(model: type[BaseModel]) -> dict[str, tuple[str, TypeAdapter[Any]]]:
    """The model's top-level list fields by wire name: (attribute, adapter for the list)."""
    found: dict[str, tuple[str, TypeAdapter[Any]]] = {}
    for name, field in model.model_fields.items():
        annotation = field.annotation
        if annotation is not None and get_origin(annotation) is list:
            found[field.alias or name] = (name, TypeAdapter(annotation))
    return found


def validate_in_pieces(model: type[M], data: bytes | bytearray) -> M:
    """``model.model_validate_json(data)``, the same result or the same ValidationError, in calls
    that each hold the GIL briefly: every top-level array of a list field (a page's ``items``) is
    validated a few hundred KiB of items at a time, the rest as a skeleton with those arrays empty.
    Anything unusual (not UTF-8, a duplicate key, an error anywhere) is validated whole instead,
    so the outcome and the error message are exactly model_validate_json's. Call it in a thread.
    """
    lists = _list_fields(model)
    if lists:
        try:
            return _pieces(model, lists, bytes(data).decode("utf-8"))
        except (ValueError, RecursionError):  # ValidationError is a ValueError too
            pass
    return model.model_validate_json(data)


def _pieces(model: type[M], lists: dict[str, tuple[str, TypeAdapter[Any]]], text: str) -> M:
    arrays = _top_level_arrays(text, lists)
    values: dict[str, list[Any]] = {}
    for key, (_, _, items) in arrays.items():
        adapter = lists[key][1]
        validated: list[Any] = []
        batch: list[str] = []
        size = 0
        for start, end in items:
            batch.append(text[start:end])
            size += end - start
            if size >= PIECE_CHARS:
                validated.extend(adapter.validate_json("[" + ",".join(batch) + "]"))
                batch, size = [], 0
        if batch:
            validated.extend(adapter.validate_json("[" + ",".join(batch) + "]"))
        values[key] = validated
    skeleton = text
    for start, end, _ in sorted(arrays.values(), reverse=True):
        skeleton = skeleton[:start] + "[]" + skeleton[end:]
    result = model.model_validate_json(skeleton)
    for key, value in values.items():
        setattr(result, lists[key][0], value)
    return result


def _top_level_arrays(
    text: str, wanted: Mapping[str, object]
) -> dict[str, tuple[int, int, list[tuple[int, int]]]]:
    """For each wanted key whose value is an array: (start, end, [(item start, item end)...])."""
    found: dict[str, tuple[int, int, list[tuple[int, int]]]] = {}
    seen: set[str] = set()
    i = _skip_space(text, 0)
    if text[i:i + 1] != "{":
        raise _NotPlain("not an object")
    i = _skip_space(text, i + 1)
    if text[i:i + 1] != "}":
        while True:
            key, i = _SCANNER.raw_decode(text, i)
            if not isinstance(key, str) or key in seen:
                raise _NotPlain("a key that is not a string, or twice")
            seen.add(key)
            i = _skip_space(text, i)
            if text[i:i + 1] != ":":
                raise _NotPlain("no colon")
            i = _skip_space(text, i + 1)
            if key in wanted and text[i:i + 1] == "[":
                start = i
                items, i = _array_items(text, i)
                found[key] = (start, i, items)
            else:
                _, i = _SCANNER.raw_decode(text, i)
            i = _skip_space(text, i)
            if text[i:i + 1] == ",":
                i = _skip_space(text, i + 1)
                continue
            if text[i:i + 1] == "}":
                break
            raise _NotPlain("no comma or closing brace")
    if _skip_space(text, i + 1) != len(text):
        raise _NotPlain("something after the object")
    return found


def _array_items(text: str, i: int) -> tuple[list[tuple[int, int]], int]:
    """The spans of the items of the array opening at ``i``, and the index after it."""
    items: list[tuple[int, int]] = []
    i = _skip_space(text, i + 1)
    if text[i:i + 1] == "]":
        return items, i + 1
    while True:
        _, end = _SCANNER.raw_decode(text, i)
        items.append((i, end))
        i = _skip_space(text, end)
        if text[i:i + 1] == ",":
            i = _skip_space(text, i + 1)
        elif text[i:i + 1] == "]":
            return items, i + 1
        else:
            raise _NotPlain("no comma or closing bracket")


# What may end an attempt (besides its deadline), whatever the layer it comes from: httpx's own
# errors (DecodingError is not a TransportError), h11's and anyio's should one slip through
# httpcore's mapping, and the operating system's. Built on first use: h11 and anyio come with
# httpcore, which httpx imports only when the first request goes out (start-up stays as it was).
@functools.cache
def _attempt_failures() -> tuple[type[BaseException], ...]:
    import anyio
    import h11

    return (
        httpx.HTTPError, httpx.StreamError, httpx.InvalidURL, h11.ProtocolError,
        anyio.BrokenResourceError, anyio.ClosedResourceError, anyio.EndOfStream, OSError,
        _TooLarge,
    )


def _is_protocol_error(exc: BaseException) -> bool:
    import h11

    return isinstance(exc, (httpx.ProtocolError, h11.ProtocolError, httpx.DecodingError))


# Failures that leave no doubt nothing was sent.
_BEFORE_SENDING = (httpx.ConnectError, httpx.ConnectTimeout, httpx.PoolTimeout, httpx.ProxyError)


async def _close_quietly(response: httpx.Response) -> None:
    """Close a streamed response; closing never turns an answer into a failure, nor hangs."""
    try:
        async with asyncio.timeout(CLOSE_TIMEOUT):
            await response.aclose()
    except (Exception, TimeoutError):  # noqa: BLE001 - the connection is dropped either way
        pass


def _transport_failure(
    exc: BaseException, what: str, is_post: bool, base_url: str
) -> errors.ApiError:
    """Map a failure before any answer to our error, keeping nothing of the request (its headers
    hold the key)."""
    reason = _reason(exc)
    if isinstance(exc, (httpx.ConnectError, httpx.ProxyError)):
        return errors.ConnectionFailed(f"Could not connect to {base_url}: {reason}")
    if isinstance(exc, (httpx.ConnectTimeout, httpx.PoolTimeout)):
        return errors.TimedOut(f"Could not connect to {base_url} in time; {what} was not sent")
    timeout = isinstance(exc, (httpx.TimeoutException, TimeoutError))
    if is_post:
        return errors.OutcomeUnknown(
            f"{what} was sent but no answer came in time" if timeout
            else f"{what} was sent but the connection ended before the answer ({reason})"
        )
    if timeout:
        return errors.TimedOut(f"No answer to {what} in time")
    if _is_protocol_error(exc):
        return errors.ConnectionFailed(
            f"The answer to {what} broke the HTTP protocol ({reason}): check the base URL "
            f"{base_url}; something other than the API may be answering")
    return errors.ConnectionFailed(f"The connection was lost during {what}: {reason}")


def _means_not_supported(status: int, failure: errors.ApiError) -> bool:
    """A 404/405 on an extension path means "not here" — unless it names a code of the spec."""
    if status == 405:
        return True
    return status == 404 and type(failure) in (errors.ApiError, errors.NotFound)


def _json_or_none(data: bytes | bytearray | None) -> Any:
    if not data:
        return None
    try:
        return _json.loads(data)
    except (ValueError, RecursionError):  # not JSON, not UTF-8, or nested beyond reason
        return None


def _reason(exc: BaseException) -> str:
    return _shorten(str(exc), 200) or type(exc).__name__


def _shorten(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[:limit] + "…"


def _content_type(value: str) -> str:
    """The media type alone (``text/html``), for messages: parameters are noise there."""
    return _shorten(value.split(";", 1)[0].strip(), 100) or "no content type"


def _content_length(response: httpx.Response) -> int | None:
    try:
        value = int(response.headers.get("content-length", ""))
    except ValueError:
        return None
    return value if value >= 0 else None


def _mib(n: int) -> str:
    return f"{n / MIB:g} MiB" if n >= MIB else f"{n:,} bytes"


# \Z, not $: a $ also matches before a final newline, which no header can carry.
_KEY_CHARS = re.compile(r"^[\x21-\x7e]{1,255}\Z")
_API_KEY_CHARS = re.compile(r"^[\x21-\x7e]+\Z")


def _checked_idempotency_key(value: str | None) -> str:
    """The caller's key, or a fresh one; ValueError for one no server could take as a header."""
    if value is None:
        return new_idempotency_key()
    if not isinstance(value, str) or not _KEY_CHARS.match(value):
        raise ValueError("idempotency_key must be 1 to 255 printable ASCII characters, no spaces")
    return value


def _checked_body(application: RentalApplication) -> RequestBody:
    """Validate the files and build the body (stats and reads: called in a worker thread)."""
    application.validate_files()
    return application.build_body()


def _dumps(value: Any) -> bytes:
    return _json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode()


def _segment(value: str) -> str:
    """One path segment: an id can never walk to another path."""
    if not value or not str(value).strip():
        raise ValueError("an id is required")
    return quote(str(value).strip(), safe="")


def _params(**values: str | None) -> dict[str, str]:
    return {k: v for k, v in values.items() if v not in (None, "")}
