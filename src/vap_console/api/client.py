"""The typed async client: one method per endpoint of the spec, plus the probed extensions.

VapClient holds the resource methods and parses each answer into its model; the rest is in
modules named for what they hold:

* sending.py: Sender, the retry rules (DESIGN §2), the deadlines and the body's size cap;
* answers.py: the Answer record and the ApiError for each way a call can fail;
* pieces.py: validate_in_pieces, a large page validated without holding the GIL for all of it;
* auth.py: the API key, added at send time and masked everywhere else;
* idempotency.py: Idempotency-Keys, made, checked and kept per submission.

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
import json
from collections.abc import Callable, Mapping
from math import isfinite
from typing import TYPE_CHECKING, TypeVar
from urllib.parse import quote

import httpx

from vap_console import __version__
from vap_console.api import errors, models
from vap_console.api.answers import Answer, describe_validation, not_json
from vap_console.api.auth import BearerAuth, install_log_scrubber, is_header_safe, mask_key
from vap_console.api.sending import Sender, Sleep
from vap_console.cleartext import RULE, is_this_machine

if TYPE_CHECKING:
    # pydantic too: `vap tools try` reads its pages without it (get_light), ~200 ms of its start.
    from pydantic import BaseModel

    # Imported where used: a short command (`vap variables list`) loads only the models it parses
    # (api/models/__init__.py), not the agent socket, the speech rules or the rental upload.
    from vap_console.api.models import (
        Agent,
        AgentCreate,
        AgentLimits,
        AgentTemplate,
        AvailableNumber,
        CallRecord,
        Page,
        PlacedCall,
        Rental,
        RentalRequirements,
        SipTrunk,
        Tool,
        ToolCreate,
        Variable,
        VoiceCatalog,
        WebCallSession,
    )
    from vap_console.api.realtime import AgentSocket, CallTools, Connector, RegisteredCall
    from vap_console.api.rental import ProgressCallback, RentalApplication, RequestBody

M = TypeVar("M", bound="BaseModel")
L = TypeVar("L")

RETRY_AFTER_CAP = 60.0
MIB = 1024 * 1024
# Defaults: see sending.py's docstring and docs/api.md for the reasoning.
REQUEST_TIMEOUT = 30.0
TOTAL_TIMEOUT = 120.0
MIN_TRANSFER_RATE = 16 * 1024
MAX_RESPONSE_BYTES = 64 * MIB
# Measured (docs/api.md): below ~0.5 MiB a body parses on the loop in under ~5 ms, less than the
# GIL's 5 ms switch interval a worker thread makes the loop wait; from ~1 MiB the thread wins.
PARSE_IN_THREAD_BYTES = MIB


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
        # The key goes in a header: over a network without TLS only to this machine. An in-process
        # transport (a test's, the sandbox's ASGI one) sends nothing over a network at all.
        over_network = transport is None or isinstance(transport, httpx.AsyncHTTPTransport)
        if url.scheme == "http" and over_network and not is_this_machine(url.host):
            raise ValueError(f"base_url {base_url.strip()!r}: {RULE}")
        if not api_key or not api_key.strip():
            raise ValueError("api_key is required")
        if not is_header_safe(api_key.strip()):
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
        self._over_network = over_network
        self._transport = transport
        self._timeout = timeout
        self._plain: httpx.AsyncClient | None = None
        self._auth = BearerAuth(api_key.strip())
        self._key_hint = mask_key(api_key.strip())
        self.max_retries = max_retries
        self.backoff_base = backoff_base
        self.retry_after_cap = retry_after_cap
        self.request_timeout = float(request_timeout)
        self.total_timeout = float(total_timeout)
        self.min_transfer_rate = float(min_transfer_rate)
        self.max_response_bytes = int(max_response_bytes)
        self.parse_in_thread_bytes = int(parse_in_thread_bytes)
        self.on_wait: Callable[[errors.ApiError, float], None] | None = None
        install_log_scrubber()
        self._http = httpx.AsyncClient(
            base_url=self._base_url,
            auth=self._auth,
            timeout=timeout,
            transport=transport,
            headers={"User-Agent": f"vap-console/{__version__}", "Accept": "application/json"},
            follow_redirects=False,
        )
        # This client itself, not copies of its limits: a limit or on_wait changed later applies
        # from the next call on (sending.CallSettings).
        self._sender = Sender(self._http, self._auth, self._base_url, self, sleep)

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
        if self._plain is not None:
            await self._plain.aclose()

    @property
    def closed(self) -> bool:
        return self._http.is_closed

    @property
    def last_answer(self) -> Answer | None:
        """The last 2xx answer as it came (status, body bytes, x-request-id): what `vap … --json`
        prints, so that a script sees exactly what the API returned, not a re-serialised model."""
        return self._sender.last_answer

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
        answer = await self._sender.send(
            "POST", "/v1/phone-numbers", body=body, idempotency_key=idempotency_key,
            on_progress=on_progress, max_retries=max_retries,
        )
        return await self._parse(models.Rental, answer)

    async def get_rental(self, rental_id: str) -> Rental:
        path = f"/v1/phone-numbers/{_segment(rental_id)}"
        return await self._parse(models.Rental, await self._sender.send("GET", path))

    async def list_rentals(self) -> Page[Rental]:
        """Extension: GET /v1/phone-numbers. NotSupported when the server lacks it."""
        return await self._get_model(models.Page[models.Rental], "/v1/phone-numbers", extension=True)

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
            models.Page[models.AvailableNumber], "/v1/phone-numbers/available", params=params, extension=True
        )

    async def rental_requirements(
        self, country_iso: str, number_type: str | None = None
    ) -> RentalRequirements:
        """Extension: GET /v1/phone-numbers/requirements. NotSupported when the server lacks it."""
        params = _params(countryIso=country_iso, numberType=number_type)
        return await self._get_model(
            models.RentalRequirements, "/v1/phone-numbers/requirements", params=params, extension=True
        )

    # --- tools and variables ---

    async def create_tool(self, tool: ToolCreate, *, idempotency_key: str | None = None) -> Tool:
        answer = await self._sender.send(
            "POST", "/v1/tools", json=tool.model_dump(mode="json", by_alias=True),
            idempotency_key=idempotency_key,
        )
        return await self._parse(models.Tool, answer)

    async def delete_tool(self, tool_id: str) -> None:
        await self._sender.send("DELETE", f"/v1/tools/{_segment(tool_id)}", want_body=False)

    async def list_tools(self) -> Page[Tool]:
        """Extension: GET /v1/tools. NotSupported when the server lacks it."""
        return await self._get_model(models.Page[models.Tool], "/v1/tools", extension=True)

    async def list_variables(self) -> Page[Variable]:
        return await self._get_model(models.Page[models.Variable], "/v1/variables")

    # --- agents, templates, voices, web calls ---

    async def list_templates(self) -> Page[AgentTemplate]:
        return await self._get_model(models.Page[models.AgentTemplate], "/v1/agents/templates")

    async def create_agent(
        self, agent: AgentCreate, *, idempotency_key: str | None = None
    ) -> Agent:
        answer = await self._sender.send(
            "POST", "/v1/agents", json=agent.model_dump(mode="json", by_alias=True),
            idempotency_key=idempotency_key,
        )
        return await self._parse(models.Agent, answer)

    async def delete_agent(self, agent_ref: str) -> None:
        await self._sender.send("DELETE", f"/v1/agents/{_segment(agent_ref)}", want_body=False)

    async def list_agents(self) -> Page[Agent]:
        """Extension: GET /v1/agents. NotSupported when the server lacks it."""
        return await self._get_model(models.Page[models.Agent], "/v1/agents", extension=True)

    async def list_voices(self) -> VoiceCatalog:
        return await self._get_model(models.VoiceCatalog, "/v1/voices")

    async def get_agent(self, agent_ref: str) -> Agent:
        """GET /v1/agents/{ref} (the real service has it; the spec does not name it).
        NotSupported when the server lacks it; AgentNotFound for an unknown agent."""
        return await self._get_model(models.Agent, f"/v1/agents/{_segment(agent_ref)}", extension=True)

    async def agent_limits(self) -> AgentLimits:
        """GET /v1/agent/limits: the account's concurrent-call slots. NotSupported when absent."""
        return await self._get_model(models.AgentLimits, "/v1/agent/limits", extension=True)

    async def sandbox_deploy_agent(self, agent_ref: str) -> Agent:
        """Sandbox only (POST /sandbox/agents/{ref}/deploy): what the dashboard's Deploy does on
        the real service, which has no such endpoint. NotSupported elsewhere."""
        answer = await self._sender.send(
            "POST", f"/sandbox/agents/{_segment(agent_ref)}/deploy", extension=True, max_retries=0,
        )
        return await self._parse(models.Agent, answer)

    async def start_webcall(
        self, agent_ref: str, *, idempotency_key: str | None = None
    ) -> WebCallSession:
        """POST /v1/webcall. Billed from the moment it is answered and holds a call slot, so it is
        never sent twice by the client, not even after a 429 (``max_retries=0``)."""
        answer = await self._sender.send(
            "POST", "/v1/webcall", json={"agentId": agent_ref}, idempotency_key=idempotency_key,
            max_retries=0,
        )
        return await self._parse(models.WebCallSession, answer)

    # --- speech ---

    async def synthesize(
        self,
        text: str,
        model: str = "muga",
        *,
        speaker: str | None = None,
        description: str | None = None,
        idempotency_key: str | None = None,
    ) -> bytes:
        """POST /v1/tts: the WAV (24 kHz mono 16-bit) of ``text`` in ``model``'s voice.

        Costs money on the real service. The engine's rules are checked first (api/speech.py:
        SpeechRequestError, a ValueError naming each field, and nothing sent); like every POST it
        is sent again only after a 429 that says it was not processed. An answer that is not such a
        WAV raises UnexpectedResponse (it may have been charged: ``maybe_applied``).
        """
        from vap_console.api import speech

        speech.check_speech(text, model, speaker, description)
        answer = await self._sender.send(
            "POST", "/v1/tts", json=speech.request_body(text, model, speaker, description),
            idempotency_key=idempotency_key,
        )
        data = bytes(answer.body or b"")
        problem = speech.wav_problem(data)
        if problem is not None:
            raise self._sender.clean(errors.UnexpectedResponse(
                f"The answer to {answer.what} is not the promised audio: {problem}; check the base URL "
                f"{self._base_url}", status=answer.status, maybe_applied=True,
            ), answer.idempotency_key)
        return data

    # --- the realtime agent socket (api/realtime.py) ---

    async def register_call(self, agent_ref: str) -> RegisteredCall:
        """POST /v1/register-call: a one-use token for the agent socket. Registering bills nothing
        and takes no slot, but the token's socket starts a billed call, so the client never sends
        it twice by itself (``max_retries=0``): a new call is the person's decision."""
        answer = await self._sender.send(
            "POST", "/v1/register-call", json={"agent_id": agent_ref}, max_retries=0,
        )
        from vap_console.api.realtime import RegisteredCall

        return await self._parse(RegisteredCall, answer)

    def agent_socket(self, registered: RegisteredCall | str, *, connect: Connector | None = None) -> AgentSocket:
        """The session for a token (not yet connected: ``async with`` it). The socket's address is
        derived from the base URL; the API key is not sent on it, the token is the credential."""
        from vap_console.api.realtime import AgentSocket, socket_url

        token = registered if isinstance(registered, str) else registered.access_token
        url = socket_url(self._base_url, token)
        return AgentSocket(url) if connect is None else AgentSocket(url, connect=connect)

    async def tools_called(self, call_id: str) -> CallTools:
        """The tools a call used, from GET /v1/calls/{id}: ``toolsCalled`` (names) and
        ``toolCalls`` (each webhook call, its arguments and turn), sandbox extensions, each None
        when the record does not say. (Issue 25's ``get_call`` reads the whole record.)"""
        from vap_console.api.realtime import CallTools

        answer = await self._sender.send("GET", f"/v1/calls/{_segment(call_id)}", extension=True)
        return await self._parse(CallTools, answer)

    # --- calls ---

    async def place_call(
        self, agent_ref: str, to_number: str, from_trunk_id: str, *, idempotency_key: str | None = None
    ) -> PlacedCall:
        """POST /v1/calls: rings ``to_number`` from a SIP trunk (or a rented number) and is billed.

        Sent once, never again by the client, not even after a 429 (``max_retries=0``): a lost
        answer may mean the call exists (OutcomeUnknown; look for it before asking again)."""
        body = {"agentId": agent_ref, "toNumber": to_number, "fromTrunkId": from_trunk_id}
        answer = await self._sender.send(
            "POST", "/v1/calls", json=body, idempotency_key=idempotency_key, max_retries=0,
        )
        return await self._parse(models.PlacedCall, answer)

    async def get_call(self, call_id: str) -> CallRecord:
        """GET /v1/calls/{id}: status, duration, credits, transcript, a freshly signed recording URL."""
        return await self._get_model(models.CallRecord, f"/v1/calls/{_segment(call_id)}")

    async def get_sip_trunk(self, trunk_id: str) -> SipTrunk:
        return await self._get_model(models.SipTrunk, f"/v1/sip-trunks/{_segment(trunk_id)}")

    async def fetch_recording(self, url: str) -> bytes:
        """The WAV at a signed recording URL, fetched WITHOUT the API key.

        The signature is the credential ("never send the API key with them", voice.md §4), so this
        goes through a client of its own that has no auth at all; redirects are not followed and
        the URL is never put whole in an error (``recording_label``)."""
        from vap_console.api.models.calls import recording_label

        label = recording_label(url)
        try:
            target = httpx.URL(url)
        except (httpx.InvalidURL, TypeError) as exc:
            raise ValueError(f"not a recording URL: {label}") from exc
        if target.scheme not in ("http", "https") or not target.host:
            raise ValueError(f"not a recording URL: {label}")
        if target.scheme == "http" and self._over_network and not is_this_machine(target.host):
            raise ValueError(f"recording {label}: {RULE}")
        plain = self._plain_http()
        error_body = b""
        try:
            async with asyncio.timeout(self.request_timeout):
                async with plain.stream("GET", target) as response:
                    data = bytearray()
                    if 200 <= response.status_code < 300:
                        async for chunk in response.aiter_bytes():
                            data += chunk
                            if len(data) > self.max_response_bytes:
                                raise errors.ResponseTooLarge(
                                    f"The recording {label} is over {self.max_response_bytes} bytes",
                                    max_bytes=self.max_response_bytes,
                                )
                        status = response.status_code
                    else:
                        await response.aread()
                        status = response.status_code
                        error_body = response.content
        except TimeoutError:
            raise errors.TimedOut(f"The recording {label} took too long to come") from None
        except (httpx.HTTPError, OSError) as exc:
            raise errors.ConnectionFailed(
                f"The recording {label} could not be fetched ({type(exc).__name__})") from None
        if not 200 <= status < 300:
            try:
                parsed = json.loads(error_body)
            except ValueError:
                parsed = None
            failure = errors.error_from_body(status, parsed)
            failure.message = f"The recording {label} was refused: {failure.message or status}"
            failure.args = (failure._sentence(),)
            raise failure
        if not (data[:4] == b"RIFF" and data[8:12] == b"WAVE"):
            raise errors.UnexpectedResponse(f"The recording {label} is not a WAV file", status=status)
        return bytes(data)

    def _plain_http(self) -> httpx.AsyncClient:
        # Made on first use: most sessions never fetch a recording.
        if self._plain is None:
            self._plain = httpx.AsyncClient(
                transport=self._transport, follow_redirects=False, timeout=self._timeout,
                headers={"User-Agent": f"vap-console/{__version__}"},
            )
        return self._plain

    # --- plumbing ---

    async def _get_model(
        self,
        model: type[M],
        path: str,
        *,
        params: Mapping[str, str] | None = None,
        extension: bool = False,
    ) -> M:
        answer = await self._sender.send("GET", path, params=params, extension=extension)
        return await self._parse(model, answer)

    async def get_light(self, path: str, light: Callable[[bytes | bytearray | None], L | None],
                        model: Callable[[], type[M]], *, extension: bool = False) -> L | M:
        """GET ``path`` read by ``light`` (a reader without pydantic, api/tool_view.py), or, when
        it gives None, by the model ``model()`` names (called only then: naming it builds it),
        with ``_get_model``'s errors. For a short command: ``light`` reads on the loop."""
        answer = await self._sender.send("GET", path, extension=extension)
        read = light(answer.body)
        return read if read is not None else await self._parse(model(), answer)

    async def _parse(self, model: type[M], answer: Answer) -> M:
        """The model from a 2xx body; UnexpectedResponse when the body cannot be it.

        A body over ``parse_in_thread_bytes`` is validated in a worker thread, in pieces (see
        validate_in_pieces): the loop keeps its turn every few milliseconds instead of waiting for
        the whole parse (a 50,000-variable page is 0.3 s here, 1.2-1.6 s with the UI's work).
        """
        from pydantic import ValidationError

        data = answer.body if answer.body is not None else b""
        try:
            # Straight from bytes: one pass in pydantic-core, no intermediate dicts.
            if len(data) > self.parse_in_thread_bytes:
                from vap_console.api.pieces import validate_in_pieces

                return await asyncio.to_thread(validate_in_pieces, model, data)
            return model.model_validate_json(data)
        except ValidationError as exc:
            invalid = [e for e in exc.errors(include_input=False) if e["type"] == "json_invalid"]
            if invalid:
                problem = not_json(answer, invalid[0]["msg"].removeprefix("Invalid JSON: "), self._base_url)
            else:
                problem = (
                    f"The answer to {answer.what} breaks the API schema ({describe_validation(exc)})"
                    ": check the base URL, or update vap-console for a newer API"
                )
        except Exception as exc:  # noqa: BLE001 - whatever a validator raised, the answer is unusable
            problem = (f"The answer to {answer.what} could not be read ({type(exc).__name__}): "
                       f"check the base URL {self._base_url}")
        # Raised outside the except block: no chained exception to drag internals along.
        raise self._sender.clean(errors.UnexpectedResponse(
            problem, status=answer.status, maybe_applied=answer.method == "POST",
        ), answer.idempotency_key)


def _checked_body(application: RentalApplication) -> RequestBody:
    """Validate the files and build the body (stats and reads: called in a worker thread)."""
    application.validate_files()
    return application.build_body()


def _segment(value: str) -> str:
    """One path segment: an id can never walk to another path."""
    if not value or not str(value).strip():
        raise ValueError("an id is required")
    return quote(str(value).strip(), safe="")


def _params(**values: str | None) -> dict[str, str]:
    return {k: v for k, v in values.items() if v not in (None, "")}
