"""The `vap` command. Each subcommand's work lives in its own module, imported only when used,
so `vap --version` and `vap profiles` never pay for Textual or the sandbox."""

from __future__ import annotations

import contextlib
import re
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING, NoReturn

from vap_console import __version__

if TYPE_CHECKING:
    import argparse

EXIT_OK = 0
EXIT_FAILURE = 1
EXIT_USAGE = 2
# A rental the sandbox seeds active (the same one `vap numbers watch --help` names).
SEEDED_ACTIVE_RENTAL = "25b55625-a295-57db-828b-df59ee38b74a"


def build_parser() -> argparse.ArgumentParser:
    # argparse is imported here, not at the top: the area commands for scripts (click) never need it.
    import argparse

    from vap_console.scripting import AREA_SUMMARIES

    class _Parser(argparse.ArgumentParser):
        def error(self, message: str) -> NoReturn:  # one line, exit 2, no usage dump
            unknown = _UNKNOWN_CHOICE.search(message)
            if unknown and self.prog == "vap":
                message = unknown_command(unknown.group(1), [*AREA_SUMMARIES, *CONSOLE_COMMANDS])
            self.exit(EXIT_USAGE, f"vap: {message} (see `vap --help`)\n")

    parser = _Parser(
        prog="vap",
        description="Terminal console for the Voice Agent Platform API. `vap` alone opens the\n"
                    "console; each area is a command for scripts too.",
        epilog=("Example: vap tools list\n\n"
                "Each command has its own --help with an example (`vap agents --help`).\n"
                "See docs/cli.md."),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"vap-console {__version__}")
    parser.add_argument("--profile", metavar="NAME", help="profile to use (default: the active one)")
    parser.add_argument(
        "--sandbox",
        action="store_true",
        help="open the console on an embedded sandbox (no account, no keyring); before a command "
             "(`vap --sandbox tools list`), run that command on a fresh one",
    )
    parser.add_argument("--speed", type=float, default=1.0, metavar="TIMES",
                        help="sandbox clock speed (with --sandbox)")
    sub = parser.add_subparsers(dest="command", parser_class=_Parser, metavar="COMMAND",
                                title="commands")
    # The area commands run on click (scripting/), before argparse sees them: listed here so that
    # `vap --help` names every command, never parsed here.
    for area, summary in AREA_SUMMARIES.items():
        lowered = summary[0].lower() + summary[1:] if summary[1:2].islower() else summary
        sub.add_parser(area, help=lowered.rstrip("."), add_help=False)

    # Every page has an example that runs as written on the sandbox (tests/scripting/test_help_examples.py,
    # with VAP_BASE_URL and VAP_API_KEY set to a served sandbox's).
    login = sub.add_parser("login", help="store an API key in the OS keyring", epilog=(
        'example: echo "$VAP_API_KEY" | vap login --profile sandbox --base-url "$VAP_BASE_URL"\n\n'
        "On a terminal it asks for the key, hidden; piped, it reads the key from stdin."),
        formatter_class=argparse.RawDescriptionHelpFormatter)
    login.add_argument("--profile", dest="sub_profile", metavar="NAME",
                       help="profile name (default: the active one, else default)")
    login.add_argument("--base-url", metavar="URL", help="API base URL for this profile")

    logout = sub.add_parser("logout", help="remove a profile's key from the keyring", epilog=(
        'example: echo "$VAP_API_KEY" | vap login --profile sandbox --base-url "$VAP_BASE_URL" '
        "&& vap logout --profile sandbox --forget"), formatter_class=argparse.RawDescriptionHelpFormatter)
    logout.add_argument("--profile", dest="sub_profile", metavar="NAME", help="profile name (default: the active one)")
    logout.add_argument("--forget", action="store_true", help="also drop the profile")

    sub.add_parser("profiles", help="list profiles and where their keys come from",
                   epilog="example: vap profiles", formatter_class=argparse.RawDescriptionHelpFormatter)

    sandbox = sub.add_parser("sandbox", help="the local emulator of the API",
                             epilog="example: vap sandbox serve --port 0 --speed 10",
                             formatter_class=argparse.RawDescriptionHelpFormatter)
    sandbox_sub = sandbox.add_subparsers(dest="sandbox_command", parser_class=_Parser, required=True)
    serve = sandbox_sub.add_parser("serve", help="serve the sandbox on loopback", epilog=(
        "example: vap sandbox serve --port 0 --speed 10\n\n"
        "It prints its base URL, its keys and the export line that points vap at it; Ctrl+C stops it."),
        formatter_class=argparse.RawDescriptionHelpFormatter)
    serve.add_argument("--host", default="127.0.0.1", metavar="HOST", help="address to listen on (default 127.0.0.1)")
    serve.add_argument("--port", type=int, default=8787, metavar="PORT", help="port (default 8787; 0: a free one)")
    serve.add_argument("--speed", type=float, default=1.0, metavar="TIMES", help="clock speed; 10 = ten times faster")
    serve.add_argument("--rate-limit", type=int, default=600, metavar="N", help="requests per minute per key")
    serve.add_argument("--faults", default="", metavar="SPEC", help="latency=MS,error_rate=P,drop_rate=P,seed=N "
                       "(and socket_drop_after=S, socket_stall_after=S, socket_stall_for=S, socket_start_error=CODE; "
                       "hostile_text=1: terminal control in every string served; call_max_s=S; "
                       "agent_delay_ms=REF:MS, agent_credits_per_minute=REF:N)")
    serve.add_argument(
        "--allow-remote", action="store_true", help="allow a host other than loopback"
    )
    serve.add_argument("--call-tools", action="store_true",
                       help="call the account's tools' webhooks for real at the start of each agent-socket call "
                            "(loopback hosts only; docs/tools.md)")
    serve.add_argument("--call-tools-host", action="append", default=[], metavar="HOST",
                       help="a host besides loopback that --call-tools may call (repeatable)")
    sandbox_sub.add_parser(
        "openapi", help="print the sandbox's OpenAPI 3.1 document (what GET /openapi.json answers)",
        description="Print the OpenAPI 3.1 document of every operation the sandbox serves, as JSON, "
                    "without starting a server.",
        epilog="example: vap sandbox openapi > vap-sandbox.openapi.json",
    )

    web = sub.add_parser("web", help="serve the console to a browser (textual-serve)", epilog=(
        "example: vap web --sandbox --port 0\n\n"
        "It prints the one URL to open; Ctrl+C stops it."), formatter_class=argparse.RawDescriptionHelpFormatter)
    web.add_argument("--sandbox", dest="web_sandbox", action="store_true", help="each tab on its own embedded sandbox")
    web.add_argument("--profile", dest="sub_profile", metavar="NAME", help="profile to use (default: the active one)")
    web.add_argument("--host", default="127.0.0.1", metavar="HOST",
                     help="address to listen on (loopback unless --allow-remote)")
    web.add_argument("--port", type=int, default=8000, metavar="PORT", help="port to listen on (0: a free one)")
    web.add_argument("--allow-remote", action="store_true", help="allow a host other than loopback")
    web.add_argument("--max-consoles", type=int, default=4, metavar="N", help="consoles (tabs) running at once")
    web.add_argument("--origin", metavar="https://NAME",
                     help="the address browsers use when a TLS proxy in front serves this one "
                          "(the proxy passes the browser's Host header)")

    rental_example = f"example: vap rental watch {SEEDED_ACTIVE_RENTAL} && echo live"
    rental = sub.add_parser("rental", help="rental commands for scripts", epilog=rental_example,
                            formatter_class=argparse.RawDescriptionHelpFormatter)
    rental_sub = rental.add_subparsers(dest="rental_command", parser_class=_Parser, required=True)
    watch = rental_sub.add_parser("watch", help="print a rental's progress until it settles", epilog=(
        f"{rental_example}\n\nExit 0 once the rental is active, 1 if it failed, 2 usage or credentials."),
        formatter_class=argparse.RawDescriptionHelpFormatter)
    watch.add_argument("rental_id", metavar="ID", help="the rental's id (`vap numbers list`)")
    watch.add_argument("--profile", dest="sub_profile", metavar="NAME", help="profile to use (default: the active one)")
    watch.add_argument("--interval", type=float, default=2.0, metavar="SECONDS", help="seconds between polls")
    return parser


