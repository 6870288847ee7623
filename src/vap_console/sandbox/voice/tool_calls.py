"""The sandbox calling the account's tools for real: `vap sandbox serve --call-tools` (issue 33, 3).

Off by default: the sandbox then answers tools with stand-in values (agent_brain.py). On, each
``before_call`` tool runs at the start of every call (the agent socket's, a web call's, an
outbound call's: ``start_before_call``) with the request api/tool_call.py
builds (the placeholder rule: variables' defaults, then the call's context), sent by
api/tool_webhook.py (the tool's timeoutMs, no redirects, a read cap); its outputs fill the
variables the greeting and answers use. A failure or a timeout leaves the variable's default, as
the spec says for a deleted tool, and is recorded.

Only loopback hosts are called unless ``--call-tools-host HOST`` names more: checked on the
request's host before any connection is opened, so a sandbox never becomes a way to reach
another machine. The platform's API key is never sent (the webhook client has none); the tool's
own stored credential is, as the platform would send it, and is masked in the record.

Each call of a tool is kept on the call record (``toolCalls``, a sandbox extension): the request
as sent (secret masked), the status, the milliseconds, the outputs read, or the error.
"""

from __future__ import annotations

import asyncio
import logging
import re
from collections.abc import Callable, Coroutine
from dataclasses import dataclass
from typing import Any

import httpx

from vap_console.api.models import Tool
from vap_console.api.tool_call import Sources, ToolRequest, build_request
from vap_console.api.tool_result import judge
from vap_console.api.tool_webhook import send, webhook_client
from vap_console.cleartext import is_this_machine
from vap_console.sandbox.records import Account, AgentRecord, ToolRecord

_log = logging.getLogger("uvicorn.error")


class ToolCalling:
    """``--call-tools``: which hosts, besides loopback, a tool may be called on, and the one client
    every call of the sandbox sends with (made on first use, on the server's loop): connections to
    a webhook are kept between calls and the CA bundle is loaded once, so a tool call adds little
    beyond the webhook's own time (bench/tools.py)."""

    def __init__(self, hosts: frozenset[str] = frozenset()) -> None:
        self.hosts = hosts
        self._client: httpx.AsyncClient | None = None
        # Tool calls a web or outbound call runs after its answer has gone: kept here so the loop
        # does not drop them half-way (it holds tasks only weakly).
        self._running: set[asyncio.Task[None]] = set()

    def run_later(self, job: Coroutine[Any, Any, None]) -> None:
        task = asyncio.get_running_loop().create_task(job)
        self._running.add(task)
        task.add_done_callback(self._done)

    def _done(self, task: asyncio.Task[None]) -> None:
        self._running.discard(task)
        if not task.cancelled() and (error := task.exception()) is not None:
            _log.error("a tool call of the sandbox failed", exc_info=error)  # a sandbox bug, in serve's log

    def client(self) -> httpx.AsyncClient:
        if self._client is None or self._client.is_closed:
            self._client = webhook_client()
        return self._client

    def refusal(self, url: str) -> str | None:
        """Why a request to ``url`` is not sent, or None when its host is allowed."""
        try:
            host = httpx.URL(url).host
        except (httpx.InvalidURL, ValueError, TypeError):
            return f"not a URL that can be called: {url}"
        if is_this_machine(host) or host.lower() in self.hosts:
            return None
        return (f"host {host} is not called: --call-tools calls loopback hosts only unless "
                "--call-tools-host names more")


def _tool(record: ToolRecord) -> Tool:
    return Tool.model_validate(record.to_wire())


def _secret(record: ToolRecord) -> str | None:
    return record.secret.get("token") or record.secret.get("password") or None


@dataclass
class ToolCallOutcome:
    entry: dict[str, Any]
    outputs: dict[str, str]


async def call_tool(record: ToolRecord, sources: Sources, policy: ToolCalling,
                    client: httpx.AsyncClient, turn: int | None = None) -> ToolCallOutcome:
    """One tool called (or refused before any connection); its record entry and the outputs it gave.
    ``turn``: the caller's turn (1-based) that led to a during_call tool, which a conversation
    test's ``expect.tool`` reads, with ``args``, the arguments the agent gave it."""
    tool = _tool(record)
    entry: dict[str, Any] = {"name": tool.name, "kind": tool.kind, "args": dict(sources.arguments), "turn": turn,
                             "request": None, "status": None, "ms": None, "outputs": {}, "error": None}
    try:
        request: ToolRequest = build_request(tool, sources, _secret(record))
    except ValueError as exc:
        entry["error"] = str(exc)
        return ToolCallOutcome(entry, {})
    entry["request"] = request.wire()
    refused = policy.refusal(request.url)
    if refused is not None:
        entry["error"] = refused
        return ToolCallOutcome(entry, {})
    answer = await send(request, client)
    result = judge(tool, request, answer)
    entry["status"], entry["ms"] = answer.status, round(answer.ms, 1)
    # Outputs fill variables only from a 2xx read whole; otherwise every variable keeps its default.
    usable = answer.status is not None and 200 <= answer.status < 300 and not answer.over_cap
    outputs = {o.name: o.value for o in result.outputs if o.found and o.value is not None} if usable else {}
    entry["outputs"] = outputs
    if not result.ok:
        entry["error"] = result.verdict()
    return ToolCallOutcome(entry, outputs)


