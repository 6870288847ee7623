"""A key travels over plain http:// only to this machine: a literal loopback address (127.0.0.0/8,
::1) or `localhost` itself. A name a resolver answers (`api.localhost`, `localhost.`) is refused, by
the one rule, wherever a base URL comes in: `vap login`, profiles.toml, VAP_BASE_URL, the client."""

from __future__ import annotations

import io
import re
from pathlib import Path

import httpx
import pytest

from vap_console import auth_cli
from vap_console.api import VapClient
from vap_console.credentials import CredentialsInputError, KeyStore, ProfileStore

KEY = "rk_test_agent0000000000000000000"
RULE = "http:// is only for 127.0.0.0/8, [::1] or localhost"

ACCEPTED = ["http://127.0.0.2:8787", "http://[::1]:1", "http://localhost:8787", "http://LOCALHOST:1"]
# localhost. is the fully qualified name: resolvers may ask DNS for it, so it is refused like
# api.localhost (which went to DNS here) and any other name.
REFUSED = ["http://api.localhost", "http://localhost.:1", "http://example.test", "http://127.0.0.1.example.test",
           "http://[::ffff:7f00:1]:1", "http://2130706433:1"]


class Pipe(io.StringIO):
    def isatty(self) -> bool:
        return False


@pytest.mark.parametrize("url", ACCEPTED)
def test_this_machine_is_accepted_everywhere(url: str, tmp_path: Path, memory_keyring, capsys) -> None:
    assert auth_cli.login("p", url, stdin=Pipe(KEY + "\n"), verify=lambda u, k: None) == 0
    assert ProfileStore().get("p") is not None
    ProfileStore(tmp_path).add("q", url)
    creds = KeyStore(profiles=ProfileStore(tmp_path), env={"VAP_BASE_URL": url, "VAP_API_KEY": KEY}).resolve()
    assert creds.base_url is not None and creds.base_url.startswith("http://")
    VapClient(url, KEY)


@pytest.mark.parametrize("url", REFUSED)
def test_any_other_host_is_refused_everywhere_naming_the_rule(url: str, tmp_path: Path, memory_keyring,
                                                              capsys) -> None:
    # vap login: exit 2, the flag and the rule named, nothing stored
    assert auth_cli.login("p", url, stdin=Pipe(KEY + "\n"), verify=lambda u, k: None) == 2
    said = capsys.readouterr().err
    assert "--base-url" in said and RULE in said and url in said
    assert memory_keyring.items == {} and ProfileStore().get("p") is None
    # a profile: refused, and profiles.toml not written
    store = ProfileStore(tmp_path)
    with pytest.raises(CredentialsInputError, match=re.escape(RULE)):
        store.add("q", url)
    assert not store.path.exists()
    # VAP_BASE_URL: refused naming the variable
    with pytest.raises(CredentialsInputError, match="VAP_BASE_URL") as caught:
        KeyStore(profiles=store, env={"VAP_BASE_URL": url, "VAP_API_KEY": KEY}).resolve()
    assert RULE in str(caught.value)
    # the client itself, for a caller that never went through the credentials layer
    with pytest.raises(ValueError, match=re.escape(RULE)):
        VapClient(url, KEY)
    with pytest.raises(ValueError, match=re.escape(RULE)):
        VapClient(url, KEY, transport=httpx.AsyncHTTPTransport(verify=False))


def test_https_and_in_process_transports_are_not_concerned() -> None:
    VapClient("https://api.example.test", KEY)
    # nothing leaves the process: a test's or the sandbox's ASGI transport may use any name
    VapClient("http://sandbox.test", KEY, transport=httpx.MockTransport(lambda request: httpx.Response(204)))
