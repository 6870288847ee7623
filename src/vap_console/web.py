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
  sandbox process too); a tab beyond the cap is told so in its terminal and starts nothing;
- a request must name an address this server is reached by in its Host header (DNS rebinding),
  and a websocket must come from the page's own Origin (cross-site websocket); else 403;
- every terminal size a tab asks for, first or later, is capped (MAX_COLUMNS × MAX_ROWS);
- the page is web_page.py's: nothing from other hosts, a strict Content-Security-Policy;
- a console ends with this server, even a killed one (tui/served_driver.py), and knows it is in a
  browser (IN_BROWSER): it acts on its one profile only.
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
from urllib.parse import urlsplit

from vap_console.cleartext import is_this_machine
from vap_console.launch import IN_BROWSER
from vap_console.literal import clean
from vap_console.web_page import COMMON_HEADERS, page

EXIT_OK = 0
EXIT_FAILURE = 1
EXIT_USAGE = 2
DEFAULT_PORT = 8000
DEFAULT_MAX_CONSOLES = 4
# A console asked to quit gets this long to end before it is killed (a hung one must not keep
# Ctrl+C or a closed tab waiting).
STOP_GRACE = 5.0
# The largest terminal a tab may ask for, first and on every resize: a console's memory grows with
# its size (100000×100000 asked once grew one past 1 GB in 12 s). 500×200 is a 4K screen at a
# small font.
MAX_COLUMNS = 500
MAX_ROWS = 200
SERVED_DRIVER = "vap_console.tui.served_driver:ServedDriver"


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
             max_consoles: int, origin: str | None = None) -> int:
    if not is_this_machine(host) and not allow_remote:
        _say(f"--host {host} is not a loopback address: add --allow-remote to serve other machines "
             "(the console then travels as plain HTTP)")
        return EXIT_USAGE
    if max_consoles < 1:
        _say("--max-consoles must be 1 or more")
        return EXIT_USAGE
    proxied = None
    if origin is not None:
        proxied = proxy_origin(origin)
        if proxied is None:
            _say(f"--origin {origin!r}: give the https:// address browsers use, scheme and host (and "
                 "port) only, for example https://console.example")
            return EXIT_USAGE
    if not sandbox:
        problem = _key_problem(profile)
        if problem:
            _say(problem)
            return EXIT_FAILURE
    try:
        return asyncio.run(_serve(console_command(sandbox, profile), host, port, max_consoles, allow_remote,
                                  proxied))
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


async def _serve(command: str, host: str, port: int, max_consoles: int, allow_remote: bool = False,
                 proxied: str | None = None) -> int:
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
    server.origins = {f"http://{name}": name for name in served_hosts(host, bound)}
    if proxied:
        server.origins[proxied] = proxied.split("://", 1)[1]
    print(server.url(host, bound, proxied), flush=True)
    _say(f"serving the console to a browser ({max_consoles} at most at once); Ctrl+C stops it")
    if allow_remote:
        _say("--allow-remote: this is plain HTTP. The link (its secret too) and everything on the console "
             "travel in clear text: serve only on a network you trust, or on loopback behind a TLS proxy "
             "(--origin https://NAME)")
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


def _host_port(host: str, port: int) -> set[str]:
    shown = f"[{host}]" if ":" in host else host
    return {f"{shown}:{port}".lower()} | ({shown.lower()} if port == 80 else set())


def proxy_origin(url: str) -> str | None:
    """``https://host[:port]`` lowercased, as a browser sends it in Origin; None for anything else."""
    try:
        parts = urlsplit(url.strip())
        port = parts.port
    except ValueError:
        return None
    if parts.scheme != "https" or not parts.hostname or parts.username or parts.password \
            or parts.path not in ("", "/") or parts.query or parts.fragment:
        return None
    host = f"[{parts.hostname}]" if ":" in parts.hostname else parts.hostname
    return f"https://{host}" + (f":{port}" if port not in (None, 443) else "")


def served_hosts(host: str, port: int) -> frozenset[str]:
    """The Host headers a request may carry: the addresses this server is reached by, with its
    port. Any other is a page on another name pointing at this port (DNS rebinding): refused."""
    if host in ("0.0.0.0", "::", ""):
        # Every address: the machine's name (what the printed link says) and what it resolves to.
        names = {socket.gethostname(), socket.getfqdn()}
        with contextlib.suppress(OSError):
            names |= {str(info[4][0]) for info in socket.getaddrinfo(socket.gethostname(), None)}
    else:
        names = {host}
    if is_this_machine(host) or host in ("0.0.0.0", "::", ""):
        names |= {"127.0.0.1", "localhost", "::1"}
    allowed: set[str] = set()
    for name in names:
        allowed |= _host_port(name.strip("[]"), port)
    return frozenset(allowed)