_UNKNOWN_CHOICE = re.compile(r"argument COMMAND: invalid choice: '([^']*)'")
CONSOLE_COMMANDS = ("login", "logout", "profiles", "sandbox", "web", "rental")


def unknown_command(word: str, commands: Sequence[str]) -> str:
    """``no command tool: did you mean `vap tools`? Commands: …``: one line, the near miss first."""
    import difflib

    close = difflib.get_close_matches(word, commands, n=1, cutoff=0.6)
    guess = f": did you mean `vap {close[0]}`?" if close else "."
    return f"no command {word!r}{guess} Commands: {', '.join(commands)}"


def sandboxed(argv: Sequence[str]) -> tuple[str, list[str]] | None:
    """``vap --sandbox [--speed N] <area> …``: the speed as given and the area command, else None."""
    from vap_console.scripting import wants

    args, speed, sandbox = list(argv), "1", False
    while args:
        if args[0] == "--sandbox":
            sandbox, args = True, args[1:]
        elif args[0] == "--speed" and len(args) > 1:
            speed, args = args[1], args[2:]
        elif args[0].startswith("--speed="):
            speed, args = args[0].partition("=")[2], args[1:]
        else:
            break
    return (speed, args) if sandbox and wants(args) else None


def run_on_sandbox(argv: Sequence[str], speed: str) -> int:
    """One area command on a fresh embedded sandbox: its key and address, never a profile's or the
    keyring's, and a calls ledger that goes with it (the sandbox forgets everything when it stops)."""
    import math
    import tempfile
    from pathlib import Path

    try:
        times = float(speed)
    except ValueError:
        times = math.nan
    if not 0 < times < math.inf:
        sys.stderr.write(f"vap: --speed must be a number more than 0, got {speed!r} (see `vap --help`)\n")
        return EXIT_USAGE
    from vap_console.credentials import ENV_BASE_URL, ENV_KEY, KeyStore, ProfileStore
    from vap_console.sandbox.keys import DEFAULT_KEY
    from vap_console.sandbox.server import start_in_thread
    from vap_console.scripting.base import Session
    from vap_console.scripting.root import run

    with tempfile.TemporaryDirectory(prefix="vap-sandbox-") as folder, start_in_thread(speed=times) as sandbox:
        env = {ENV_KEY: DEFAULT_KEY, ENV_BASE_URL: sandbox.base_url}
        store = KeyStore(profiles=ProfileStore(Path(folder)), env=env)
        return run(argv, Session(keystore=store, data_dir=Path(folder)))


