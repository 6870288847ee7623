"""Where something secret may travel without TLS: to this machine, named so that no resolver decides.

One rule for every place a base URL is accepted (`vap login`, profiles.toml, VAP_BASE_URL, the
API client) and for the address `vap web` serves without --allow-remote:

- a literal loopback address: 127.0.0.0/8 or ::1 (brackets allowed);
- the name ``localhost`` itself, which resolvers answer from this machine.

Anything else goes to a resolver or the network first: ``api.localhost`` and ``localhost.`` (a
fully qualified name) were asked of DNS here, so an API key sent to them over http:// could have
left the machine in clear text. Both are refused: use ``localhost`` or ``127.0.0.1``.

Imported by the credentials layer at start-up: nothing here may import httpx or the client.
"""

from __future__ import annotations

from ipaddress import ip_address

LOCAL_NAME = "localhost"
# Said with each refusal, so a person sees which hosts plain http:// is allowed for.
RULE = "http:// is only for 127.0.0.0/8, [::1] or localhost (this machine); use https:// for any other host"


def is_this_machine(host: str) -> bool:
    """True for a literal loopback address (127.0.0.0/8, ::1) or ``localhost`` itself."""
    host = host.strip().lower()
    if host.startswith("[") and host.endswith("]"):
        host = host[1:-1]
    if host == LOCAL_NAME:
        return True
    try:
        return ip_address(host).is_loopback
    except ValueError:
        return False
