"""`vap agents …`: list, show, create from a template, delete, the call slots, start a web call
(billed: one Idempotency-Key per run, a lost answer said and never resent)."""

from __future__ import annotations

import asyncio
import json
from functools import partial
from pathlib import Path
from typing import Any

import click

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
    keep_call,
    say,
)
from vap_console.scripting.output import Fit

WEBCALL_COST = "a web call is billed from the moment it starts, even if nobody joins"


@click.group(epilog=example("vap agents create --template clinic-receptionist --name 'Front desk'"))
def agents() -> None:
    """Agents: list, show, create, delete, limits (call slots), webcall, talk, test."""


def _state(deployed: bool | None) -> str:
    return "deployed" if deployed else "draft" if deployed is not None else "?"


@agents.command("list", epilog=example("vap agents list | cut -f1"))
@common
def list_(session: Session) -> None:
    """Every agent: reference (ua_…), name, deployed or draft, template."""
    page, raw = call(session, lambda c: c.list_agents())
    if session.as_json:
        return emit_json(raw["items"])
    rows = [[a.ref, a.name, _state(a.deployed), a.template_slug, a.id] for a in page.items]
    emit_rows(session, ["REF", "NAME", "STATE", "TEMPLATE", "ID"], rows,
              empty="No agents yet: `vap agents create --template SLUG --name NAME` makes one.",
              fit=Fit("REF", drop=("ID", "TEMPLATE")))


@agents.command(epilog=example("vap agents show ua_4152f853c72d"))
@click.argument("ref", metavar="REF")
@common
def show(session: Session, ref: str) -> None:
    """One agent, by its id or ua_<handle>."""
    a, raw = call(session, lambda c: c.get_agent(ref))
    if session.as_json:
        return emit_json(raw)
    tts = a.tts_config.model_dump(exclude_none=True) if a.tts_config else {}
    emit_pairs(session, [("ref", a.ref), ("id", a.id), ("name", a.name), ("state", _state(a.deployed)),
                         ("template", a.template_slug), ("greeting", a.greeting),
                         ("system instruction", a.system_instruction),
                         *((f"tts {k}", v) for k, v in tts.items())])


@agents.command(epilog=example("vap agents create --template clinic-receptionist --name 'Front desk'"))
@click.option("--template", "slug", required=True, metavar="SLUG", help="The template's slug (`vap templates list`).")
@click.option("--name", required=True, metavar="NAME", help="The agent's name.")
@common
def create(session: Session, slug: str, name: str) -> None:
    """Create a draft agent from a template (its voice is checked against your voices first)."""
    from vap_console.api.limits import agent_name_problem
    from vap_console.api.models import AgentCreate
    from vap_console.api.voices import tts_problems

    problem = agent_name_problem(name)
    if problem:
        raise Failure(f"--name: {problem}; nothing was sent", EXIT_USAGE)
    name = name.strip()

    async def work(client: Any) -> Any:
        page = await client.list_templates()
        template = next((t for t in page.items if slug in (t.slug, t.id)), None)
        if template is None:
            raise Failure(f"not_found: no template {slug}; `vap templates list` lists them; nothing "
                          "was sent", EXIT_REFUSED)
        body = AgentCreate.from_template(template, name)
        problems = tts_problems(body.tts_config, await client.list_voices())
        if problems:
            raise Failure("the template's voice does not fit this account's voices: "
                          + "; ".join(str(p) for p in problems) + "; nothing was sent", EXIT_REFUSED)
        return await client.create_agent(body)

    agent, raw = call(session, work)
    if session.as_json:
        return emit_json(raw)
    say(f"Created draft agent {agent.name} ({agent.ref}).")
    click.echo(agent.ref)


@agents.command(epilog=example("vap agents delete ua_6f9fa0107dd9"))
@click.argument("ref", metavar="REF")
@common
def delete(session: Session, ref: str) -> None:
    """Delete an agent (a number connected to it is detached)."""
    call(session, lambda c: c.delete_agent(ref))
    if not session.as_json:
        say(f"Deleted agent {ref}.")


@agents.command(epilog=example("vap agents limits --json"))
@common
def limits(session: Session) -> None:
    """The account's concurrent-call slots: calls running now, of how many (GET /v1/agent/limits)."""
    found, raw = call(session, lambda c: c.agent_limits())
    if session.as_json:
        return emit_json(raw)
    emit_pairs(session, [("in use", found.active_requests), ("slots", found.concurrency_limit),
                         ("plan", found.plan)])


@agents.command(epilog=example(
    "vap agents webcall ua_4152f853c72d --yes --json",
    "Billed from the moment it starts: without --yes it says so and asks on a terminal (No by default), "
    "and without a terminal it refuses. Each run sends its own Idempotency-Key. When the answer is lost, "
    "the command says so, prints the key and sends nothing again; --idempotency-key KEY asks for that "
    "call once more."))
@click.argument("ref", metavar="REF")
@click.option("--yes", is_flag=True, help="Start without asking (needed without a terminal).")
@click.option("--idempotency-key", "idempotency_key", metavar="KEY",
              help="The key of a run whose answer was lost: a server that honours it answers with "
                   "that run's call instead of starting another.")
