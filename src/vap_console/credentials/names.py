"""Rules for the values the credentials layer writes to disk: profile names and base URLs.

A profile name becomes a file name (the local index) and a keyring user name, so it is kept to
a small safe alphabet. A base URL is checked so that no secret can hide in it (user:password@)
and so that a key is never sent in clear text to a remote host.
"""

from __future__ import annotations

import re
from urllib.parse import urlsplit

from vap_console.cleartext import RULE, is_this_machine

DEFAULT_PROFILE = "default"
# The public service's base URL (its paths carry /v1; the base is given without it), which
# `vap login` offers so that a person types only the key.
DEFAULT_BASE_URL = "https://silk-api.rumik.ai"
# Key forms: real keys are rk_live_ + 24 characters; the sandbox's rk_test_ (or the older
# sk_sandbox_) keys only work on a sandbox.
LIVE_KEY_PREFIX = "rk_live_"
SANDBOX_KEY_PREFIXES = ("rk_test_", "sk_sandbox_")

_PROFILE_RE = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,63}")


class CredentialsInputError(ValueError):
    """A value the user typed breaks a rule; the message names the field and the rule."""


def check_profile_name(name: str) -> str:
    name = name.strip()
    if not _PROFILE_RE.fullmatch(name):
        raise CredentialsInputError(
            f"profile name {name!r}: use 1 to 64 letters, digits, '_', '.' or '-', "
            "starting with a letter or digit"
        )
    return name


def check_base_url(url: str) -> str:
    """Return the URL normalised (no trailing slash), or raise naming the rule it breaks."""
    url = url.strip()
    if not url:
        raise CredentialsInputError(f"base URL: must not be empty (for example {DEFAULT_BASE_URL})")
    try:
        parts = urlsplit(url)
        port = parts.port  # raises on a non-numeric port
    except ValueError as exc:
        raise CredentialsInputError(f"base URL {url!r}: not a valid URL ({exc})") from None
    if parts.scheme not in ("http", "https"):
        raise CredentialsInputError(
            f"base URL {url!r}: must start with https:// (or http:// for a local server)"
        )
    host = parts.hostname or ""
    if not host:
        raise CredentialsInputError(f"base URL {url!r}: has no host name")
    if parts.username is not None or parts.password is not None:
        # profiles.toml must never hold a secret, and user:password@ is one.
        raise CredentialsInputError(f"base URL for host {host!r}: must not contain a user name or password")
    if parts.query or parts.fragment:
        raise CredentialsInputError(f"base URL {url!r}: must not have a query or fragment")
    if parts.scheme == "http" and not is_this_machine(host):
        # The key travels in a header: in clear text over http://, to wherever the name resolves.
        raise CredentialsInputError(f"base URL {url!r}: {RULE}")
    netloc = host if ":" not in host else f"[{host}]"
    if port is not None:
        netloc += f":{port}"
    path = parts.path.rstrip("/")
    if path.endswith("/v1"):
        # The client adds /v1 itself; a copied "…/v1" would otherwise double it.
        path = path[: -len("/v1")]
    return f"{parts.scheme}://{netloc}{path}"


def key_host_warning(key: str, base_url: str) -> str | None:
    """One line when the key's form and the host do not go together, else None.

    A sandbox key sent to a real host is refused (and tells that host a key that was never meant
    for it); a live key sent to a local sandbox is unknown there and has left the real service's
    safety for a local process. Neither is an error: a person may know better, so it is a warning.
    The key itself is never quoted, only its well-known prefix.
    """
    host = urlsplit(base_url.strip()).hostname or ""
    if not host:
        return None
    local = is_this_machine(host)
    if key.startswith(SANDBOX_KEY_PREFIXES) and not local:
        return (f"warning: this is a sandbox test key (rk_test_…), but {host} is not a local sandbox; "
                "it will be refused there: use a live key (rk_live_…) from the dashboard")
    if key.startswith(LIVE_KEY_PREFIX) and local:
        return (f"warning: this is a live key (rk_live_…), but {host} is a local address (a sandbox?); "
                "a sandbox knows only its rk_test_ keys: keep live keys for the real service")
    return None