def main(argv: Sequence[str] | None = None) -> int:
    from vap_console.scripting import wants

    given = list(sys.argv[1:] if argv is None else argv)
    if (on_sandbox := sandboxed(given)) is not None:
        speed, command = on_sandbox
        return run_on_sandbox(command, speed)
    if wants(given):
        # `vap numbers|tools|variables|voices|templates|agents|completion …`: the click commands.
        # pydantic looks for third-party plugins (the `pydantic` entry-point group) the first time
        # a model validates, reading every installed package's entry_points.txt: ~25 ms of a short
        # command, for plugins vap does not use. Skipped here, unless the caller set it otherwise.
        import os

        os.environ.setdefault("PYDANTIC_DISABLE_PLUGINS", "__all__")
        from vap_console.scripting.root import run

        code = run(given)
        if argv is None:  # the process's own entry (`vap …`, `python -m vap_console …`)
            _exit_now(code)
        return code
    args = build_parser().parse_args(given)
    profile = getattr(args, "sub_profile", None) or args.profile
    try:
        if args.command == "sandbox" and args.sandbox_command == "openapi":
            from vap_console.sandbox.openapi import document_json

            sys.stdout.write(document_json())
            return EXIT_OK
        if args.command == "sandbox":
            from vap_console.sandbox.server import serve_main

            return serve_main(
                host=args.host,
                port=args.port,
                speed=args.speed,
                rate_limit=args.rate_limit,
                faults=args.faults,
                allow_remote=args.allow_remote,
                call_tools=args.call_tools,
                call_tools_hosts=tuple(args.call_tools_host),
            )
        if args.command in ("login", "logout", "profiles"):
            from vap_console import auth_cli

            if args.command == "login":
                return auth_cli.login(profile=profile, base_url=args.base_url)
            if args.command == "logout":
                return auth_cli.logout(profile=profile, forget=args.forget)
            return auth_cli.profiles()
        if args.command == "web":
            from vap_console.web import web_main

            return web_main(sandbox=args.web_sandbox or args.sandbox, profile=profile, host=args.host,
                            port=args.port, allow_remote=args.allow_remote, max_consoles=args.max_consoles,
                            origin=args.origin)
        if args.command == "rental":
            from vap_console import watch

            return watch.watch_main(args.rental_id, profile=profile, interval=args.interval)
        from vap_console import launch

        return launch.console_main(profile=profile, sandbox=args.sandbox, speed=args.speed)
    except KeyboardInterrupt:
        return 130


def _exit_now(code: int) -> None:
    """End a finished area command at once: flush what it wrote, then leave without tearing the
    interpreter down. Finalisation frees every module and object one by one (pydantic's, httpx's,
    asyncio's…), 30-50 ms of a short command for nothing: the command has closed its client and
    files already. Logging is shut down as at a normal exit; nothing else registers at exit."""
    import os

    try:
        sys.stdout.flush()
    except (BrokenPipeError, OSError):  # the reader went away: as run() answers a broken pipe
        code = code or EXIT_FAILURE
    with contextlib.suppress(BrokenPipeError, OSError):
        sys.stderr.flush()
    if "logging" in sys.modules:
        sys.modules["logging"].shutdown()
    os._exit(code)


if __name__ == "__main__":
    sys.exit(main())