@common
def webcall(session: Session, ref: str, yes: bool, idempotency_key: str | None) -> None:
    """Start a web call: prints the host, room and the short-lived token to join it. Billed."""
    from vap_console.api import errors
    from vap_console.api.idempotency import checked_idempotency_key

    try:
        key = checked_idempotency_key(idempotency_key)
    except ValueError as exc:
        raise Failure(f"--idempotency-key: {str(exc).removeprefix('idempotency_key ')}; nothing was sent",
                      EXIT_USAGE) from None
    confirm_money(session, "vap agents webcall", yes=yes)
    client = session.client()

    async def go() -> tuple[Any, Any]:
        async with client:
            await _refuse_a_draft(client, ref)
            ask_money(session, WEBCALL_COST + _terms(await _limits(client)), yes=yes)
            try:
                # Sent once, never again by itself (not even after a 429).
                call_ = await client.start_webcall(ref, idempotency_key=key)
            except errors.ApiError as error:
                if error.maybe_applied:
                    raise Failure(_lost(ref, key, error, await _slots(client)), EXIT_REFUSED) from None
                raise
            # Kept the moment its id is known: `vap calls` lists it, reads it, exports it.
            keep_call(session, call_.call_id, ref, "web")
            answer = client.last_answer
            return call_, json.loads(bytes(answer.body)) if answer and answer.body else None

    started, raw = asyncio.run(go())
    if session.as_json:
        return emit_json(raw)
    emit_pairs(session, [("call", started.call_id), ("host", started.host), ("room", started.room_name),
                         ("token", started.token)])


async def _agent_or_none(client: Any, ref: str) -> Any:
    """The agent, or None where the server has no GET /v1/agents/{ref} (the POST then decides)."""
    from vap_console.api import errors

    try:
        return await client.get_agent(ref)
    except errors.NotSupported:
        return None


async def _refuse_a_draft(client: Any, ref: str) -> None:
    """A draft takes no calls: said before anything billed is asked about or sent."""
    agent = await _agent_or_none(client, ref)
    if agent is not None and agent.deployed is False:
        raise Failure(f"{ref} ({agent.name or agent.ref}) is a draft: a draft takes no calls. Deploy "
                      "it first (the dashboard's Deploy; on the sandbox, D on the console's "
                      "Agents screen). Nothing was sent", EXIT_REFUSED)


async def _limits(client: Any) -> Any:
    """GET /v1/agent/limits, or None where the server cannot say (the slots inform, never stop)."""
    from vap_console.api import errors

    try:
        return await client.agent_limits()
    except errors.ApiError:
        return None


async def _slots(client: Any) -> str:
    """"call slots 1/4 in use", or "" where the server cannot say."""
    limits = await _limits(client)
    return f"call slots {limits.in_use}" if limits is not None else ""


def _terms(limits: Any) -> str:
    """What a confirm adds to the cost: the rate (or that none is published), then the slots."""
    from vap_console.api.models.agents import call_rate

    slots = f" (call slots {limits.in_use})" if limits is not None else ""
    return f"; {call_rate(limits)}{slots}"


def _lost(ref: str, key: str, error: Exception, slots: str) -> str:
    now = f" ({slots} now)" if slots else ""
    return (f"no usable answer came back to the web call with {ref}: {error} The call may be running "
            f"and billing now, holding one of the account's call slots{now}; `vap agents limits` "
            "shows them. Nothing was sent again. To ask for this call's credentials, run `vap agents "
            f"webcall {ref} --idempotency-key {key}`: a server that honours the key answers with this "
            "call; one that does not starts a second call, billed too")


def _keep_talk_call(session: Session, call_id: str, agent: str, kind: str) -> None:
    """A talk call into the ledger; one the service gave no id cannot be kept, and is said so."""
    if not call_id:
        say("warning: the service gave this call no id (neither register-call nor session.created): "
            "it is not kept in the calls ledger")
        return
    keep_call(session, call_id, agent, kind)


def _keep_answer_times(session: Session, call_id: str | None, times: list[float]) -> None:
    """The answer times of a call this command held, kept on it in the ledger (issue 34); the call
    is kept already, so a failure to write is a warning, not the command's end."""
    import sqlite3

    from vap_console.ledger import LedgerTooNew

    if call_id and times:
        try:
            session.ledger().record_answer_times(call_id, times)
        except (OSError, sqlite3.Error, LedgerTooNew, Failure) as exc:
            say(f"warning: the answer times of call {call_id} could not be kept in the calls ledger ({exc})")


TALK_COST = ("a call over the agent socket is billed from the moment the agent answers until it ends "
             "(here: after the last --say, or when the agent ends it)")


@agents.command(epilog=example(
    "vap agents talk ua_4152f853c72d --say 'What are your support hours?' --yes",
    "Billed from the moment the agent answers: without --yes it says so and asks on a terminal, and "
    "without a terminal it refuses. Waits for the greeting, sends each --say as a typed turn and waits "
    "for its answer, then hangs up. Prints the transcript; --json prints one object per socket event "
    "instead (audio summarised). docs/talk.md"))
