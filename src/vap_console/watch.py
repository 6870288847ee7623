"""`vap rental watch ID`: a rental's progress as plain lines, for scripts.

One line per status change: the server's time of the change, the status and a one-line timeline.
Exit codes: 0 when the rental is active; 1 when it failed, was rejected or was released; 2 on a
usage or authentication problem (no key, bad key, unknown rental). Network trouble is not an
exit: it is reported on stderr and polling backs off and carries on, as the console does.
"""

from __future__ import annotations

import asyncio
import re
import sys
from collections.abc import Callable
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any, TextIO

from vap_console.api.errors import ForbiddenScope, NotFound, Unauthorized
from vap_console.api.models import Rental, RentalStatus
from vap_console.api.polling import (
    PollFailed,
    PollSchedule,
    failure_reason,
    follow_rental,
    one_line_timeline,
)
from vap_console.api.rental_rules import substitution
from vap_console.literal import clean

if TYPE_CHECKING:
    from vap_console.api.client import VapClient

EXIT_ACTIVE = 0
EXIT_FAILED = 1
EXIT_USAGE = 2

# A rental id goes into a URL path: keep it to characters an id can have.
def _print(text: str, *, file: TextIO, flush: bool = False) -> None:
    # Statuses, numbers, reasons and error messages come from the server: control characters visible.
    print(clean(text), file=file, flush=flush)


_RENTAL_ID_RE = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.:-]{0,127}")

ClientFactory = Callable[[str, str], "VapClient"]


def _stamp(at: datetime | None) -> str:
    at = at or datetime.now(UTC)
    if at.tzinfo is None:
        at = at.replace(tzinfo=UTC)
    return at.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def status_line(rental: Rental) -> str:
    return f"{_stamp(rental.updated_at)}  {rental.status:<14} {one_line_timeline(rental)}"


def _default_client(base_url: str, api_key: str) -> VapClient:
    from vap_console.api.client import VapClient

    return VapClient(base_url, api_key)


def watch_main(
    rental_id: str,
    *,
    profile: str | None,
    interval: float,
    out: TextIO | None = None,
    err: TextIO | None = None,
    keystore: Any = None,
    client_factory: ClientFactory | None = None,
    sleep: Callable[[float], Any] = asyncio.sleep,
) -> int:
    out = out or sys.stdout
    err = err or sys.stderr

    def fail(message: str) -> int:
        _print(f"vap: {message}", file=err, flush=True)
        return EXIT_USAGE

    rental_id = rental_id.strip()
    if not _RENTAL_ID_RE.fullmatch(rental_id):
        return fail(f"rental id {rental_id[:40]!r}: must be the rental's id (letters, digits, '-')")
    if not interval > 0:
        return fail(f"--interval {interval:g}: must be more than 0 seconds")

    from vap_console.credentials import (
        ENV_BASE_URL,
        ENV_KEY,
        CredentialsInputError,
        KeyringUnavailable,
        KeyStore,
        ProfilesFileError,
    )

    store = keystore or KeyStore()
    try:
        missing = store.missing_profile(profile)
        if missing:
            return fail(missing)
        creds = store.resolve(profile)
    except (CredentialsInputError, KeyringUnavailable, ProfilesFileError) as exc:
        return fail(str(exc))
    if not creds.key:
        return fail(
            f"no API key for profile {creds.profile}: run `vap login --profile {creds.profile}` "
            f"or set {ENV_KEY}"
        )
    if not creds.base_url:
        return fail(
            f"no base URL for profile {creds.profile}: run `vap login --base-url URL` or set {ENV_BASE_URL}"
        )
    factory = client_factory or _default_client
    schedule = PollSchedule(fast=interval, slow=max(interval, interval * 5), offline_max=max(interval, 60.0))
    return asyncio.run(_watch(factory(creds.base_url, creds.key), rental_id, schedule, out, err, sleep))


async def _watch(
    client: VapClient,
    rental_id: str,
    schedule: PollSchedule,
    out: TextIO,
    err: TextIO,
    sleep: Callable[[float], Any],
) -> int:
    shown_status: str | None = None
    substitution_said = False
    offline = False
    async with client:
        try:
            async for event in follow_rental(
                lambda: client.get_rental(rental_id), schedule=schedule, sleep=sleep
            ):
                if isinstance(event, PollFailed):
                    offline = True
                    _print(
                        f"{_stamp(None)}  offline — retrying in {event.next_delay:g} s: {event.error}",
                        file=err,
                        flush=True,
                    )
                    continue
                if offline:
                    _print(f"{_stamp(None)}  back online", file=err, flush=True)
                    offline = False
                rental = event.rental
                if rental.status != shown_status:
                    _print(status_line(rental), file=out, flush=True)
                    shown_status = rental.status
                if not substitution_said and (note := substitution(rental)) is not None:
                    _print(f"note: {note}", file=out, flush=True)
                    substitution_said = True
                if event.next_delay is None:
                    if rental.status == RentalStatus.ACTIVE:
                        number = rental.e164 or rental.number or ""
                        _print(f"active {number}".rstrip(), file=out, flush=True)
                        return EXIT_ACTIVE
                    reason = failure_reason(rental) or "no reason given"
                    # A release reason comes as "released: user" already: the status once is enough.
                    if not reason.startswith(f"{rental.status}:"):
                        reason = f"{rental.status}: {reason}"
                    _print(reason, file=out, flush=True)
                    return EXIT_FAILED
        except (Unauthorized, ForbiddenScope) as exc:
            _print(f"vap: {exc}", file=err, flush=True)
            return EXIT_USAGE
        except NotFound:
            _print(f"vap: no rental with id {rental_id} on this server", file=err, flush=True)
            return EXIT_USAGE
    return EXIT_FAILED  # follow_rental only ends at a terminal status or by raising
