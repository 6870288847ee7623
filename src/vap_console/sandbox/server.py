"""Serving the sandbox: ``vap sandbox serve`` in the foreground, or a background thread on a
free loopback port for ``vap --sandbox`` and tests."""

from __future__ import annotations

import contextlib
import ipaddress
import logging
import secrets
import signal
import socket
import sys
import threading
import time
from collections.abc import Iterator
from types import TracebackType
from typing import TYPE_CHECKING

import uvicorn
from starlette.applications import Starlette

from vap_console.sandbox.app import create_app
from vap_console.sandbox.clock import Clock, SystemClock
from vap_console.sandbox.faults import Faults, FaultSpecError
from vap_console.sandbox.keys import DEFAULT_KEY, KEYS
from vap_console.sandbox.scenarios import DESCRIPTIONS
from vap_console.sandbox.state import SandboxState

if TYPE_CHECKING:
    from vap_console.sandbox.voice.tool_calls import ToolCalling

EXIT_OK, EXIT_FAILURE, EXIT_USAGE = 0, 1, 2
_DROP_NOTICE = "ASGI callable returned without completing response"


class _QuietDrops(logging.Filter):
    """An injected dropped connection is on purpose: keep it out of the server's error log."""

    def filter(self, record: logging.LogRecord) -> bool:
        return _DROP_NOTICE not in record.getMessage()


_QUIET = _QuietDrops()


class _Server(uvicorn.Server):
    @contextlib.contextmanager
    def capture_signals(self) -> Iterator[None]:
        # uvicorn re-raises the signal after shutting down, which turns a clean SIGTERM stop into
        # death by signal; here Ctrl+C and SIGTERM just end serve() and the caller exits 0.
        if threading.current_thread() is not threading.main_thread():
            yield
            return
        handled = (signal.SIGINT, signal.SIGTERM)
        previous = {sig: signal.signal(sig, self.handle_exit) for sig in handled}
        try:
            yield
        finally:
            for sig, handler in previous.items():
                signal.signal(sig, handler)


# Embedded (vap --sandbox, tests): uvicorn must never write to the terminal under a full-screen
# UI, so its loggers go nowhere; a sandbox failure still answers a spec-shaped 500.
_EMBEDDED_LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"null": {"class": "logging.NullHandler"}},
    "loggers": {
        name: {"handlers": ["null"], "propagate": False}
        for name in ("uvicorn", "uvicorn.error", "uvicorn.access")
    },
}


def _config(app: object, *, log_config: object) -> uvicorn.Config:
    logging.getLogger("uvicorn.error").addFilter(_QUIET)
    return uvicorn.Config(
        app, lifespan="off", access_log=False, log_level="warning", log_config=log_config,  # type: ignore[arg-type]  # an ASGI app and a logging dict, typed object here
        timeout_graceful_shutdown=2,
        # The agent socket (sandbox/voice/agent_socket.py) through websockets' sans-I/O protocol,
        # named rather than "auto" so a missing library fails at start, not at the first call.
        # No per-message deflate: base64 audio hardly compresses, and deflating 50 frames a
        # second per call would be CPU spent for nothing.
        ws="websockets-sansio", ws_per_message_deflate=False,
    )


def _bind(host: str, port: int) -> socket.socket:
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    # proto=IPPROTO_TCP matters: asyncio only turns Nagle off (TCP_NODELAY) on sockets that say
    # they are TCP, and with Nagle on every keep-alive answer waits ~40 ms for a delayed ACK.
    sock = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
        # Listening now, not when uvicorn starts: `serve` prints its address first, and a client
        # that connects at once (a script, a test) waits in the backlog instead of being refused
        # while uvicorn still imports its protocols (websockets' takes a while).
        sock.listen(2048)
    except OSError:
        sock.close()
        raise
    sock.set_inheritable(True)
    return sock


def _url(host: str, port: int) -> str:
    return f"http://[{host}]:{port}" if ":" in host else f"http://{host}:{port}"


class RunningSandbox:
    """A sandbox served by uvicorn on a background thread; ``stop()`` or use it as a context manager."""

    def __init__(self, server: uvicorn.Server, thread: threading.Thread, sock: socket.socket, app: Starlette) -> None:
        self._server = server
        self._thread = thread
        self._sock = sock
        self.app = app
        host, port = sock.getsockname()[:2]
        self.host, self.port = host, port
        self.base_url = _url(host, port)

    @property
    def state(self) -> SandboxState:
        state: SandboxState = self.app.state.sandbox
        return state

    def stop(self, timeout: float = 5.0) -> None:
        self._server.should_exit = True
        self._thread.join(timeout)
        self._sock.close()

    def __enter__(self) -> RunningSandbox:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.stop()


