"""`vap calls …`: the calls this profile's console and CLI started (the local ledger: the service
has no list of calls), one call's record read again, a call started elsewhere added by its id,
an outbound call placed (billed: asked first, sent once, a lost answer kept as outcome unknown),
and the ledger exported with its transcripts."""

from __future__ import annotations

import asyncio
import json
import sqlite3
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import click

from vap_console.scripting.base import (
    EXIT_REFUSED,
    EXIT_USAGE,
    Failure,
    Session,
    ask_money,
    common,
    confirm_money,
    emit_json,
    emit_pairs,
    emit_rows,
    example,
    keep_call,
    say,
)
from vap_console.scripting.output import Fit

T = TypeVar("T")

# What the examples name: the sandbox's seeded call and active SIP trunk (sandbox/voice/outbound.py
# SEEDED_CALL_ID, trunks.py), ids from fixed names (a test holds them to the sandbox's).
SANDBOX_CALL = "66f4cf40-e120-5f9c-a804-19221f0e3bcb"
SANDBOX_TRUNK = "425d058e-cba3-51e3-978e-a73c4f1f39f1"

PLACE_COST = ("an outbound call is billed for its time on the line once it is answered "
              "(nothing if nobody answers)")


@click.group(epilog=example("vap calls list --json"))
def calls() -> None:
    """Calls: list, show, add, place (outbound, billed), stats, export."""


def _ledger_do(session: Session, work: Callable[[Any], T]) -> T:
    """A ledger operation; a file that cannot be opened is one line and exit 1, and so is a call
    the server gives an id the ledger keeps for another call (nothing is overwritten)."""
    from vap_console.ledger import CallIdTaken, LedgerTooNew

    try:
        return work(session.ledger())
    except CallIdTaken as exc:
        raise Failure(str(exc), EXIT_REFUSED) from None
    except (OSError, sqlite3.Error, LedgerTooNew) as exc:
        raise Failure(f"the calls ledger could not be read: {exc}", EXIT_REFUSED) from None


def _duration(seconds: float | None) -> str:
    if seconds is None:
        return ""
    whole = int(seconds)
    return f"{whole // 60}:{whole % 60:02d}"


def _credits(value: float | None) -> str:
    return "" if value is None else f"{value:g}"


# Reads of the calls not yet ended at once, as `vap calls list` refreshes them.
READS_AT_ONCE = 4


def _read_open(session: Session) -> None:
    """The calls not yet ended read again (GET /v1/calls/{id}) and what they say kept, as the Calls
    screen does: a listing shows where each call is now, not "not read yet". A call that cannot be
    read is marked so (the server does not have it: not read again); no usable key: one line."""
    from vap_console.api import errors
    from vap_console.ledger import CallIdTaken

    open_ids = _ledger_do(session, lambda ledger: ledger.open_ids())
    if not open_ids:
        return
    try:
        client = session.client()
    except Failure as failure:
        say(f"warning: the calls not yet ended were not read again ({failure.message})")
        return
    ledger = session.ledger()

    async def read(call_id: str, gate: asyncio.Semaphore) -> None:
        async with gate:
            try:
                record = await client.get_call(call_id)
            except errors.ApiError as error:
                ledger.record_unreadable(call_id, str(error), gone=isinstance(error, errors.NotFound))
                return
        try:
            ledger.cache_record(record)
        except CallIdTaken as taken:
            ledger.record_unreadable(call_id, str(taken), gone=True)

    async def go() -> None:
        gate = asyncio.Semaphore(READS_AT_ONCE)
        async with client:
            await asyncio.gather(*(read(call_id, gate) for call_id in open_ids))

    try:
        asyncio.run(go())
    except (OSError, sqlite3.Error) as exc:
        raise Failure(f"the calls ledger could not be written: {exc}", EXIT_REFUSED) from None


@calls.command("list", epilog=example(f"vap calls add {SANDBOX_CALL} && vap calls list --filter completed"))

@click.option("--filter", "text", default="", metavar="TEXT",
              help="Only calls whose agent, status, kind, number or words said contain TEXT.")
