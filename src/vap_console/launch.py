"""`vap` and `vap --sandbox`: build the console for a profile or an embedded sandbox and run it.

Only the CLI layer imports the sandbox. Whatever happens, the terminal is restored and the
person sees at most one line about it, never a traceback.
"""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING, Any

from vap_console.literal import clean

if TYPE_CHECKING:
    from textual.app import App

    from vap_console.credentials import KeyStore, ResolvedCredentials
    from vap_console.tui.app import VapApp
    from vap_console.tui.settings import Settings

EXIT_OK = 0
EXIT_FAILURE = 1
# Set by `vap web` for each console it serves: the console then acts on its one profile only (no
# adding, switching or removing profiles, no key typed into a browser).
IN_BROWSER = "VAP_IN_BROWSER"


def _say(message: str) -> None:
    print(f"vap: {clean(message)}", file=sys.stderr)


def console_main(profile: str | None = None, sandbox: bool = False, speed: float = 1.0) -> int:
    try:
        if sandbox:
            return _run_on_sandbox(speed)
        return _run_on_profile(profile)
    except KeyboardInterrupt:
        return 130
    except Exception as exc:  # noqa: BLE001 - the last line of defence: one sentence, no traceback
        _say(f"could not run the console: {type(exc).__name__}: {exc}")
        return EXIT_FAILURE


def _run_on_sandbox(speed: float) -> int:
    if not 0 < speed < float("inf"):  # nan and inf too
        _say(f"--speed must be a number more than 0, got {speed:g}")
        return 2
    from vap_console.sandbox.process import start_in_process

    # First, before the console's own imports: the child starts on another core meanwhile.
    sandbox = start_in_process(speed=speed)
    # The sandbox forgets everything when it stops, so its id index lives and dies with it.
    index_dir = Path(tempfile.mkdtemp(prefix="vap-sandbox-"))
    try:
        from vap_console.api import VapClient  # first: it keeps httpx's own CLI from loading

        # isort: split
        import httpx

        from vap_console.credentials import LocalIndex
        from vap_console.sandbox.keys import DEFAULT_KEY
        from vap_console.tui.app import make_app
        from vap_console.tui.settings import Settings

        settings = Settings.load()
        # config.toml's [network] limits (deadlines, largest answer) apply here too.
        options = settings.client_options()
        app = make_app(
            # The sandbox speaks plain HTTP on loopback: a transport without TLS verification skips
            # loading the CA bundle, 100–200 ms of start-up spent on a context no request would use.
            # The address is asked for only when the client opens, by when the child is serving.
            client_factory=lambda: VapClient(
                sandbox.base_url, DEFAULT_KEY, transport=httpx.AsyncHTTPTransport(verify=False),
                **options,
            ),
            profile_name="sandbox",
            base_url="http://127.0.0.1",  # the port is the child's; the app takes it from the client
            local_index=LocalIndex("sandbox", data_dir=index_dir),
            settings=settings,
            on_sandbox=True,
        )
        return _run(app)
    finally:
        sandbox.stop()
        shutil.rmtree(index_dir, ignore_errors=True)


def _run_on_profile(profile: str | None) -> int:
    from vap_console.credentials import (
        CredentialsInputError,
        KeyStore,
        ProfilesFileError,
    )
    from vap_console.tui.screens.login import resolve_or_login
    from vap_console.tui.settings import Settings

    store = KeyStore()
    if os.environ.get(IN_BROWSER) == "1":
        return _run_in_browser(store, profile)
    try:
        # No usable key (none stored, a stored one the server refuses, or the keyring failing):
        # a login screen, not an error.
        creds = resolve_or_login(store, profile, check_stored=True)
    except (CredentialsInputError, ProfilesFileError) as exc:
        _say(str(exc))
        return EXIT_FAILURE
    if creds is None:
        _say("no API key entered: run `vap login`, set VAP_API_KEY, or try `vap --sandbox`")
        return EXIT_FAILURE
    return _run(profile_console(store, creds, Settings.load()))


def _run_in_browser(store: KeyStore, profile: str | None) -> int:
    """The console `vap web` serves: on the profile's stored key or none. No login screen: a key
    typed into the page could cross a network in clear text, and the page may be anyone's."""
    from vap_console.credentials import CredentialsInputError, KeyringUnavailable, ProfilesFileError
    from vap_console.tui.settings import Settings

    try:
        creds = store.resolve(profile)
    except (CredentialsInputError, ProfilesFileError, KeyringUnavailable) as exc:
        _say(str(exc))
        return EXIT_FAILURE
    if not creds.usable:
        _say(f"profile {creds.profile!r} has no usable key: run `vap login --profile {creds.profile}` "
             "on the machine serving this page")
        return EXIT_FAILURE
    app = profile_console(store, creds, Settings.load())
    app.in_browser = True
    return _run(app)


def profile_console(store: KeyStore, creds: ResolvedCredentials, settings: Settings | None = None) -> VapApp:
    """The console `vap` runs on resolved credentials (tests build it the same way)."""
    from vap_console.api import VapClient
    from vap_console.credentials import ProfilesFileError
    from vap_console.ledger.accounts import account_files
    from vap_console.tui.app import make_app, profile_label
    from vap_console.tui.settings import Settings

    key, base_url = creds.key, creds.base_url
    assert key is not None and base_url is not None
    try:
        stored = creds.profile in store.profiles.load().profiles
    except ProfilesFileError:
        stored = False
    # The calls ledger and the remembered ids are the account's (the server and key in use), not
    # the profile's: a VAP_API_KEY session against a sandbox keeps its calls apart from the real
    # account's. The profile's own key at its own server: its files, as always.
    files = account_files(store, creds)
    # config.toml's [network] limits (deadlines, largest answer) for the client.
    options = (settings or Settings()).client_options()
    app = make_app(
        client_factory=lambda: VapClient(base_url, key, **options),
        profile_name=creds.profile,
        base_url=base_url,
        local_index=files.index,
        ledger=files.ledger,
        settings=settings,
        credentials=store,
    )
    app.profile_label = profile_label(creds, stored=stored)
    from vap_console.credentials import key_host_warning

    warning = key_host_warning(key, base_url)
    if warning:
        app.start_warnings.append(warning)
    return app


def _run(app: App[Any]) -> int:
    result = app.run()
    code = app.return_code
    if code:
        return int(code)
    return int(result or EXIT_OK)
