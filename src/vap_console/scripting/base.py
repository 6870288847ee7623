"""What every area command shares: the session (profile, output mode, client), running one API
call, printing, confirming money, and turning every failure into one line and an exit code.

Exit codes (docs/cli.md): 0 done; 1 the API refused or the thing is missing (or a person said no);
2 usage or credentials (bad arguments, an invalid file, no key, a refused key, money asked for
without a terminal and without ``--yes``); 130 interrupted.
"""

from __future__ import annotations

import asyncio
import json
import sys
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import click

from vap_console.literal import clean
from vap_console.scripting.output import Fit, dump_json, print_pairs, print_rows

if TYPE_CHECKING:
    from vap_console.api.client import VapClient
    from vap_console.ledger import Ledger

T = TypeVar("T")

EXIT_OK = 0
EXIT_REFUSED = 1
EXIT_USAGE = 2
EXIT_INTERRUPTED = 130

ClientFactory = Callable[[str, str], "VapClient"]


class Failure(Exception):
    """A command ends here: ``message`` is printed as one line on stderr, ``code`` is the exit."""

    def __init__(self, message: str, code: int = EXIT_REFUSED) -> None:
        super().__init__(message)
        self.message = message
        self.code = code


@dataclass
class Session:
    """Per invocation: which profile, how to print, how to reach the API (tests inject the last)."""

    profile: str | None = None
    as_json: bool = False
    client_factory: ClientFactory | None = None
    keystore: Any = None
    # None: ask the real streams. Tests set these to pretend to be (or not be) a terminal.
    terminal_out: bool | None = None
    terminal_in: bool | None = None
    clients: list[Any] = field(default_factory=list)
    # The profile the last client() resolved to (a cache keyed by profile needs its name).
    resolved_profile: str = ""
    # Where the calls ledger lives (None: the user's data directory; tests point it elsewhere).
    data_dir: Path | None = None
    # The terminal's width in cells (None: ask the terminal); tables are fitted to it.
    columns: int | None = None
    # The ledger once chosen (the keyring may have been asked): one per command.
    _ledger: Any = field(default=None, repr=False)

    @property
    def on_terminal(self) -> bool:
        return self.terminal_out if self.terminal_out is not None else _isatty(sys.stdout)

    @property
    def width(self) -> int:
        if self.columns is not None:
            return self.columns
        import shutil

        return shutil.get_terminal_size().columns

    @property
    def can_ask(self) -> bool:
        if self.terminal_in is not None:
            return self.terminal_in
        return _isatty(sys.stdin) and _isatty(sys.stderr)

    def client(self) -> VapClient:
        """A client for the profile's key and base URL; Failure (exit 2) when there is none."""
        from vap_console.credentials import (
            ENV_BASE_URL,
            ENV_KEY,
            CredentialsInputError,
            KeyringUnavailable,
            KeyStore,
            ProfilesFileError,
        )

        store = self.keystore or KeyStore()
        try:
            missing = store.missing_profile(self.profile)
            if missing:
                raise Failure(missing, EXIT_USAGE)
            creds = store.resolve(self.profile)
        except (CredentialsInputError, KeyringUnavailable, ProfilesFileError) as exc:
            raise Failure(str(exc), EXIT_USAGE) from None
        self.resolved_profile = creds.profile
        if not creds.key:
            raise Failure(f"no API key for profile {creds.profile}: run `vap login --profile "
                          f"{creds.profile}` or set {ENV_KEY}", EXIT_USAGE)
        if not creds.base_url:
            raise Failure(f"no base URL for profile {creds.profile}: run `vap login --base-url URL` "
                          f"or set {ENV_BASE_URL}", EXIT_USAGE)
        if self.client_factory is not None:
            client = self.client_factory(creds.base_url, creds.key)
        else:
            import httpx

            from vap_console.api.client import VapClient

            # Plain http (loopback only: credentials refuse it elsewhere) has no TLS, so no CA
            # bundle to load: ~50 ms of a short command's start-up spent on nothing.
            plain = creds.base_url.startswith("http://")
            try:
                client = VapClient(creds.base_url, creds.key,
                                   transport=httpx.AsyncHTTPTransport(verify=False) if plain else None)
            except ValueError as exc:
                raise Failure(str(exc), EXIT_USAGE) from None
        self.clients.append(client)
        return client


    def ledger(self) -> Ledger:
        """The calls ledger of the account in use: the profile's (named, else the active one), or
        the account VAP_API_KEY / VAP_BASE_URL reach (ledger/accounts.py). Kept for the command."""
        from vap_console.credentials import CredentialsInputError, KeyringUnavailable, KeyStore, ProfilesFileError
        from vap_console.ledger.accounts import files_for

        if self._ledger is None:
            try:
                self._ledger = files_for(self.keystore or KeyStore(), self.profile, data_dir=self.data_dir).ledger
            except (CredentialsInputError, ProfilesFileError, KeyringUnavailable) as exc:
                raise Failure(str(exc), EXIT_USAGE) from None
        return self._ledger


def _isatty(stream: Any) -> bool:
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):
        return False


def session_of(ctx: click.Context) -> Session:
    obj = ctx.find_object(Session)
    if obj is None:
        obj = ctx.ensure_object(Session)
    return obj


