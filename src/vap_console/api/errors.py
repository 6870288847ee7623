"""Errors the client raises: one class per code of spec section 7, plus transport failures.

Every message is a sentence for a person and names the code, so a banner can show ``str(err)``
as it is. No error ever carries the API key.

``maybe_applied`` is the one flag a caller needs before resending a POST: True when the request
may have taken effect although no usable answer says so (OutcomeUnknown always; an unusable 2xx
answer to a POST; a 303 See Other; a 5xx of a gateway rather than of the API). Check the state
(list the rentals, say) before sending it again, and send it again with ``idempotency_key``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar


@dataclass(frozen=True)
class FieldError:
    loc: str
    message: str

    @property
    def field(self) -> str:
        """The field path without the ``body.`` prefix: ``body.endUser.name`` → ``endUser.name``."""
        return self.loc.removeprefix("body.")


MAYBE_APPLIED_HINT = "It may have taken effect: check before sending it again."


def _said(piece: str, text: str) -> bool:
    """Whether ``text`` already says ``piece`` (case and a final full stop aside)."""
    said = piece.strip().rstrip(".").lower()
    return bool(said) and said in text.lower()


class ApiError(Exception):
    """An error answered by the server (or standing in for one)."""

    code_name: ClassVar[str | None] = None
    # What the user can do about it; shown after the server's message.
    hint: ClassVar[str] = ""
    # Set on errors of a POST: send again with this key and the server treats it as the same
    # submission (no second rental, no second charge).
    idempotency_key: str | None = None
    # What maybe_applied is when the constructor is not told.
    applied_by_default: ClassVar[bool] = False
    # The server's x-request-id for the answer, when it sent one: what its support asks for.
    request_id: str | None = None
    # An error of the realtime agent socket (api/realtime.py): the socket's close code (4401, 4000,
    # 1011…), where an HTTP error has its status.
    close_code: int | None = None

    def __init__(
        self,
        message: str = "",
        *,
        status: int | None = None,
        code: str | None = None,
        details: list[FieldError] | None = None,
        retry_after: float | None = None,
        limit: int | None = None,
        current: int | None = None,
        active_requests: int | None = None,
        maybe_applied: bool | None = None,
    ) -> None:
        self.status = status
        self.code = code or self.code_name or "error"
        self.message = message
        self.details: list[FieldError] = list(details or [])
        self.retry_after = retry_after
        self.limit = limit
        self.current = current
        # concurrency_limit_exceeded: the calls holding the account's slots.
        self.active_requests = active_requests
        # True when the request may have taken effect although no usable answer says so: check
        # before sending it again (see the module docstring).
        self.maybe_applied = self.applied_by_default if maybe_applied is None else maybe_applied
        super().__init__(self._sentence())

    @property
    def request_ref(self) -> str:
        """``request <id>`` for a person to quote to support; "" when the server sent no id. An id
        longer than 12 characters (the real service's) is cut to its first 8 and ``…``: enough
        to find it, short enough for a banner. The sandbox's (``sbx_`` and 8 hex) fit whole."""
        rid = self.request_id
        if not rid:
            return ""
        return f"request {rid if len(rid) <= 12 else rid[:8] + '…'}"

    def _sentence(self) -> str:
        return self.describe()

    def describe(self, *, one_line: bool = False) -> str:
        """The error in words: the one place an ApiError is described, for the console's banners
        and toasts (``str(error)``) and `vap`'s one line on stderr (``one_line``: the code first,
        the request id whole, fields without ``body.``, at most five of them).

        Nothing is said twice: a field problem, a hint or the maybe-applied warning that the
        server's message (or an earlier part) already says is left out; and a 2xx whose body was
        lost is not labelled with its status as if the server had refused (the message says what
        was answered)."""
        text = self.message.rstrip(".") if self.message else self.default_message()
        labels = [self.status_label] if self.status_label else []
        if one_line:
            labels += [f"request {self.request_id}"] if self.request_id else []
            sentence = f"{self.code}: {text}" + (f" ({', '.join(labels)})" if labels else "") + "."
        else:
            # The server's id for this answer: what the console's error states show to quote.
            labels += [self.code] + ([self.request_ref] if self.request_id else [])
            sentence = f"{text} ({', '.join(labels)})."
        details = [d for d in self.details if not _said(d.message, text)]
        if details:
            shown = details[:5] if one_line else details
            listed = "; ".join(f"{d.field if one_line else d.loc}: {d.message.rstrip('.')}" for d in shown)
            more = f"; and {len(details) - len(shown)} more" if len(details) > len(shown) else ""
            sentence += f" {listed}{more}."
        for extra in (self._more(), self.hint, MAYBE_APPLIED_HINT if self.maybe_applied else ""):
            # Servers often say the same thing already; repeating it reads as noise.
            if extra and not _said(extra, sentence):
                sentence += f" {extra}"
        return sentence

    def _more(self) -> str:
        """Sentences a kind of error adds after the message (a wait, the slots in use)."""
        return ""

    @property
    def status_label(self) -> str:
        """``HTTP 422`` for a status that refused; "" for none, and for a 2xx whose body was lost
        (the server did not refuse: labelling it "HTTP 200" reads as if it had)."""
        return f"HTTP {self.status}" if self.status and not 200 <= self.status < 300 else ""

    def default_message(self) -> str:
        return "The server answered with an error"

    def __str__(self) -> str:
        return self._sentence()

    def __repr__(self) -> str:
        applied = ", maybe_applied=True" if self.maybe_applied else ""
        return (f"{type(self).__name__}(status={self.status!r}, code={self.code!r}, "
                f"message={self.message!r}{applied})")

    @property
    def retryable(self) -> bool:
        return False


class Unauthorized(ApiError):
    code_name = "unauthorized"
    hint = "Check the API key: it may be mistyped, revoked or expired."

    def default_message(self) -> str:
        return "The API key was not accepted"


class ForbiddenScope(ApiError):
    code_name = "forbidden_scope"
    hint = "Create a key with the agent scope in the dashboard."

    def default_message(self) -> str:
        return "The API key lacks the agent scope"


class RateLimited(ApiError):
    code_name = "rate_limited"

    def default_message(self) -> str:
        return "The key's per-minute request budget is spent"

    def _more(self) -> str:
        return f"Retry after {self.retry_after:g} s." if self.retry_after is not None else ""

    @property
    def retryable(self) -> bool:
        return True


class AutopayRequired(ApiError):
    code_name = "telephony_autopay_required"
    hint = "Set up an auto-pay mandate for at least the first month's rent, then try again."

    def default_message(self) -> str:
        return "Renting needs an auto-pay mandate on this pay-as-you-go account"


class AccountIneligible(ApiError):
    code_name = "telephony_account_ineligible"

    def default_message(self) -> str:
        return "This account cannot rent numbers"


class DocumentInvalid(ApiError):
    code_name = "telephony_document_invalid"

    def default_message(self) -> str:
        return "A KYC document is missing, of the wrong type or too large"


class InvalidRequest(ApiError):
    code_name = "invalid_request"

    def default_message(self) -> str:
        return "The request has invalid fields"


class CarrierError(ApiError):
    """Any ``telephony_<carrier>_error``: the carrier refused; safe to retry later."""

    hint = "Safe to retry later."

    def default_message(self) -> str:
        return "The carrier refused the request"

    @property
    def retryable(self) -> bool:
        return True


class NotConfigured(ApiError):
    code_name = "telephony_not_configured"
    hint = "Rented numbers are not available on this deployment."

    def default_message(self) -> str:
        return "Number rentals are not configured here"


class AgentNotFound(ApiError):
    code_name = "agent_not_found"

    def default_message(self) -> str:
        return "No such agent"


class AgentNotDeployed(ApiError):
    """409: saving an agent makes a draft; only Deploy in the dashboard makes it take calls."""

    code_name = "agent_not_deployed"
    hint = "Deploy it in the dashboard (saving makes a draft; only Deploy makes it answer), then try again."

    def default_message(self) -> str:
        return "The agent is a draft and takes no calls yet"


# --- the call endpoints' own errors (reference/real-service.md) ---


class InsufficientBalance(ApiError):
    code_name = "insufficient_balance"
    hint = "Top up the account's balance in the dashboard, then try again."

    def default_message(self) -> str:
        return "The account's balance cannot cover a call"


class AccessBlocked(ApiError):
    code_name = "access_blocked"
    hint = "The account is paused after a failed payment: settle it in the dashboard to use it again."

    def default_message(self) -> str:
        return "The account is paused"


class ConcurrencyLimitExceeded(ApiError):
    """429 with ``active_requests`` and ``limit``: every concurrent-call slot is taken. Not a
    rate limit: waiting a few seconds does not help, a call ending does."""

    code_name = "concurrency_limit_exceeded"

    def default_message(self) -> str:
        return "Every concurrent-call slot of the account is in use"

    def _more(self) -> str:
        used = (f"{self.active_requests} of {self.limit} slots are in use. "
                if self.limit is not None and self.active_requests is not None else "")
        return used + "A slot frees when a caller leaves their call; try again then."


class AgentStartFailed(ApiError):
    """502: the agent did not start. Safe to retry, but a retry starts a billed call, so it is
    offered to the person, never done behind their back."""

    code_name = "agent_start_failed"
    hint = "Nothing was started; it is safe to try again."

    def default_message(self) -> str:
        return "The agent could not be started"

    @property
    def retryable(self) -> bool:
        return True


class CallsNotConfigured(ApiError):
    """503 ``not_configured``: the deployment has no voice agents. Asking again gives the same."""

    code_name = "not_configured"
    hint = "Voice agents are not available on this deployment; ask its operator, or use another base URL."

    def default_message(self) -> str:
        return "Voice agents are not configured here"


class ToolNotFound(ApiError):
    code_name = "agent_tool_not_found"

    def default_message(self) -> str:
        return "No such tool"


class NotFound(ApiError):
    """A 404 with no more specific code (an unknown rental, say)."""

    code_name = "not_found"

    def default_message(self) -> str:
        return "Not found"


class ServerError(ApiError):
    """A 5xx the spec does not name (plain 500, 503 from a proxy...)."""

    code_name = "server_error"

    def default_message(self) -> str:
        return "The server failed to answer"

    @property
    def retryable(self) -> bool:
        return True


# --- transport and protocol failures: no server error body behind them ---


class TransportError(ApiError):
    # True when no connection to the server could be made (refused, no route, a name that does
    # not resolve, a connect timeout): the server is out of reach, for every request. A request
    # that reached it and then waited too long or was cut off says nothing of the others.
    unreachable: bool = False


class ConnectionFailed(TransportError):
    code_name = "connection_failed"
    hint = "Check the network and the base URL."

    def default_message(self) -> str:
        return "Could not reach the server"

    @property
    def retryable(self) -> bool:
        return True


class TimedOut(TransportError):
    code_name = "timed_out"

    def default_message(self) -> str:
        return "The server took too long to answer"

    @property
    def retryable(self) -> bool:
        return True


class OutcomeUnknown(TransportError):
    """A POST was sent but no answer came back: it may or may not have taken effect."""

    code_name = "outcome_unknown"
    hint = MAYBE_APPLIED_HINT
    applied_by_default = True

    def default_message(self) -> str:
        return "The request was sent but no answer came back"


class UnexpectedResponse(ApiError):
    """An answer the client cannot use: not JSON (an HTML page, an empty or truncated body), a
    body that cannot be decoded, a schema break, a status the API does not use, a redirect, a body
    over the size limit. The message says what was asked, what came back and what to do."""

    code_name = "unexpected_response"

    def default_message(self) -> str:
        return "The server's answer did not match the API schema"


class Redirected(UnexpectedResponse):
    """A 3xx: never followed (a POST would turn into a GET, and the key would go along)."""

    code_name = "redirected"

    def __init__(self, message: str = "", *, location: str | None = None, **kwargs: Any) -> None:
        self.location = location
        super().__init__(message, **kwargs)


class ResponseTooLarge(UnexpectedResponse):
    """The body is over the client's ``max_response_bytes`` (config.toml ``max_response_mib``)."""

    code_name = "response_too_large"

    def __init__(self, message: str = "", *, max_bytes: int = 0, **kwargs: Any) -> None:
        self.max_bytes = max_bytes
        super().__init__(message, **kwargs)


class NotSupported(ApiError):
    """An extension endpoint (DESIGN §4) the server does not offer."""

    code_name = "not_supported"

    def default_message(self) -> str:
        return "This server does not offer that endpoint"


_BY_CODE: dict[str, type[ApiError]] = {
    cls.code_name: cls
    for cls in (
        Unauthorized, ForbiddenScope, RateLimited, AutopayRequired, AccountIneligible,
        DocumentInvalid, InvalidRequest, NotConfigured, AgentNotFound, ToolNotFound, NotFound,
        AgentNotDeployed, InsufficientBalance, AccessBlocked, ConcurrencyLimitExceeded, AgentStartFailed,
        CallsNotConfigured,
    )
    if cls.code_name
}


def is_carrier_code(code: str) -> bool:
    return code.startswith("telephony_") and code.endswith("_error")


def error_class_for(status: int, code: str | None) -> type[ApiError]:
    if code in _BY_CODE:
        return _BY_CODE[code]
    if code and is_carrier_code(code):
        return CarrierError
    if code is None:
        if status == 401:
            return Unauthorized
        if status == 429:
            return RateLimited
        if status == 404:
            return NotFound
        if status >= 500:
            return ServerError
    return ApiError


# A server's message longer than this is cut (a banner is no place for a page of text).
MAX_SERVER_MESSAGE = 2000


def error_from_body(status: int, body: Any, retry_after: float | None = None) -> ApiError:
    """Build the error for a non-2xx answer from its parsed JSON body (or None)."""
    code = message = None
    details: list[FieldError] = []
    limit = current = active = None
    if isinstance(body, dict):
        # {"error", "code"} is the service's envelope; its speech quickstart documents
        # {"errorCode", "message"}: either keeps its code and its message.
        code = _first_str(body, "code", "errorCode")
        message = _first_str(body, "error", "message")
        items = body.get("details")
        for item in items if isinstance(items, list) else []:
            if isinstance(item, dict):
                details.append(FieldError(str(item.get("loc", "")), str(item.get("message", ""))))
        limit = body.get("limit") if isinstance(body.get("limit"), int) else None
        current = body.get("current") if isinstance(body.get("current"), int) else None
        active = body.get("active_requests") if isinstance(body.get("active_requests"), int) else None
    if message and len(message) > MAX_SERVER_MESSAGE:
        message = message[:MAX_SERVER_MESSAGE] + "…"
    cls = error_class_for(status, code)
    return cls(
        message or "",
        status=status,
        code=code,
        details=details,
        retry_after=retry_after,
        limit=limit,
        current=current,
        active_requests=active,
    )


def _first_str(body: dict[str, Any], *names: str) -> str | None:
    for name in names:
        value = body.get(name)
        if isinstance(value, str):
            return value
    return None


def has_error_body(body: Any) -> bool:
    """Whether a parsed body is the API's error envelope, in either shape."""
    # "message" alone is not enough: many proxies answer {"message": ...} too.
    return isinstance(body, dict) and _first_str(body, "code", "errorCode", "error") is not None