def _before_call_tools(account: Account) -> list[ToolRecord]:
    return [t for t in account.tools.values() if t.kind == "before_call" and not t.is_default]


async def before_call(account: Account, agent: AgentRecord, call_id: str, policy: ToolCalling,
                      phone_number: str = "") -> tuple[dict[str, str], list[dict[str, Any]]]:
    """Every before_call tool of the account, called in order: the variables their outputs fill
    and one record entry per call. ``phone_number``: the callee of an outbound call; a web or
    socket call has none."""
    tools = _before_call_tools(account)
    if not tools:
        return {}, []
    defaults = {name: var.default_value for name, var in account.variables.items()}
    sources = Sources(variables=defaults,
                      context={"call_id": call_id, "agent_id": agent.id, "phone_number": phone_number})
    filled: dict[str, str] = {}
    entries: list[dict[str, Any]] = []
    for record in tools:
        outcome = await call_tool(record, sources, policy, policy.client())
        filled.update(outcome.outputs)
        entries.append(outcome.entry)
    return filled, entries


Then = Callable[[dict[str, str], list[dict[str, Any]]], None]


def start_before_call(policy: ToolCalling, account: Account, agent: AgentRecord, call_id: str,
                      phone_number: str, then: Then) -> bool:
    """A web or outbound call's before_call tools, run after the request that started the call
    has been answered (a slow webhook must not hold up the answer of a billed POST, which a client
    may give up on and never send again); ``then(filled, entries)`` once they have all answered or
    failed. False, and nothing run, when the account has none."""
    if not _before_call_tools(account):
        return False

    async def job() -> None:
        filled: dict[str, str] = {}
        entries: list[dict[str, Any]] = []
        try:
            filled, entries = await before_call(account, agent, call_id, policy, phone_number)
        finally:  # a sandbox bug raising here is logged (run_later); the call still goes on, with defaults
            then(filled, entries)

    policy.run_later(job())
    return True


# A turn's arguments for a during_call tool (docs/sandbox-voice.md): ``name: value`` or
# ``name=value`` pairs, separated by commas or semicolons; only the tool's llmParams are taken.
_PAIR = re.compile(r"(?<![A-Za-z0-9_])([A-Za-z][A-Za-z0-9_]*)\s*[:=]\s*(\S.*?)\s*$")


def arguments_in(turn: str, names: list[str]) -> dict[str, str]:
    """The arguments a turn gives: ``book_appointment doctor: Mehta, slot=Friday 10am`` →
    {"doctor": "Mehta", "slot": "Friday 10am"} when both are the tool's llmParams."""
    found: dict[str, str] = {}
    for piece in re.split(r"[,;]", turn):
        match = _PAIR.search(piece)
        if match and match.group(1) in names:
            found.setdefault(match.group(1), match.group(2))
    return found


async def during_call(record: ToolRecord, turn: str, values: dict[str, str], context: dict[str, str],
                      policy: ToolCalling, number: int | None = None) -> ToolCallOutcome:
    """A during_call tool a turn named, called with the arguments the turn gives (``number``: the
    turn's, 1-based, kept on the record)."""
    from vap_console.api.tool_call import llm_param_names

    tool = _tool(record)
    sources = Sources(arguments_in(turn, llm_param_names(tool)), values, context)
    return await call_tool(record, sources, policy, policy.client(), number)


def answer_after(label: str, outcome: ToolCallOutcome) -> str:
    """What the agent says once the tool has answered: what it returned, or that it failed."""
    if outcome.outputs:
        said = "; ".join(f"{name.replace('_', ' ')} is {value}" for name, value in outcome.outputs.items())
        return f"Done: I used {label}: {said}."
    if outcome.entry["error"] is None:
        return f"Done: I used {label}."
    return f"I tried {label}, but it did not work."