@click.option("--offline", is_flag=True, help="From the ledger only: the calls not yet ended are not read again.")
@common
def list_(session: Session, text: str, offline: bool) -> None:
    """The calls this profile started or added, newest first, from the local ledger; the calls not
    yet ended are read again from the server first (not with --offline)."""
    if not offline:
        _read_open(session)
    entries = _ledger_do(session, lambda ledger: ledger.entries(text))
    if session.as_json:
        return emit_json([e.as_dict(transcript=False) for e in entries])
    rows = [[e.noted_at, e.agent, e.kind, e.to_number or e.from_ref or "", e.shown_status,
             _duration(e.duration_seconds), _credits(e.credits), e.call_id or f"(row {e.row})"] for e in entries]
    emit_rows(session, ["WHEN", "AGENT", "KIND", "TO/FROM", "STATUS", "DURATION", "CREDITS", "ID"], rows,
              empty="No calls yet: a web call, a Talk session or `vap calls place` adds one; "
                    "`vap calls add ID` adds a call started elsewhere.",
              fit=Fit("ID", drop=("CREDITS", "KIND", "TO/FROM", "DURATION", "AGENT")))


def _read(session: Session, call_id: str) -> tuple[Any, Any]:
    """GET /v1/calls/{id}, its raw answer, and what it said cached in the ledger."""
    client = session.client()

    async def go() -> tuple[Any, Any]:
        async with client:
            record = await client.get_call(call_id)
            answer = client.last_answer
            return record, json.loads(bytes(answer.body)) if answer and answer.body else None

    return asyncio.run(go())


@calls.command(epilog=example(f"vap calls show {SANDBOX_CALL} --json",
                             "(The sandbox's one call made before it started; `vap calls add` keeps it.)"))
@click.argument("call_id", metavar="ID")
@common
def show(session: Session, call_id: str) -> None:
    """One call, read again from the server: status, end reason, credits, summary, transcript."""
    from vap_console.api import errors

    try:
        record, raw = _read(session, call_id)
    except errors.ApiError as error:
        cached = _ledger_do(session, lambda ledger: ledger.get(call_id))
        if cached is None or isinstance(error, (errors.Unauthorized, errors.NotFound)):
            raise
        say(f"warning: the call could not be read now ({error}); what it said at {cached.read_at or 'start'}:")
        _print_entry(session, cached)
        raise Failure("not read again: the lines above are from the ledger", EXIT_REFUSED) from None
    _ledger_do(session, lambda ledger: ledger.cache_record(record))
    if session.as_json:
        return emit_json(raw)
    # Kept under the id the server answered with, which a server may spell otherwise than asked.
    entry = _ledger_do(session, lambda ledger: ledger.get(record.id) or ledger.get(call_id))
    if entry is None:
        raise Failure(f"call {call_id} was read but could not be kept in the calls ledger", EXIT_REFUSED)
    _print_entry(session, entry)


def _print_entry(session: Session, entry: Any) -> None:
    if session.as_json:
        return emit_json(entry.as_dict())
    pairs: list[tuple[str, object]] = [
        ("call", entry.call_id), ("agent", entry.agent), ("kind", entry.kind), ("to", entry.to_number),
        ("from", entry.from_ref), ("status", entry.shown_status), ("end reason", entry.end_reason),
        ("duration", _duration(entry.duration_seconds)), ("credits", _credits(entry.credits)),
        ("recording", "yes (the console's s saves it)" if entry.has_recording else "none"),
        ("summary", entry.summary),
    ]
    if entry.answer_times:
        from vap_console.api.figures import Times

        pairs.append(("answer times", Times.of(entry.answer_times).in_words()))
    pairs += [("tool call", made.in_words()) for made in entry.tool_calls or ()]
    emit_pairs(session, pairs)
    for turn in entry.transcript:
        emit_pairs(session, [(turn.role, turn.content)])


