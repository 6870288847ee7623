"""`vap web`: the console in a browser, served by textual-serve.

Each browser tab that opens the URL gets its own console process (`vap --sandbox` or
`vap --profile NAME`) on this machine; the browser only ever sees the terminal's output. So:

- the API key stays here: each console resolves it itself (VAP_API_KEY, then the keyring), exactly
  as in a terminal, and nothing of it goes into the page, a URL or this process's output;
- every start makes a fresh random secret that prefixes every path the page uses (page, static
  files, websocket, downloads); any other path answers 403 before textual-serve sees it, so no
  process starts for it;
- closing a tab closes its websocket, which stops its console; Ctrl+C stops them all;
- at most ``max_consoles`` consoles run at once (each is a Python process and, with --sandbox, a
  sandbox process too); a tab beyond the cap is told so in its terminal and starts nothing.
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import hmac
import secrets
import shlex
import signal
import socket
import sys
from typing import Any

from vap_console.cleartext import is_this_machine
from vap_console.literal import clean

EXIT_OK = 0
EXIT_FAILURE = 1
EXIT_USAGE = 2
DEFAULT_PORT = 8000
DEFAULT_MAX_CONSOLES = 4
# A console asked to quit gets this long to end before it is killed (a hung one must not keep
# Ctrl+C or a closed tab waiting).
STOP_GRACE = 5.0


def _say(message: str) -> None:
    print(f"vap web: {clean(message)}", file=sys.stderr, flush=True)


def console_command(sandbox: bool, profile: str | None) -> str:
    """The shell command textual-serve runs for each tab. `exec` makes the console the process
    textual-serve holds (not a shell around it), so stopping it stops the console itself."""
    args = [sys.executable, "-m", "vap_console"]
    if sandbox:
        args.append("--sandbox")
    elif profile:
        args += ["--profile", profile]
    return "exec " + shlex.join(args)


def web_main(*, sandbox: bool, profile: str | None, host: str, port: int, allow_remote: bool,
             max_consoles: int) -> int:
    if not is_this_machine(host) and not allow_remote:
        _say(f"--host {host} is not a loopback address: add --allow-remote to serve other machines "
             "(the console then travels as plain HTTP)")
        return EXIT_USAGE
    if max_consoles < 1:
        _say("--max-consoles must be 1 or more")
        return EXIT_USAGE
    if not sandbox:
        problem = _key_problem(profile)
        if problem:
            _say(problem)
            return EXIT_FAILURE
    try:
        return asyncio.run(_serve(console_command(sandbox, profile), host, port, max_consoles))
    except KeyboardInterrupt:
        return EXIT_OK


def _key_problem(profile: str | None) -> str | None:
    """Why the profile's consoles could not start, checked once here rather than in every tab.
    Only whether a key exists is looked at: the key itself is not kept."""
    from vap_console.credentials import CredentialsInputError, KeyringUnavailable, KeyStore, ProfilesFileError

    try:
        creds = KeyStore().resolve(profile)
    except (CredentialsInputError, ProfilesFileError, KeyringUnavailable) as exc:
        return str(exc)
    except Exception as exc:  # noqa: BLE001 - a keyring that fails: its own sentence, never the key
        return f"could not read the keyring: {type(exc).__name__}"
    if creds.key is None:
        return f"profile {creds.profile!r} has no API key: run `vap login`, set VAP_API_KEY, or try `vap web --sandbox`"
    return None


async def _serve(command: str, host: str, port: int, max_consoles: int) -> int:
    from aiohttp import web

    server = ConsoleServer(command, host=host, port=port, max_consoles=max_consoles)
    runner = web.AppRunner(await server.build(), access_log=None, handle_signals=False)
    await runner.setup()
    site = web.TCPSite(runner, host, port)
    try:
        await site.start()
    except OSError as exc:
        await runner.cleanup()
        if exc.errno == errno.EADDRINUSE:
            _say(f"port {port} on {host} is in use: pick another with --port")
        else:
            _say(f"cannot listen on {host}:{port}: {exc.strerror or exc}")
        return EXIT_FAILURE
    bound = runner.addresses[0][1] if runner.addresses else port  # the port the OS gave for --port 0
    print(server.url(host, bound), flush=True)
    _say(f"serving the console to a browser ({max_consoles} at most at once); Ctrl+C stops it")
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stop.set)
    try:
        await stop.wait()
    finally:
        stopped = await server.stop_all()
        await runner.cleanup()
        _say(f"stopped ({stopped} console{'s' if stopped != 1 else ''} ended)")
    return EXIT_OK


def _console_server_class() -> type:
    """The textual-serve Server with a secret path, a cap, and consoles it can stop. Built on first
    use so that `vap --help` never imports aiohttp."""
    import aiohttp_jinja2
    import jinja2
    from aiohttp import web
    from textual_serve.app_service import AppService
    from textual_serve.server import Server

    class TrackedConsole(AppService):
        async def end(self) -> None:
            """Ask the console to quit; kill it if it has not within STOP_GRACE."""
            # a console that cannot stop cleanly, for whatever reason, is killed below
            with contextlib.suppress(Exception):
                await asyncio.wait_for(asyncio.shield(self.stop()), STOP_GRACE)
            process = self._process
            if process is not None and process.returncode is None:
                process.kill()
                await process.wait()

    class _ConsoleServer(Server):
        def __init__(self, command: str, *, host: str, port: int, max_consoles: int) -> None:
            super().__init__(command, host=host, port=port, title="vap console")
            self.secret = secrets.token_urlsafe(24)
            self.max_consoles = max_consoles
            self.consoles: set[TrackedConsole] = set()
            self.sockets: set[web.WebSocketResponse] = set()

        def url(self, host: str, port: int) -> str:
            if host in ("0.0.0.0", "::", ""):
                host = socket.gethostname()
            shown = f"[{host}]" if ":" in host else host
            return f"http://{shown}:{port}/{self.secret}/"

        async def build(self) -> web.Application:
            inner = await self._make_app()
            inner.on_startup.clear()  # textual-serve's banner: `vap web` prints its one URL itself
            outer = web.Application(middlewares=[self._require_secret])
            outer.add_subapp(f"/{self.secret}/", inner)
            return outer

        @web.middleware
        async def _require_secret(self, request: web.Request, handler: Any) -> web.StreamResponse:
            first, _, _rest = request.path.lstrip("/").partition("/")
            # Constant time, so that timing does not reveal how much of a guess was right.
            if not (hmac.compare_digest(first.encode(), self.secret.encode()) and "/" in request.path[1:]):
                raise web.HTTPForbidden(text="403: this address needs the link `vap web` printed\n")
            return await handler(request)

        async def handle_index(self, request: web.Request) -> web.StreamResponse:
            # The page's links are built from the address the browser used (textual-serve builds
            # them from the listening host, wrong for a browser on another machine).
            origin = f"{request.scheme}://{request.host}"
            router = request.app.router
            static = f"{origin}{router['static'].url_for(filename='/')}".rstrip("/") + "/"
            websocket = ("wss" if request.scheme == "https" else "ws") + f"://{request.host}{router['websocket'].url_for()}"
            context = {
                "font_size": 16,
                "app_websocket_url": websocket,
                "config": {"static": {"url": static}},
                "application": {"name": self.title},
            }
            return aiohttp_jinja2.render_template("app_index.html", request, context)

        async def handle_websocket(self, request: web.Request) -> web.WebSocketResponse:
            websocket = web.WebSocketResponse(heartbeat=15)
            await websocket.prepare(request)
            if len(self.consoles) >= self.max_consoles:
                await websocket.send_bytes(
                    f"\r\nvap web: {self.max_consoles} consoles are already open (the cap, "
                    "--max-consoles): close a tab, then reload this one.\r\n".encode())
                await websocket.close()
                return websocket
            width = _int(request.query.get("width"), 80)
            height = _int(request.query.get("height"), 24)

            async def close() -> None:  # AppService awaits a close that returns nothing
                await websocket.close()

            console = TrackedConsole(self.command, write_bytes=websocket.send_bytes,
                                     write_str=websocket.send_str, close=close,
                                     download_manager=self.download_manager)
            self.consoles.add(console)
            self.sockets.add(websocket)
            try:
                await console.start(width, height)
                await self._process_messages(websocket, console)
            except asyncio.CancelledError:
                pass
            except Exception as exc:  # noqa: BLE001 - one line, never a traceback with locals in it
                _say(f"a console failed: {type(exc).__name__}")
            finally:
                self.sockets.discard(websocket)
                await console.end()  # the tab closed (or the server stops): its console ends
                self.consoles.discard(console)
                if not websocket.closed:
                    await websocket.close()
            return websocket

        async def stop_all(self) -> int:
            consoles = list(self.consoles)
            await asyncio.gather(*(console.end() for console in consoles), return_exceptions=True)
            await asyncio.gather(*(ws.close() for ws in list(self.sockets)), return_exceptions=True)
            return len(consoles)

    # jinja2 is imported above only so that a missing one fails here, with the others.
    del jinja2
    return _ConsoleServer


def _int(value: str | None, default: int) -> int:
    try:
        return max(1, min(int(value or default), 1000))
    except ValueError:
        return default


def ConsoleServer(command: str, *, host: str, port: int, max_consoles: int) -> Any:  # noqa: N802 - a class factory, named as the class it makes
    return _console_server_class()(command, host=host, port=port, max_consoles=max_consoles)