# --- help ---


def example(command: str, *notes: str) -> str:
    """A command's epilog: ``Example: <command>`` on a line of its own, which click never rewraps
    (``\\b``), so it can be copied whole; then ``notes``, one paragraph each. Every example runs
    as written on the sandbox (``vap sandbox serve``, its seeded ids): tests/scripting/test_help_examples.py
    runs them all."""
    return "\n\n".join([f"\b\nExample: {command}", *notes])


# --- options every command takes ---


def _set_profile(ctx: click.Context, _param: click.Parameter, value: str | None) -> None:
    if value:
        session_of(ctx).profile = value


def _set_json(ctx: click.Context, _param: click.Parameter, value: bool) -> None:
    if value:
        session_of(ctx).as_json = True


profile_option = click.option(
    "--profile", metavar="NAME", expose_value=False, callback=_set_profile,
    help="Profile to use (default: the active one; VAP_API_KEY/VAP_BASE_URL override it).",
)
json_option = click.option(
    "--json", "as_json", is_flag=True, expose_value=False, callback=_set_json,
    help="Print exactly what the API returned (an array for a list, the object for one).",
)


def common(fn: Callable[..., Any]) -> Callable[..., Any]:
    """``--profile`` and ``--json`` on a command, and the session passed as its first argument."""
    return profile_option(json_option(click.pass_obj(fn)))


# --- calling the API ---


def call(session: Session, work: Callable[[VapClient], Awaitable[T]]) -> tuple[T, Any]:
    """Run ``work`` on a fresh client; its result and the raw JSON of the last answer (None when
    the answer had no body)."""
    client = session.client()

    async def go() -> tuple[T, Any]:
        async with client:
            result = await work(client)
            answer = client.last_answer
            raw = json.loads(bytes(answer.body)) if answer is not None and answer.body else None
            return result, raw

    return asyncio.run(go())


def emit_json(value: Any) -> None:
    click.echo(dump_json(value))


def emit_rows(session: Session, headers: list[str], rows: Sequence[Sequence[object]], *, empty: str,
              fit: Fit) -> None:
    """A list: a table fitted to the terminal (``fit`` names its key column and what goes first),
    or every column tab-separated when piped."""
    if not rows and session.on_terminal:
        click.echo(empty, err=True)  # for a person; a script sees no lines
        return
    terminal = session.on_terminal
    print_rows(headers, rows, out=sys.stdout, terminal=terminal, width=session.width if terminal else None,
               fit=fit, note=sys.stderr)


def emit_pairs(session: Session, pairs: list[tuple[str, object]]) -> None:
    print_pairs(pairs, out=sys.stdout, terminal=session.on_terminal)


def say(message: str) -> None:
    """A line for the person on stderr (never mixed into what a script reads)."""
    click.echo(clean(message, multiline=False), err=True)


# --- money ---


def confirm_money(session: Session, command: str, *, yes: bool) -> None:
    """Refuse before anything is sent when nobody can be asked and --yes was not given."""
    if yes or session.can_ask:
        return
    raise Failure(f"{command} costs money and there is no terminal to ask on: pass --yes to go "
                  "ahead. Nothing was sent", EXIT_USAGE)


def ask_money(session: Session, cost: str, *, yes: bool) -> None:
    """Say what it costs; on a terminal ask (No by default). Failure (exit 1) on no."""
    say(f"This charges your account: {cost}.")
    if yes:
        return
    if not click.confirm("Go ahead?", default=False, err=True):
        raise Failure("not confirmed: nothing was sent", EXIT_REFUSED)


# --- the calls ledger ---


def keep_call(session: Session, call_id: str, agent: str, kind: str, **more: Any) -> None:
    """Write a call the command started into the ledger. The call exists whatever happens here,
    so a failure to write is a warning that says how to add it later, not the command's end."""
    import sqlite3

    from vap_console.ledger import CallIdTaken, LedgerTooNew

    try:
        session.ledger().record_started(call_id, agent, kind, **more)
    except (OSError, sqlite3.Error, LedgerTooNew, Failure, CallIdTaken) as exc:
        say(f"warning: call {call_id} could not be kept in the calls ledger ({exc}); "
            f"`vap calls add {call_id}` adds it later")


# --- failures ---


def describe(error: BaseException) -> tuple[str, int]:
    """One line and an exit code for anything a command can end with."""
    from vap_console.api import errors

    # Only a rental raises it, and only once api/rental.py is loaded: importing it here (and the
    # rental models with it) would cost every other command's failure ~20 ms for nothing.
    rental = sys.modules.get("vap_console.api.rental")
    if isinstance(error, Failure):
        return error.message, error.code
    if rental is not None and isinstance(error, rental.RentalValidationError):
        return "nothing was sent: " + "; ".join(f"{f}: {m}" for f, m in error.problems), EXIT_USAGE
    if isinstance(error, errors.ApiError):
        line = error.describe(one_line=True)  # the one description, as the console's
        credentials = isinstance(error, (errors.Unauthorized, errors.ForbiddenScope))
        return line, EXIT_USAGE if credentials else EXIT_REFUSED
    return f"{type(error).__name__}: {error}", EXIT_REFUSED