@calls.command(epilog=example(f"vap calls add {SANDBOX_CALL}"))
@click.argument("call_id", metavar="ID")
@common
def add(session: Session, call_id: str) -> None:
    """Add a call started elsewhere (the dashboard, another machine) by its id: read, then kept."""
    from vap_console.api import errors

    try:
        record, raw = _read(session, call_id)
    except errors.NotFound:
        raise Failure(f"no call {call_id} on this account: nothing was added", EXIT_REFUSED) from None
    _ledger_do(session, lambda ledger: ledger.cache_record(record))
    if session.as_json:
        return emit_json(raw)
    say(f"added call {record.id} ({record.status or 'status unknown'}) to this profile's calls")


async def _caller(client: Any, given: str) -> str:
    """The fromTrunkId to send: a SIP trunk or rental id as given, or the id of the account's
    active rented number ``given`` names (an E.164 number)."""
    from vap_console.api import errors

    if not given.startswith("+"):
        return given
    try:
        rentals = (await client.list_rentals()).items
    except errors.NotSupported:
        raise Failure(f"--from {given}: this server cannot list rented numbers; pass the SIP trunk or "
                      "rental id instead. Nothing was sent", EXIT_USAGE) from None
    for rental in rentals:
        if given in (rental.e164, rental.number) and rental.status == "active":
            return str(rental.id)
    raise Failure(f"--from {given}: no active rented number {given} on this account; pass a SIP trunk id "
                  "or an active rented number. Nothing was sent", EXIT_USAGE)


@calls.command(epilog=example(
    f"vap calls place --agent ua_4152f853c72d --to +919812340001 --from {SANDBOX_TRUNK} --yes",
    "Billed: asked first on a terminal; without one, --yes is needed. Sent once: a lost "
    "answer is kept as 'outcome unknown' and never sent again by itself."))
@click.option("--agent", "agent_ref", required=True, metavar="REF", help="The agent (ua_<handle> or id).")
@click.option("--to", "to_number", required=True, metavar="NUMBER", help="The number to call, E.164 (+91…).")
@click.option("--from", "caller", required=True, metavar="TRUNK-OR-NUMBER",
              help="A SIP trunk id, or a rented number (its id or its E.164 number) the account holds.")
@click.option("--yes", is_flag=True, help="Place it without asking (needed without a terminal).")
@click.option("--idempotency-key", "idempotency_key", metavar="KEY",
              help="The key of a placement whose answer was lost: a server that honours it answers "
                   "with that call instead of placing another.")
@common
def place(session: Session, agent_ref: str, to_number: str, caller: str, yes: bool,
          idempotency_key: str | None) -> None:
    """Place an outbound call from a SIP trunk or a rented number. Billed."""
    from vap_console.api import errors
    from vap_console.api.idempotency import checked_idempotency_key
    from vap_console.api.models.calls import e164_problem

    problem = e164_problem(to_number)
    if problem:
        raise Failure(f"--to {to_number.strip()[:40]!r}: {problem}. Nothing was sent", EXIT_USAGE)
    if not caller.strip():
        raise Failure("--from: a SIP trunk id or a rented number is required. Nothing was sent", EXIT_USAGE)
    try:
        key = checked_idempotency_key(idempotency_key)
    except ValueError as exc:
        raise Failure(f"--idempotency-key: {str(exc).removeprefix('idempotency_key ')}; nothing was sent",
                      EXIT_USAGE) from None
    confirm_money(session, "vap calls place", yes=yes)
    to_number, caller = to_number.strip(), caller.strip()
    client = session.client()

    async def go() -> tuple[Any, Any]:
        async with client:
            trunk = await _caller(client, caller)
            ask_money(session, f"{PLACE_COST}; {await _rate(client)}; calling {to_number} from {caller}", yes=yes)
            try:
                placed = await client.place_call(agent_ref, to_number, trunk, idempotency_key=key)
            except errors.ApiError as error:
                if error.maybe_applied:
                    _ledger_do(session, lambda ledger: ledger.record_unknown(
                        agent_ref, "outbound", idempotency_key=key, to_number=to_number, from_ref=caller))
                    raise Failure(_lost(agent_ref, to_number, caller, key, error), EXIT_REFUSED) from None
                raise
            keep_call(session, placed.call_id, agent_ref, "outbound", to_number=to_number, from_ref=caller)
            answer = client.last_answer
            return placed, json.loads(bytes(answer.body)) if answer and answer.body else None

    placed, raw = asyncio.run(go())
    if session.as_json:
        return emit_json(raw)
    emit_pairs(session, [("call", placed.call_id), ("status", placed.status), ("to", placed.to_number)])