def start_in_thread(
    *, speed: float = 1.0, rate_limit: int = 600, faults: str | Faults = "", clock: Clock | None = None,
    startup_timeout: float = 10.0, call_tools: ToolCalling | None = None,
) -> RunningSandbox:
    """Serve a fresh sandbox on 127.0.0.1 at a free port from a daemon thread; returns once it accepts."""
    app = create_app(clock=clock or SystemClock(speed), rate_limit=rate_limit, faults=faults, call_tools=call_tools)
    sock = _bind("127.0.0.1", 0)
    server = _Server(_config(app, log_config=_EMBEDDED_LOGGING))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, name="vap-sandbox", daemon=True)
    thread.start()
    deadline = time.monotonic() + startup_timeout
    while not server.started and thread.is_alive() and time.monotonic() < deadline:
        time.sleep(0.005)
    if not server.started:
        server.should_exit = True
        thread.join(startup_timeout)
        sock.close()
        raise RuntimeError("the sandbox server did not start")
    return RunningSandbox(server, thread, sock, app)


def _is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def banner(base_url: str, speed: float, rate_limit: int, faults: Faults) -> str:
    lines = [
        f"vap sandbox serving at {base_url}  (speed {speed:g}x, {rate_limit} requests/minute per key"
        + (f", faults {faults}" if faults.active or faults.socket_active else "") + ")",
        "",
        "Keys (send as Authorization: Bearer <key>):",
    ]
    width = max(len(k.key) for k in KEYS)
    lines += [f"  {k.key.ljust(width)}  {k.description}" for k in KEYS]
    lines += ["  (the older names sk_sandbox_<name>, e.g. sk_sandbox_agent, still work)"]
    lines += ["", "Scenario numbers (by the requested number's last four digits):"]
    lines += [f"  …{s.value}  {text}" for s, text in DESCRIPTIONS.items()]
    # The line a person pastes into another shell so that vap (and their scripts) use this sandbox.
    lines += ["", "Use it from another shell (vap and your scripts read these):",
              f"  export VAP_BASE_URL={base_url} VAP_API_KEY={DEFAULT_KEY}"]
    lines += ["", "Press Ctrl+C to stop."]
    return "\n".join(lines)


def serve_main(
    host: str = "127.0.0.1", port: int = 8787, speed: float = 1.0, rate_limit: int = 600,
    faults: str = "", allow_remote: bool = False, call_tools: bool = False, call_tools_hosts: tuple[str, ...] = (),
) -> int:
    """``vap sandbox serve``: serve in the foreground until Ctrl+C or SIGTERM."""
    if not _is_loopback(host) and not allow_remote:
        print(f"vap sandbox: refusing to serve on {host}, which is not loopback; "
              "pass --allow-remote to expose the sandbox to other machines", file=sys.stderr)
        return EXIT_USAGE
    if not speed > 0:
        print("vap sandbox: --speed must be greater than 0", file=sys.stderr)
        return EXIT_USAGE
    if rate_limit < 1:
        print("vap sandbox: --rate-limit must be at least 1", file=sys.stderr)
        return EXIT_USAGE
    if call_tools_hosts and not call_tools:
        print("vap sandbox: --call-tools-host goes with --call-tools", file=sys.stderr)
        return EXIT_USAGE
    if not 0 <= port <= 65535:
        print("vap sandbox: --port must be from 0 to 65535", file=sys.stderr)
        return EXIT_USAGE
    try:
        parsed = Faults.parse(faults)
    except FaultSpecError as exc:
        print(f"vap sandbox: {exc}", file=sys.stderr)
        return EXIT_USAGE
    bind_host = "localhost" if host == "localhost" else host.strip("[]")
    try:
        sock = _bind("127.0.0.1" if bind_host == "localhost" else bind_host, port)
    except OSError as exc:
        reason = "the port is already in use" if exc.errno in (98, 48, 10048) else (exc.strerror or str(exc))
        print(f"vap sandbox: cannot listen on {host}:{port}: {reason}", file=sys.stderr)
        return EXIT_FAILURE
    policy = None
    if call_tools:
        from vap_console.sandbox.voice.tool_calls import ToolCalling

        policy = ToolCalling(frozenset(h.strip().lower() for h in call_tools_hosts if h.strip()))
    # Call ids of its own: a console keeps calls across sandbox starts in one ledger (the account of
    # this address and key), where ids repeating from an earlier start took over older calls' rows.
    app = create_app(clock=SystemClock(speed), rate_limit=rate_limit, faults=parsed, call_tools=policy,
                     run_seed=secrets.token_hex(8))
    actual_port = sock.getsockname()[1]
    print(banner(_url(host, actual_port), speed, rate_limit, parsed), flush=True)
    if policy is not None:
        more = f" and {', '.join(sorted(policy.hosts))}" if policy.hosts else ""
        print(f"Calling the account's tools for real (--call-tools): loopback hosts{more} only.", flush=True)
    server = _Server(_config(app, log_config=uvicorn.config.LOGGING_CONFIG))
    try:
        server.run(sockets=[sock])
    finally:
        sock.close()
    print("vap sandbox: stopped", flush=True)
    return EXIT_OK
