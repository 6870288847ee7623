"""Agents: known agents; start a web call; delete with a confirm."""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import partial
from typing import TYPE_CHECKING

from rich.console import Group, RenderableType
from rich.text import Text
from textual import on, work
from textual.binding import Binding
from textual.message import Message
from textual.validation import Function
from textual.widgets import Static

from vap_console.api import errors
from vap_console.api.models import Agent, WebCallSession
from vap_console.tui import format as fmt
from vap_console.tui.screens.base import ListScreen
from vap_console.tui.screens.confirm import ConfirmScreen
from vap_console.tui.screens.numbers import fields_table, is_uuid
from vap_console.tui.screens.prompt_id import PromptIdScreen
from vap_console.tui.screens.webcall import WebCallScreen
from vap_console.tui.widgets.rows import Column, Row, make_row

if TYPE_CHECKING:
    from vap_console.api import VapClient

DELETE_NOTE = (
    "Its call history is kept. A phone number connected to it is detached "
    "and stops answering with this agent."
)


def is_agent_ref(value: str) -> bool:
    value = value.strip()
    return is_uuid(value) or bool(re.fullmatch(r"ua_[A-Za-z0-9]+", value))


def label_of(agent: Agent) -> str:
    return agent.name or agent.ref


class AgentsScreen(ListScreen[Agent]):
    AREA = "agents"
    LABEL = "Agents"
    NOUN = "agents"
    EMPTY = "No agents known. Create one from a template (5, then a), or press a to add one by id."
    COLUMNS = (
        # Narrow, the source goes first (nearly always "template"), then the template, then
        # whether it is deployed; the name and the ua_ handle a call needs stay whole.
        Column("Name", 28, min_width=12),
        Column("Ref", 24, whole=True),
        Column("Source", 10, min_width=8, drop=3),
        Column("Template", 20, min_width=10, drop=2),
        Column("Deployed", 8, min_width=8, drop=1),
    )
    BINDINGS = [
        Binding("w", "web_call", "Web call", id="agents.webcall", tooltip="Start a browser call with the agent"),
        Binding("d", "delete_agent", "Delete", id="agents.delete", tooltip="Delete the highlighted agent"),
        Binding("a", "add_agent", "Add by id", id="agents.add", tooltip="Track an agent by its id or ua_ handle"),
    ]

    class WebCallStarted(Message):
        def __init__(self, agent: Agent, session: WebCallSession) -> None:
            super().__init__()
            self.agent = agent
            self.session = session

    def __init__(self) -> None:
        super().__init__()
        self.from_local_index = False
        # Each repeats exactly the request that failed last (set as the request starts).
        self.retry_webcall: Callable[[], object] | None = None
        self.retry_delete: Callable[[], object] | None = None

    async def fetch(self, client: VapClient) -> list[Agent]:
        try:
            page = await client.list_agents()
        except errors.NotSupported:
            self.from_local_index = True
            return [Agent(id=i) for i in await self.known_ids("agent")]
        self.from_local_index = False
        return list(page.items)

    def row_of(self, a: Agent) -> Row:
        return make_row(
            a.id,
            (a.name or fmt.NONE, a.ref, a.source or fmt.NONE, a.template_slug or fmt.NONE, fmt.yes_no(a.deployed)),
            extra=a.id,
        )

    def render_detail(self, a: Agent) -> RenderableType:
        parts: list[RenderableType] = [
            Text(label_of(a), style="bold"),
            fields_table([
                ("id", a.id), ("ref", a.ref), ("source", a.source), ("template", a.template_slug),
                ("deployed", fmt.yes_no(a.deployed)),
                ("voice", f"{a.tts_config.model or '?'} · {a.tts_config.voice or a.tts_config.description or 'default'}"
                 if a.tts_config else None),
                ("created", fmt.when(a.created_at)), ("updated", fmt.when(a.updated_at)),
            ]),
        ]
        if a.greeting:
            parts += [Text("\nGreeting", style="bold underline"), Text(a.greeting)]
        if a.system_instruction:
            parts += [Text("\nSystem instruction", style="bold underline"), Text(a.system_instruction)]
        return Group(*parts)

    def after_load(self, items: list[Agent]) -> None:
        if self.from_local_index:
            self.query_one("#list-count", Static).update(
                f"{len(items)} agents (this profile's local index: the server has no list endpoint)",
                layout=False,
            )

    # --- web call ---

    def action_web_call(self) -> None:
        agent = self.current
        if agent is not None:
            self.start_web_call(agent)

    @work(exclusive=True, group="webcall", exit_on_error=False)
    async def start_web_call(self, agent: Agent) -> None:
        # Read by the app when this call fails: its banner's Retry calls this very agent again,
        # whichever row is highlighted by then.
        self.retry_webcall = partial(self.start_web_call, agent)
        session = await self.vap.call_api(lambda c: c.start_webcall(agent.ref))
        self.post_message(self.WebCallStarted(agent, session))

    @on(WebCallStarted)
    def _show_call(self, message: WebCallStarted) -> None:
        self.app.push_screen(WebCallScreen(message.session, label_of(message.agent)))

    # --- delete ---

    def action_delete_agent(self) -> None:
        agent = self.current
        if agent is None:
            return

        def confirmed(yes: bool | None) -> None:
            if yes:
                self.delete_agent(agent)

        self.app.push_screen(ConfirmScreen(f"Delete agent {label_of(agent)}?", DELETE_NOTE), confirmed)

    @work(exclusive=True, group="delete", exit_on_error=False)
    async def delete_agent(self, agent: Agent) -> None:
        self.retry_delete = partial(self.delete_agent, agent)
        await self.vap.call_api(lambda c: c.delete_agent(agent.ref))
        if self.vap.local_index is not None:
            self.vap.local_index.remove("agent", agent.id)
        self.notify(f"Deleted agent {label_of(agent)}. Its call history is kept.")
        self.vap.invalidate("agents", "numbers")

    # --- add by id ---

    def action_add_agent(self) -> None:
        async def check(ref: str) -> str | None:
            # The spec has no GET for one agent: the account's list is what can confirm it.
            try:
                page = await self.vap.call_api(lambda c: c.list_agents())
            except errors.NotSupported:
                return ref  # this server cannot list agents: remembered as typed, unchecked
            for agent in page.items:
                if ref in (agent.id, agent.ref, agent.handle):
                    return agent.id
            raise LookupError("no agent with this id or ua_ handle on this account")

        def added(agent_id: str | None) -> None:
            if not agent_id:
                return
            if self.vap.local_index is not None:
                self.vap.local_index.add("agent", agent_id)
            known = self.items.get(agent_id)
            self.notify(f"Agent {label_of(known)} is on the list." if known else f"Added agent {agent_id}.")
            self.select_after_load = agent_id
            self.vap.invalidate("agents")

        self.app.push_screen(
            PromptIdScreen("Add an agent by id", "Agent id or ua_ handle",
                           "Remembered for this profile, for servers that cannot list agents.",
                           rule=Function(is_agent_ref, "an agent id is a uuid or ua_ followed by its handle"),
                           check=check),
            added,
        )