async def _rate(client: Any) -> str:
    """The rate the server publishes with its call slots, or that it publishes none."""
    from vap_console.api import errors
    from vap_console.api.models.agents import call_rate

    try:
        return call_rate(await client.agent_limits())
    except errors.ApiError:
        return call_rate(None)


def _lost(agent: str, to: str, caller: str, key: str, error: Exception) -> str:
    return (f"no usable answer came back to the call to {to}: {error} The call may be ringing now. Nothing was "
            "sent again; it is kept in `vap calls list` as 'outcome unknown'. To ask for that call, run "
            f"`vap calls place --agent {agent} --to {to} --from {caller} --idempotency-key {key}`: a server "
            "that honours the key answers with that call; one that does not places a second call, billed too. "
            "If you find its id (the dashboard), `vap calls add ID` adds it")


@calls.command(epilog=example(
    f"vap calls add {SANDBOX_CALL} && vap calls stats --since 2026-01-01 --agent ua_4152f853c72d",
    "--since takes a span back from now (7d, 24h, 30m) or an ISO date; --agent an id, a ua_<handle> "
    "or an agent's name. Answer times are those of calls this console held itself (Talk, vap agents "
    "talk and test); minutes and credits are what each call's record says (the calls not yet ended "
    "are read again first, not with --offline). docs/calls.md"))
@click.option("--agent", "agent_ref", metavar="REF", help="Only this agent: its id, ua_<handle> or name.")
@click.option("--since", metavar="WHEN", help="Only calls noted since then: 7d, 24h, 30m, or an ISO date.")
@click.option("--offline", is_flag=True,
              help="From the ledger only: the calls not yet ended are not read again, agents not looked up.")
@common
def stats(session: Session, agent_ref: str | None, since: str | None, offline: bool) -> None:
    """Per agent: calls, minutes, credits, and answer time p50/p95/max (ms), from the calls ledger."""
    from datetime import UTC, datetime

    from vap_console.scripting.call_stats import HEADERS, Names, parse_since, per_agent

    try:
        moment = parse_since(since, datetime.now(UTC)) if since is not None else None
    except ValueError as exc:
        raise Failure(str(exc), EXIT_USAGE) from None
    if agent_ref is not None and not agent_ref.strip():
        raise Failure("--agent: give an agent's id, ua_<handle> or name", EXIT_USAGE)
    if not offline:
        _read_open(session)  # minutes and credits as each call's record says now, as `list` shows them
    names = Names() if offline else _agent_names(session)
    kept = _ledger_do(session, lambda ledger: [t.name for t in ledger.totals("agent")])  # the references kept
    try:
        agents = names.kept_under(agent_ref.strip(), kept) if agent_ref is not None else None
    except ValueError as exc:
        raise Failure(str(exc), EXIT_USAGE) from None
    figures = per_agent(_ledger_do(session, lambda ledger: ledger.agent_figures(since=moment, agents=agents)), names)
    if session.as_json:
        return emit_json([f.as_dict() for f in figures])
    emit_rows(session, HEADERS, [f.row() for f in figures],
              empty="No calls in the ledger" + (f" of {agent_ref}" if agent_ref else "") + (
                  f" since {since}" if since else "") + ".",
              fit=Fit("AGENT", drop=("ANSWERS", "MAX MS", "NAME", "MINUTES")))


