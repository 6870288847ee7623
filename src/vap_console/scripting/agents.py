"""`vap agents …`: list, show, create from a template, delete, the call slots, start a web call
(billed: one Idempotency-Key per run, a lost answer said and never resent)."""

from __future__ import annotations

import asyncio
import json
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
    keep_call,
    say,
)

WEBCALL_COST = "a web call is billed from the moment it starts, even if nobody joins"
NAME_MAX = 100


@click.group(epilog="Example: vap agents create --template support --name 'Front desk'")
def agents() -> None:
    """Agents: list, show, create, delete, limits (call slots), webcall."""


def _state(deployed: bool | None) -> str:
    return "deployed" if deployed else "draft" if deployed is not None else "?"


@agents.command("list", epilog="Example: vap agents list --json | jq -r '.[].id'")
@common
def list_(session: Session) -> None:
    """Every agent: reference (ua_…), name, deployed or draft, template."""
    page, raw = call(session, lambda c: c.list_agents())
    if session.as_json:
        return emit_json(raw["items"])
    rows = [[a.ref, a.name, _state(a.deployed), a.template_slug, a.id] for a in page.items]
    emit_rows(session, ["REF", "NAME", "STATE", "TEMPLATE", "ID"], rows,
              empty="No agents yet: `vap agents create --template SLUG --name NAME` makes one.")


@agents.command(epilog="Example: vap agents show ua_front_desk")
@click.argument("ref")
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


@agents.command(epilog="Example: vap agents create --template support --name 'Front desk'")
@click.option("--template", "slug", required=True, help="The template's slug (`vap templates list`).")
@click.option("--name", required=True, help="The agent's name.")
@common
def create(session: Session, slug: str, name: str) -> None:
    """Create a draft agent from a template (its voice is checked against your voices first)."""
    from vap_console.api.models import AgentCreate
    from vap_console.api.voices import tts_problems

    name = name.strip()
    if not name or len(name) > NAME_MAX:
        raise Failure(f"--name: must not be blank and at most {NAME_MAX} characters; nothing was sent",
                      EXIT_USAGE)

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


@agents.command(epilog="Example: vap agents delete ua_front_desk")
@click.argument("ref")
@common
def delete(session: Session, ref: str) -> None:
    """Delete an agent (a number connected to it is detached)."""
    call(session, lambda c: c.delete_agent(ref))
    if not session.as_json:
        say(f"Deleted agent {ref}.")


@agents.command(epilog="Example: vap agents limits --json")
@common
def limits(session: Session) -> None:
    """The account's concurrent-call slots: calls running now, of how many (GET /v1/agent/limits)."""
    found, raw = call(session, lambda c: c.agent_limits())
    if session.as_json:
        return emit_json(raw)
    emit_pairs(session, [("in use", found.active_requests), ("slots", found.concurrency_limit),
                         ("plan", found.plan)])


@agents.command(epilog=(
    "Example: vap agents webcall ua_front_desk --yes --json\n\n"
    "Each run sends its own Idempotency-Key. When the answer is lost, the command says so, prints "
    "the key and sends nothing again; --idempotency-key KEY asks for that call once more."))
@click.argument("ref")
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
            agent = await _agent_or_none(client, ref)
            if agent is not None and agent.deployed is False:
                raise Failure(f"{ref} ({agent.name or agent.ref}) is a draft: a draft takes no calls. Deploy "
                              "it first (the dashboard's Deploy; on the sandbox, D on the console's "
                              "Agents screen). Nothing was sent", EXIT_REFUSED)
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
