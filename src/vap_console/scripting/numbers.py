"""`vap numbers …`: rentals, the number search, requirements, renting and watching one."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import click

from vap_console.api.money import format_nanos
from vap_console.scripting.base import (
    EXIT_REFUSED,
    EXIT_USAGE,
    Failure,
    Session,
    ask_money,
    call,
    common,
    confirm_money,
    emit_json,
    emit_pairs,
    emit_rows,
    example,
    profile_option,
    say,
    session_of,
)
from vap_console.scripting.output import Fit


@click.group(epilog=example("vap numbers list | cut -f2"))
def numbers() -> None:
    """Phone-number rentals: list, show, search, requirements, rent, watch."""


def _day(value: Any) -> str | None:
    return value.strftime("%Y-%m-%d") if value is not None else None


@numbers.command("list", epilog=example("vap numbers list"))
@common
def list_(session: Session) -> None:
    """Every rental of the account: id, status, number, type, city, monthly rent, next renewal."""
    page, raw = call(session, lambda c: c.list_rentals())
    if session.as_json:
        return emit_json(raw["items"])
    rows = [[r.id, r.status, r.e164 or r.number or r.requested_number, r.number_type, r.city,
             format_nanos(r.monthly_rent_nanos, r.currency), _day(r.next_renewal_at)]
            for r in page.items]
    emit_rows(session, ["ID", "STATUS", "NUMBER", "TYPE", "CITY", "MONTHLY", "RENEWS"], rows,
              empty="No rentals yet: `vap numbers rent` rents one.",
              # As the console's Numbers list gives way: the renewal, type, rent, then the city.
              fit=Fit("ID", drop=("RENEWS", "TYPE", "MONTHLY", "CITY")))


@numbers.command(epilog=example("vap numbers show 25b55625-a295-57db-828b-df59ee38b74a"))
@click.argument("rental_id", metavar="ID")
@common
def show(session: Session, rental_id: str) -> None:
    """One rental with its timeline."""
    r, raw = call(session, lambda c: c.get_rental(rental_id))
    if session.as_json:
        return emit_json(raw)
    pairs: list[tuple[str, object]] = [
        ("id", r.id), ("status", r.status), ("number", r.e164 or r.number or r.requested_number),
        ("type", r.number_type), ("city", r.city),
        ("monthly rent", format_nanos(r.monthly_rent_nanos, r.currency)),
        ("setup", format_nanos(r.setup_nanos, r.currency)),
        ("rented", _day(r.rented_at)), ("next renewal", _day(r.next_renewal_at)),
        ("agent", r.agent_name or r.user_agent_id), ("last error", r.last_error),
    ]
    from vap_console.api.rental_rules import substitution  # here: `vap numbers list` needs no rental rules

    if (note := substitution(r)) is not None:
        pairs.insert(3, ("requested", note))
    for step in r.timeline:
        pairs.append((f"step {step.key}", f"{step.state}  {step.detail or step.label}"))
    emit_pairs(session, pairs)


@numbers.command(epilog=example("vap numbers search --country IN --city Bengaluru --pattern 7788"))
@click.option("--country", default="IN", show_default=True, metavar="CODE", help="ISO country code.")
@click.option("--type", "number_type", metavar="TYPE", help="Number type, e.g. local or mobile.")
@click.option("--pattern", metavar="DIGITS", help="Digits the number contains.")
@click.option("--city", metavar="CITY", help="The city's name, e.g. Pune (any case).")
@common
def search(session: Session, country: str, number_type: str | None, pattern: str | None,
           city: str | None) -> None:
    """Numbers available to rent (a sandbox extension; not every server offers it)."""
    page, raw = call(session, lambda c: c.search_numbers(country, number_type, pattern, city))
    if session.as_json:
        return emit_json(raw["items"])
    rows = [[n.e164, n.number_type, n.city, format_nanos(n.monthly_rent_nanos, n.currency),
             format_nanos(n.setup_nanos, n.currency)] for n in page.items]
    emit_rows(session, ["NUMBER", "TYPE", "CITY", "MONTHLY", "SETUP"], rows, empty="No numbers match.",
              fit=Fit("NUMBER", drop=("SETUP", "TYPE", "MONTHLY")))


@numbers.command(epilog=example("vap numbers requirements --country IN"))
@click.option("--country", default="IN", show_default=True, metavar="CODE", help="ISO country code.")
@click.option("--type", "number_type", metavar="TYPE", help="Number type, e.g. local or mobile.")
@common
def requirements(session: Session, country: str, number_type: str | None) -> None:
    """What renting needs: eligibility, whether KYC is verified, the documents and their fields."""
    req, raw = call(session, lambda c: c.rental_requirements(country, number_type))
    if session.as_json:
        return emit_json(raw)
    pairs: list[tuple[str, object]] = [
        ("eligible", req.eligibility.eligible), ("reason", req.eligibility.reason),
        ("verified KYC", req.verified_kyc),
        ("monthly rent", format_nanos(req.monthly_rent_nanos, req.currency)),
        ("setup", format_nanos(req.setup_nanos, req.currency)),
    ]
    for doc in req.document_types:
        fields = ", ".join(f.key + ("" if f.required else " (optional)") for f in doc.data_fields)
        pairs.append((f"document {doc.id}", f"{doc.label}; fields: {fields or 'none'}"))
    emit_pairs(session, pairs)


@numbers.command(epilog=example(
    "vap numbers rent --data application.json incorporation.pdf electricity-bill.pdf pan-card.png --yes",
    "Charges the first month's rent and the setup fee: without --yes it says how much and asks on a "
    "terminal (No by default), and without a terminal it refuses before sending anything.",
    "application.json is the API's rental payload (requestedNumber, searchFilters, endUser, "
    "documents with documentTypeId and dataFields); give one FILE per document, in the same order. "
    "With no documents it is the plain JSON form for accounts whose KYC is verified."))
@click.option("--data", "data_path", required=True, metavar="FILE", type=click.Path(dir_okay=False, allow_dash=True),
              help="The application as JSON (- for stdin).")
@click.argument("files", nargs=-1, metavar="[FILE]...", type=click.Path(dir_okay=False))
@click.option("--yes", is_flag=True, help="Charge without asking (needed without a terminal).")
@click.option("--idempotency-key", "idempotency_key", metavar="KEY",
              help="The key of a run whose answer was lost: a server that honours it answers with "
                   "the rental that run made instead of renting again.")
@common
def rent(session: Session, data_path: str, files: tuple[str, ...], yes: bool,
         idempotency_key: str | None) -> None:
    """Rent a number: charges the first month's rent and setup fee to your wallet."""
    from vap_console.api import errors
    from vap_console.api.idempotency import checked_idempotency_key
    from vap_console.scripting.rent import charge_text, check_against, load_application, lost, requirements

    try:
        key = checked_idempotency_key(idempotency_key)
    except ValueError as exc:
        raise Failure(f"--idempotency-key: {str(exc).removeprefix('idempotency_key ')}; nothing was sent",
                      EXIT_USAGE) from None
    application = load_application(data_path, [Path(f) for f in files])  # Failure: nothing sent
    confirm_money(session, "vap numbers rent", yes=yes)
    client = session.client()

    import asyncio

    async def go() -> tuple[Any, Any]:
        async with client:
            req = await requirements(client)
            check_against(application, req)  # Failure: the application is not sent
            ask_money(session, f"renting {application.number}: {charge_text(req)}", yes=yes)
            # Once: a charge is never resent behind the person's back, not even after a 429. The
            # key is printed when the answer is lost, for the person's own retry of this rental.
            try:
                rental = await client.rent_number(application, idempotency_key=key, max_retries=0)
            except errors.ApiError as error:
                if error.maybe_applied:
                    raise Failure(lost(application.number, key, error), EXIT_REFUSED) from None
                raise
            answer = client.last_answer
            return rental, json.loads(bytes(answer.body)) if answer and answer.body else None

    rental, raw = asyncio.run(go())
    if session.as_json:
        return emit_json(raw)
    say(f"Rental {rental.id} is {rental.status}: `vap numbers watch {rental.id}` follows it.")
    click.echo(rental.id)


@numbers.command(epilog=example("vap numbers watch 25b55625-a295-57db-828b-df59ee38b74a && echo live"))
@click.argument("rental_id", metavar="ID")
@click.option("--interval", type=float, default=2.0, metavar="SECONDS", show_default=True,
              help="Seconds between polls.")
@profile_option
@click.pass_context
def watch(ctx: click.Context, rental_id: str, interval: float) -> None:
    """Print a rental's progress until it settles: exit 0 active, 1 failed, 2 usage or credentials."""
    from vap_console.watch import watch_main

    session = session_of(ctx)
    code = watch_main(rental_id, profile=session.profile, interval=interval, keystore=session.keystore,
                      client_factory=session.client_factory)
    if code:
        raise Failure("", code)  # watch_main has said why on stderr
