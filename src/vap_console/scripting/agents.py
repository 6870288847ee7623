"""`vap agents …`: list, show, create from a template, delete, the call slots, start a web call
(billed: one Idempotency-Key per run, a lost answer said and never resent)."""

from __future__ import annotations

import asyncio
import json
from functools import partial
from pathlib import Path
from typing import Any

import click

from vap_console.literal import clean
from vap_console.scripting.base import (
    EXIT_REFUSED,
    EXIT_USAGE,
    Failure,
    Session,
    ask_money,
    call,
    common,
    confirm_money,
    describe,
    emit_json,
    emit_pairs,
    emit_rows,
    example,
    keep_call,
    say,
)

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
              empty="No agents yet: `vap agents create --template SLUG --name NAME` makes one.")


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
            slots = await _slots(client)
            ask_money(session, WEBCALL_COST + (f" ({slots})" if slots else ""), yes=yes)
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


async def _slots(client: Any) -> str:
    """"call slots 1/4 in use", or "" where the server cannot say (the slots inform, never stop)."""
    from vap_console.api import errors

    try:
        return f"call slots {(await client.agent_limits()).in_use}"
    except errors.ApiError:
        return ""


def _lost(ref: str, key: str, error: Exception, slots: str) -> str:
    now = f" ({slots} now)" if slots else ""
    return (f"no usable answer came back to the web call with {ref}: {error} The call may be running "
            f"and billing now, holding one of the account's call slots{now}; `vap agents limits` "
            "shows them. Nothing was sent again. To ask for this call's credentials, run `vap agents "
            f"webcall {ref} --idempotency-key {key}`: a server that honours the key answers with this "
            "call; one that does not starts a second call, billed too")


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
            slots = await _slots(client)
            ask_money(session, TALK_COST + (f" ({slots})" if slots else ""), yes=yes)
            return await converse(client, ref, says, on_event=printer.event,
                                  on_call_started=partial(keep_call, session), turn_timeout=turn_timeout)

    run = asyncio.run(go())
    printer.closed(run.conversation)
    message, code = end_of(run)
    if code:
        raise Failure(message, code)
    say(message)


@agents.command("test", epilog=example(
    "vap agents test front-desk.test.json --yes --junit report.xml",
    "Each file names an agent and its conversations: the turns to type and what each answer must "
    "hold (contains, not_contains, matches, within_ms; tools_called and agent_ends_call per "
    "conversation); examples/front-desk.test.json is one. Every file is checked before any call. "
    "Each conversation is a call, billed from the moment the agent answers (--yes, as talk). Exit 0: "
    "every expectation held; 1: one failed (or a call could not be held); 2: a file or an option is "
    "wrong (nothing was sent). docs/talk.md"))
@click.argument("files", nargs=-1, required=True, metavar="FILE...", type=click.Path(dir_okay=False, path_type=Path))
@click.option("--agent", "agent_override", metavar="REF", help="The agent to test, instead of each file's own.")
@click.option("--junit", "junit_path", metavar="PATH", type=click.Path(dir_okay=False, path_type=Path),
              help="Also write the results as JUnit XML (a suite per file, a case per expectation).")
@click.option("--yes", is_flag=True, help="Start the calls without asking (needed without a terminal).")
@common
def test_(session: Session, files: tuple[Path, ...], agent_override: str | None, junit_path: Path | None,
          yes: bool) -> None:
    """Run conversation tests (docs/talk.md): each conversation is a call. Billed."""
    from vap_console.scripting import agent_tests as at

    try:
        loaded = [at.load(path) for path in files]
    except at.TestFileError as exc:
        raise Failure(f"{exc}; nothing was sent", EXIT_USAGE) from None
    for test_file in loaded:
        if not (agent_override or test_file.agent):
            raise Failure(f"{test_file.path}: agent: required (or --agent REF); nothing was sent", EXIT_USAGE)
    if junit_path is not None and not junit_path.parent.is_dir():
        raise Failure(f"--junit: the folder {junit_path.parent} does not exist; nothing was sent", EXIT_USAGE)
    confirm_money(session, "vap agents test", yes=yes)
    client = session.client()
    count = sum(len(t.conversations) for t in loaded)

    async def go() -> list[tuple[Any, list[Any]]]:
        async with client:
            refs = {agent_override or t.agent or "" for t in loaded}
            for ref in sorted(refs):
                await _refuse_a_draft(client, ref)
            slots = await _slots(client)
            calls = f"{count} conversation{'s' if count != 1 else ''}, each " + TEST_COST
            ask_money(session, calls + (f" ({slots})" if slots else ""), yes=yes)
            results = []
            for test_file in loaded:
                checks: list[Any] = []
                for script in test_file.conversations:
                    found = await _hold(client, session, agent_override or test_file.agent or "", test_file, script)
                    for check in found:
                        _report(check, session.as_json)
                    checks += found
                results.append((test_file, checks))
            return results

    results = asyncio.run(go())
    every = [c for _, checks in results for c in checks]
    failed = sum(not c.ok for c in every)
    if session.as_json:
        emit_json([{"file": str(t.path), "conversation": c.conversation, "expectation": c.what, "ok": c.ok,
                    "detail": c.detail} for t, checks in results for c in checks])
    if junit_path is not None:
        try:
            junit_path.write_text(at.junit(results), encoding="utf-8")
        except OSError as exc:
            raise Failure(f"--junit: cannot write {junit_path} ({exc.strerror})", EXIT_USAGE) from None
    summary = (f"{len(every)} expectation{'s' if len(every) != 1 else ''} in {count} conversation"
               f"{'s' if count != 1 else ''}: {len(every) - failed} held, {failed} failed")
    if failed:
        raise Failure(summary, EXIT_REFUSED)
    say(summary + ".")


TEST_COST = "a call over the agent socket billed from the moment the agent answers until it ends"


async def _hold(client: Any, session: Session, ref: str, test_file: Any, script: Any) -> list[Any]:
    """One scripted conversation held and judged; a call that could not be held fails its checks."""
    from vap_console.api import errors
    from vap_console.scripting import agent_tests as at
    from vap_console.scripting.dialogue import converse

    try:
        run = await converse(client, ref, [t.say for t in script.turns], on_call_started=partial(keep_call, session),
                             turn_timeout=test_file.timeout_ms / 1000)
    except errors.ApiError as error:
        return at.judge(script, None, describe(error)[0], None)
    talk = run.conversation
    failure = describe(talk.failure)[0] if talk.failure is not None else None
    tools = None
    if script.tools_called and talk.call_id:
        try:
            tools = await client.tools_called(talk.call_id)
        except errors.ApiError:
            tools = None
    return at.judge(script, run, failure, tools)


def _report(check: Any, as_json: bool) -> None:
    line = f"{'PASS' if check.ok else 'FAIL'}  {check.conversation} › {check.what}"
    if not check.ok:
        line += f": {check.detail}"
    # With --json the array on stdout is the report; the lines go to stderr for the person.
    if as_json:
        say(line)
    else:
        click.echo(clean(line, multiline=False))
