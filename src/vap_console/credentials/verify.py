"""Checking a key before it is stored: GET /v1/voices, the cheapest call needing the agent scope."""

from __future__ import annotations

from urllib.parse import urlsplit

from vap_console.api import errors

VERIFY_TIMEOUT = 15.0


async def verify_key(base_url: str, key: str) -> None:
    """Return when the server accepts ``key``; raise the client's ApiError otherwise."""
    from vap_console.api.client import VapClient

    async with VapClient(base_url, key, timeout=VERIFY_TIMEOUT, max_retries=1) as client:
        await client.list_voices()


def explain_verify_error(error: BaseException, base_url: str) -> str:
    """One sentence for a failed check, the same in the CLI and the console. Never the key."""
    host = urlsplit(base_url).netloc or base_url
    if isinstance(error, errors.Unauthorized):
        return f"key rejected by {host} (HTTP 401 unauthorized): it is mistyped, revoked or expired"
    if isinstance(error, errors.ForbiddenScope):
        return (
            f"the key lacks the agent scope (HTTP 403 forbidden_scope at {host}): "
            "create a key with the agent scope in the dashboard"
        )
    if isinstance(error, (errors.ConnectionFailed, errors.TimedOut)):
        return f"could not reach {base_url} ({error.code}): check the base URL and the network"
    if isinstance(error, (errors.NotFound, errors.UnexpectedResponse, errors.NotSupported)):
        # A web page or another service answered: the usual cause is a mistyped base URL.
        return (f"{host} did not answer like the API ({error.code}): is {base_url} the API's "
                "base URL (without /v1)?")
    if isinstance(error, errors.ApiError):
        return f"{host} did not accept the check: {str(error).rstrip('.')}"
    return f"could not check the key against {host} ({type(error).__name__})"