def _console_server_class() -> type:
    """The textual-serve Server with a secret path, a cap, and consoles it can stop. Built on first
    use so that `vap --help` never imports aiohttp."""
    from aiohttp import WSMsgType, web
    from textual_serve.app_service import AppService
    from textual_serve.server import Server

    class TrackedConsole(AppService):
        def _build_environment(self, width: int = 80, height: int = 24) -> dict[str, str]:
            environment = super()._build_environment(width, height)
            # Ends when this server does, even a killed one (tui/served_driver.py).
            environment["TEXTUAL_DRIVER"] = SERVED_DRIVER
            # Tells the console it is in a browser: it acts on its one profile only.
            environment[IN_BROWSER] = "1"
            return environment

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
            # Page origin -> the Host its requests carry: the addresses served (http://) and a
            # TLS proxy's (--origin). Set once the socket is bound (the port may be the OS's
            # choice): until then, none.
            self.origins: dict[str, str] = {}

        def url(self, host: str, port: int, proxied: str | None = None) -> str:
            if proxied:
                return f"{proxied}/{self.secret}/"
            if host in ("0.0.0.0", "::", ""):
                host = socket.gethostname()
            shown = f"[{host}]" if ":" in host else host
            return f"http://{shown}:{port}/{self.secret}/"

        async def build(self) -> web.Application:
            inner = await self._make_app()
            inner.on_startup.clear()  # textual-serve's banner: `vap web` prints its one URL itself
            outer = web.Application(middlewares=[self._require_host, self._require_secret])
            outer.add_subapp(f"/{self.secret}/", inner)
            outer.on_response_prepare.append(self._add_headers)
            return outer

        async def _add_headers(self, request: web.Request, response: web.StreamResponse) -> None:
            response.headers.update(COMMON_HEADERS)

        @web.middleware
        async def _require_host(self, request: web.Request, handler: Any) -> web.StreamResponse:
            # A page on another name that resolves here (DNS rebinding) sends that name: refused
            # before anything else, whatever the path.
            if request.headers.get("Host", "").lower() not in self.origins.values():
                raise web.HTTPForbidden(text="403: this server answers only to the address `vap web` printed\n")
            return await handler(request)

        @web.middleware
        async def _require_secret(self, request: web.Request, handler: Any) -> web.StreamResponse:
            first, _, _rest = request.path.lstrip("/").partition("/")
            # Constant time, so that timing does not reveal how much of a guess was right.
            if not (hmac.compare_digest(first.encode(), self.secret.encode()) and "/" in request.path[1:]):
                raise web.HTTPForbidden(text="403: this address needs the link `vap web` printed\n")
            return await handler(request)

        async def handle_index(self, request: web.Request) -> web.StreamResponse:
            # The page's links are built from the address the browser used (textual-serve builds
            # them from the listening host, wrong for a browser on another machine); the Host
            # header was checked against the served addresses already.
            router = request.app.router
            static = str(router["static"].url_for(filename="/")).rstrip("/") + "/"
            host = request.headers.get("Host", "").lower()
            tls = any(origin.startswith("https://") and served == host for origin, served in self.origins.items())
            websocket = f"{'wss' if tls else 'ws'}://{request.host}{router['websocket'].url_for()}"
            html, policy = page(title=self.title, static_url=static, websocket_url=websocket)
            return web.Response(text=html, content_type="text/html",
                                headers={"Content-Security-Policy": policy, "Cache-Control": "no-store"})

        async def _process_messages(self, websocket: web.WebSocketResponse, app_service: Any) -> None:
            """textual-serve's loop over the tab's messages, with every size capped like the first
            and anything malformed ignored (its own loop ended the session on a bad message)."""
            async for message in websocket:
                if message.type != WSMsgType.TEXT:
                    continue
                try:
                    envelope = message.json()
                except ValueError:
                    continue
                if not isinstance(envelope, list) or not envelope:
                    continue
                kind, data = envelope[0], envelope[1] if len(envelope) > 1 else None
                if kind == "stdin" and isinstance(data, str):
                    await app_service.send_bytes(data.encode("utf-8"))
                elif kind == "resize" and isinstance(data, dict):
                    await app_service.set_terminal_size(_size(data.get("width"), 80, MAX_COLUMNS),
                                                        _size(data.get("height"), 24, MAX_ROWS))
                elif kind == "ping" and isinstance(data, str):
                    await websocket.send_json(["pong", data])
                elif kind == "blur":
                    await app_service.blur()
                elif kind == "focus":
                    await app_service.focus()

        async def handle_websocket(self, request: web.Request) -> web.WebSocketResponse:
            # Only the page itself may open a console: a page on any other site (cross-site
            # websocket) sends its own Origin, and one with none is not a browser's page at all.
            origin = request.headers.get("Origin", "").lower()
            if self.origins.get(origin) != request.headers.get("Host", "").lower():
                raise web.HTTPForbidden(text="403: a console opens only from the page `vap web` serves\n")
            websocket = web.WebSocketResponse(heartbeat=15)
            await websocket.prepare(request)
            if len(self.consoles) >= self.max_consoles:
                await websocket.send_bytes(
                    f"\r\nvap web: {self.max_consoles} consoles are already open (the cap, "
                    "--max-consoles): close a tab, then reload this one.\r\n".encode())
                await websocket.close()
                return websocket
            width = _size(request.query.get("width"), 80, MAX_COLUMNS)
            height = _size(request.query.get("height"), 24, MAX_ROWS)

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

    return _ConsoleServer


def _size(value: object, default: int, largest: int) -> int:
    """A terminal dimension a tab asked for, as a number from 1 to ``largest``."""
    if isinstance(value, bool) or not isinstance(value, (int, str)):
        return default
    try:
        return max(1, min(int(value), largest))
    except ValueError:
        return default


def ConsoleServer(command: str, *, host: str, port: int, max_consoles: int) -> Any:  # noqa: N802 - a class factory, named as the class it makes
    return _console_server_class()(command, host=host, port=port, max_consoles=max_consoles)
