"""`vap` and `vap --sandbox`: build the console for a profile or an embedded sandbox and run it.

Only the CLI layer imports the sandbox. Whatever happens, the terminal is restored and the
person sees at most one line about it, never a traceback.
"""

from __future__ import annotations

import shutil
import sys
import tempfile
from pathlib import Path

EXIT_OK = 0
EXIT_FAILURE = 1


def _say(message: str) -> None:
    print(f"vap: {message}", file=sys.stderr)


def console_main(profile: str | None = None, sandbox: bool = False, speed: float = 1.0) -> int:
    try:
        if sandbox:
            return _run_on_sandbox(speed)
        return _run_on_profile(profile)
    except KeyboardInterrupt:
        return 130
    except Exception as exc:  # the last line of defence: one sentence, no traceback
        _say(f"could not run the console: {type(exc).__name__}: {exc}")
        return EXIT_FAILURE


def _run_on_sandbox(speed: float) -> int:
    if speed <= 0:
        _say(f"--speed must be more than 0, got {speed:g}")
        return 2
    from vap_console.api import VapClient
    from vap_console.credentials import LocalIndex
    from vap_console.sandbox.server import start_in_thread
    from vap_console.sandbox.keys import DEFAULT_KEY
    from vap_console.tui.app import make_app
    from vap_console.tui.settings import Settings

    server = start_in_thread(speed=speed)
    # The sandbox forgets everything when it stops, so its id index lives and dies with it.
    index_dir = Path(tempfile.mkdtemp(prefix="vap-sandbox-"))
    try:
        base_url = server.base_url
        app = make_app(
            client_factory=lambda: VapClient(base_url, DEFAULT_KEY),
            profile_name="sandbox",
            base_url=base_url,
            local_index=LocalIndex("sandbox", data_dir=index_dir),
            settings=Settings.load(),
        )
        return _run(app)
    finally:
        server.stop()
        shutil.rmtree(index_dir, ignore_errors=True)


def _run_on_profile(profile: str | None) -> int:
    from vap_console.api import VapClient
    from vap_console.credentials import (
        CredentialsInputError,
        KeyStore,
        LocalIndex,
        ProfilesFileError,
    )
    from vap_console.tui.app import make_app
    from vap_console.tui.screens.login import resolve_or_login
    from vap_console.tui.settings import Settings

    store = KeyStore()
    try:
        # No usable key (none stored, or the keyring failing): a login screen, not an error.
        creds = resolve_or_login(store, profile)
    except (CredentialsInputError, ProfilesFileError) as exc:
        _say(str(exc))
        return EXIT_FAILURE
    if creds is None:
        _say("no API key entered: run `vap login`, set VAP_API_KEY, or try `vap --sandbox`")
        return EXIT_FAILURE
    key, base_url = creds.key, creds.base_url
    assert key is not None and base_url is not None
    app = make_app(
        client_factory=lambda: VapClient(base_url, key),
        profile_name=creds.profile,
        base_url=base_url,
        local_index=LocalIndex(creds.profile),
        settings=Settings.load(),
        credentials=store,
    )
    return _run(app)


def _run(app: object) -> int:
    result = app.run()  # type: ignore[attr-defined]
    code = app.return_code  # type: ignore[attr-defined]
    if code:
        return int(code)
    return int(result or EXIT_OK)
