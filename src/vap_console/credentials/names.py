"""Rules for the values the credentials layer writes to disk: profile names and base URLs.

A profile name becomes a file name (the local index) and a keyring user name, so it is kept to
a small safe alphabet. A base URL is checked so that no secret can hide in it (user:password@)
and so that a key is never sent in clear text to a remote host.
"""

from __future__ import annotations

import re
from ipaddress import ip_address
from urllib.parse import urlsplit

DEFAULT_PROFILE = "default"

_PROFILE_RE = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,63}")
_LOOPBACK_NAMES = {"localhost"}


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


def _is_loopback(host: str) -> bool:
    if host in _LOOPBACK_NAMES or host.endswith(".localhost"):
        return True
    try:
        return ip_address(host).is_loopback
    except ValueError:
        return False


def check_base_url(url: str) -> str:
    """Return the URL normalised (no trailing slash), or raise naming the rule it breaks."""
    url = url.strip()
    if not url:
        raise CredentialsInputError("base URL: must not be empty (for example https://api.example.com)")
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
    if parts.scheme == "http" and not _is_loopback(host):
        raise CredentialsInputError(
            f"base URL {url!r}: must use https:// for a remote host (the API key travels in a header)"
        )
    netloc = host if ":" not in host else f"[{host}]"
    if port is not None:
        netloc += f":{port}"
    path = parts.path.rstrip("/")
    if path.endswith("/v1"):
        # The client adds /v1 itself; a copied "…/v1" would otherwise double it.
        path = path[: -len("/v1")]
    return f"{parts.scheme}://{netloc}{path}"