@click.argument("ref", metavar="REF")
@click.option("--say", "says", multiple=True, metavar="TEXT", help="A turn to type (repeat for more).")
@click.option("--yes", is_flag=True, help="Start without asking (needed without a terminal).")
@click.option("--timeout", "turn_timeout", metavar="SECONDS", type=click.FloatRange(min=0.1), default=30.0,
              show_default=True,
              help="Seconds an answer (or the greeting) may take before the call is hung up.")
@common
def talk(session: Session, ref: str, says: tuple[str, ...], yes: bool, turn_timeout: float) -> None:
    """Hold a typed conversation with a deployed agent over its realtime socket. Billed."""
    from vap_console.api.figures import answer_times
    from vap_console.api.limits import TYPED_TURN
    from vap_console.scripting.dialogue import converse
    from vap_console.scripting.talk_output import EventPrinter, end_of

    for i, text in enumerate(says):
        if not text.strip() or not TYPED_TURN.allows(len(text)):
            raise Failure(f"--say #{i + 1}: must not be blank and {TYPED_TURN.rule()}; nothing was sent",
                          EXIT_USAGE)
    confirm_money(session, "vap agents talk", yes=yes)
    client = session.client()
    printer = EventPrinter(as_json=session.as_json)

    async def go() -> Any:
        async with client:
            await _refuse_a_draft(client, ref)
            ask_money(session, TALK_COST + _terms(await _limits(client)), yes=yes)
            return await converse(client, ref, says, on_event=printer.event,
                                  on_call_started=partial(_keep_talk_call, session), turn_timeout=turn_timeout)

    run = asyncio.run(go())
    _keep_answer_times(session, run.conversation.call_id, answer_times(run.conversation.turns))
    printer.closed(run.conversation)
    message, code = end_of(run)
    if code:
        raise Failure(message, code)
    say(message)


@agents.command("test", epilog=example(
    "vap agents test front-desk.test.json --yes --junit report.xml",
    "Each file names an agent and its conversations: the turns to type and what each answer must "
    "hold (contains, not_contains, matches, within_ms, tool; tools_called and agent_ends_call per "
    "conversation), and the gates of a release: repeat and min_pass_rate, latency budgets "
    "(p50_ms, p95_ms) and max_credits, per conversation and per suite; examples/front-desk.test.json "
    "is one. Every file is checked before any call. Each run of a conversation is a call, billed "
    "from the moment the agent answers (--yes, as talk). --compare REF_A REF_B holds the suite with "
    "both and prints a table of the change. Exit 0: everything held; 1: a test failed (or B is worse "
    "than the thresholds); 2: a file or an option is wrong (nothing was sent). docs/testing.md"))
@click.argument("files", nargs=-1, required=True, metavar="FILE...", type=click.Path(dir_okay=False, path_type=Path))
@click.option("--agent", "agent_override", metavar="REF", help="The agent to test, instead of each file's own.")
@click.option("--junit", "junit_path", metavar="PATH", type=click.Path(dir_okay=False, path_type=Path),
              help="Also write the results as JUnit XML (a suite per file, a case per expectation and "
                   "gate, the figures as properties).")
@click.option("--yes", is_flag=True, help="Start the calls without asking (needed without a terminal).")
@click.option("--repeat", type=click.IntRange(1, 100), metavar="N",
              help="Hold each conversation N times (over the file's repeat).")
@click.option("--min-pass-rate", type=click.FloatRange(0, 1), metavar="SHARE",
              help="The share of runs a conversation must pass, 0 to 1 (over the file's; default 1).")
@click.option("--parallel", type=click.IntRange(1, 64), default=1, show_default=True, metavar="N",
              help="Conversations held side by side, never more than the account's free call slots.")
@click.option("--compare", nargs=2, metavar="REF_A REF_B",
              help="Hold the suite with agent A and agent B and compare them; exit 1 when B is worse.")
@click.option("--max-p95-regression", type=click.FloatRange(min=0), metavar="SHARE",
              help="With --compare: how much higher B's answer p95 may be (0.2: 20 %%).")
@click.option("--max-cost-increase", type=click.FloatRange(min=0), metavar="SHARE",
              help="With --compare: how much more B's credits may be (0.1: 10 %%).")
@common
def test_(session: Session, files: tuple[Path, ...], agent_override: str | None, junit_path: Path | None,
          yes: bool, repeat: int | None, min_pass_rate: float | None, parallel: int,
          compare: tuple[str, str] | None, max_p95_regression: float | None,
          max_cost_increase: float | None) -> None:
    """Run conversation tests (docs/testing.md): each run of a conversation is a call. Billed."""
    from vap_console.scripting.test_command import Options, run_tests

    run_tests(session, files, Options(agent_override, junit_path, yes, repeat, min_pass_rate, parallel,
                                      (compare[0], compare[1]) if compare else None, max_p95_regression,
                                      max_cost_increase))