def _agent_names(session: Session) -> Any:
    """The server's agents (GET /v1/agents, else nothing): names for the references the ledger keeps."""
    from vap_console.api import errors
    from vap_console.scripting.call_stats import Names

    try:
        client = session.client()
    except Failure as failure:
        say(f"warning: agents were not looked up ({failure.message}); they are shown as kept")
        return Names()

    async def go() -> Any:
        async with client:
            return Names.of((await client.list_agents()).items)

    try:
        return asyncio.run(go())
    except errors.NotSupported:
        return Names()  # the real service lists no agents: references as kept
    except errors.ApiError as error:
        say(f"warning: agents were not looked up ({error}); they are shown as kept")
        return Names()


@calls.command(epilog=example("vap calls export --format csv --output calls.csv"))
@click.option("--format", "fmt", type=click.Choice(["csv", "json"]), default="json", show_default=True)
@click.option("--output", "output", metavar="FILE", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="Write to this file (default: standard output).")
@common
def export(session: Session, fmt: str, output: Path | None) -> None:
    """Every call in the ledger with its transcript, oldest first, as CSV or JSON."""
    from vap_console.ledger.export import export as render

    entries = _ledger_do(session, lambda ledger: ledger.with_transcripts())
    text = render(entries, fmt)
    if output is None:
        sys.stdout.write(text)
        return
    from vap_console.local_files import write_private

    try:
        write_private(output, text)  # every transcript in it: the person's alone (0600)
    except OSError as exc:
        raise Failure(f"--output {output}: {exc.strerror or exc}", EXIT_USAGE) from None
    say(f"wrote {len(entries)} calls to {output}")


@calls.command("to-test", epilog=example(
    f"vap calls to-test {SANDBOX_CALL} -o front-desk.call.test.json --force",
    "Then `vap agents test front-desk.call.test.json --yes` holds the same conversation again."))
@click.argument("call_id", metavar="ID")
@click.option("-o", "--output", "output", metavar="FILE", type=click.Path(dir_okay=False, path_type=Path),
              default=None, help="Write the test to FILE (default: standard output); never over a file "
                                 "that is there without --force.")
@click.option("--force", is_flag=True, help="Replace FILE when it exists.")
@click.option("--min-share", type=click.FloatRange(0, 1, min_open=True), default=0.6, show_default=True,
              metavar="SHARE", help="The share of each recorded answer's words an answer must say again.")
@click.option("--latency-margin", type=click.FloatRange(0, 10), default=0.5, show_default=True, metavar="SHARE",
              help="The latency budget: the recorded p50/p95 times 1 + SHARE, plus 100 ms.")
@common
def to_test(session: Session, call_id: str, output: Path | None, force: bool, min_share: float,
            latency_margin: float) -> None:
    """Turn a kept call into a conversation test for `vap agents test` (docs/testing.md)."""
    from vap_console.scripting import call_to_test as ct

    if output is not None and output.exists() and not force:
        raise Failure(f"-o {output}: the file is there already; --force replaces it. Nothing was written",
                      EXIT_USAGE)
    ledger = _ledger_do(session, lambda ledger: ledger)
    try:
        client = session.client()
    except Failure as failure:
        say(f"warning: the call's record was not read ({failure.message}): from the calls ledger")
        client = None

    async def go() -> tuple[ct.Recorded, str | None]:
        if client is None:
            return await ct.read_call(None, ledger, call_id)
        async with client:
            return await ct.read_call(client, ledger, call_id)

    try:
        recorded, why = asyncio.run(go())
        written = ct.file_of(recorded, min_share=min_share, margin=latency_margin)
    except ct.CallToTestError as exc:
        raise Failure(f"{exc}; nothing was written", EXIT_REFUSED) from None
    for note in ([why] if why else []) + written.notes:
        say(f"note: {note}")
    if output is None:
        sys.stdout.write(written.text)
        return
    try:
        ct.write_new(output, written.text, force=force)
    except FileExistsError:
        raise Failure(f"-o {output}: the file is there already; --force replaces it. Nothing was written",
                      EXIT_USAGE) from None
    except OSError as exc:
        raise Failure(f"-o {output}: {exc.strerror or exc}", EXIT_USAGE) from None
    say(f"wrote a test of call {recorded.call_id} to {output}: `vap agents test {output}` holds it again")
