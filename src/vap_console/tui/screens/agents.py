"""Agents: known agents with their state (deployed or draft) and the account's call slots; start
a web call, confirmed first with what it costs; delete with a confirm; deploy on the sandbox."""

from __future__ import annotations

import asyncio
import re
from functools import partial
from typing import TYPE_CHECKING

from rich.console import Group, RenderableType
from rich.text import Text
from textual import on, work
from textual.binding import Binding
from textual.message import Message
from textual.validation import Function
from textual.widgets import Static
from textual.worker import Worker

from vap_console.api import errors
from vap_console.api.idempotency import BilledStarts
from vap_console.api.models import Agent, AgentLimits, WebCallSession
from vap_console.tui import format as fmt
from vap_console.tui.failures import describe_error
from vap_console.tui.screens.base import ListScreen
from vap_console.tui.screens.call_dialog import PlacesCalls
from vap_console.tui.screens.dialog import Confirm, confirm_then
from vap_console.tui.screens.numbers import fields_table, is_uuid
from vap_console.tui.screens.prompt_id import PromptIdScreen
from vap_console.tui.screens.webcall import IN_DOUBT_NOTE, WebCallConfirm, WebCallScreen
from vap_console.tui.services import Services
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


def state_of(agent: Agent) -> str:
    """deployed, draft, or unknown (a server that does not say)."""
    if agent.deployed is None:
        return fmt.NONE
    return "deployed" if agent.deployed else "draft"


# Agent details asked for at once when the list comes from the local index.
DETAIL_REQUESTS = 4


class AgentsScreen(PlacesCalls, ListScreen[Agent]):
    AREA = "agents"
    LABEL = "Agents"
    NOUN = "agents"
    EMPTY = "No agents known. Create one from a template (5, then a), or press a to add one by id."
    COLUMNS = (
        # Narrow, the source goes first (nearly always "template"), then the template, then
        # its state; the name and the ua_ handle a call needs stay whole.
        Column("Name", 28, min_width=12),
        Column("Ref", 24, whole=True),
        Column("Source", 10, min_width=8, drop=3),
        Column("Template", 20, min_width=10, drop=2),
        Column("State", 8, min_width=8, drop=1),
    )
    BINDINGS = [
        Binding("w", "web_call", "Web call", id="agents.webcall",
                tooltip="Start a browser call with the agent (billed; asks first)"),
        Binding("t", "talk", "Talk", id="agents.talk",
                tooltip="Talk to the agent here, typing (billed from when it answers; asks first)"),
        Binding("o", "place_call", "Outbound call", id="agents.place",
                tooltip="Have the highlighted agent call a phone number (billed; asks first)"),
        Binding("d", "delete_agent", "Delete", id="agents.delete", tooltip="Delete the highlighted agent"),
        Binding("a", "add_agent", "Add by id", id="agents.add", tooltip="Track an agent by its id or ua_ handle"),
        Binding("D", "deploy_agent", "Deploy (sandbox)", id="agents.deploy",
                tooltip="Sandbox only: deploy the highlighted agent, as the dashboard's Deploy does"),
    ]

    class WebCallAsked(Message):
        def __init__(self, agent: Agent, limits: AgentLimits | None, in_doubt: bool) -> None:
            super().__init__()
            self.agent = agent
            self.limits = limits
            # An earlier try's answer was lost: that call may be running and billing.
            self.in_doubt = in_doubt

    class TalkAsked(Message):
        def __init__(self, agent: Agent, limits: AgentLimits | None) -> None:
            super().__init__()
            self.agent = agent
            self.limits = limits

    class LimitsRead(Message):
        def __init__(self, limits: AgentLimits | None) -> None:
            super().__init__()
            self.limits = limits

    class WebCallStarted(Message):
        def __init__(self, agent: Agent, session: WebCallSession) -> None:
            super().__init__()
            self.agent = agent
            self.session = session

    def __init__(self, services: Services | None = None) -> None:
        super().__init__(services)
        self.from_local_index = False
        # Each repeats exactly the request that failed last (set as the request starts).
        # GET /v1/agent/limits as last read; None while unknown or where the server lacks it.
        self.limits: AgentLimits | None = None
        # Per agent, the Idempotency-Key a Retry of a lost start goes out under (see BilledStarts).
        self.call_keys = BilledStarts()

    async def fetch(self, client: VapClient) -> list[Agent]:
        try:
            page = await client.list_agents()
        except errors.NotSupported:
            self.from_local_index = True
            return await self.details_of(client, await self.known_ids("agent"))
        self.from_local_index = False
        return list(page.items)

    async def details_of(self, client: VapClient, ids: list[str]) -> list[Agent]:
        """The remembered agents, with their details where the server has GET /v1/agents/{ref}
        (name, state, voice); as bare ids where it does not, or does not know one any more."""
        if not ids:
            return []
        gate = asyncio.Semaphore(DETAIL_REQUESTS)

        async def one(agent_id: str) -> Agent | None:
            async with gate:
                try:
                    return await client.get_agent(agent_id)
                except errors.AgentNotFound:
                    return Agent(id=agent_id)
                except errors.NotSupported:
                    return None

        found = await asyncio.gather(*(one(i) for i in ids))
        return [agent if agent is not None else Agent(id=i) for i, agent in zip(ids, found)]

    def row_of(self, a: Agent) -> Row:
        return make_row(
            a.id,
            (a.name or fmt.NONE, a.ref, a.source or fmt.NONE, a.template_slug or fmt.NONE, state_of(a)),
            extra=a.id,
        )

    def render_detail(self, a: Agent) -> RenderableType:
        parts: list[RenderableType] = [
            Text(label_of(a), style="bold"),
            fields_table([
                ("id", a.id), ("ref", a.ref), ("source", a.source), ("template", a.template_slug),
                ("state", self.state_note(a)),
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

    def state_note(self, a: Agent) -> str:
        if a.deployed is None:
            return "not said by this server"
        if a.deployed:
            return "deployed: takes calls"
        where = "D deploys it here (sandbox only)" if self.services.on_sandbox else "deploy it in the dashboard"
        return f"draft: takes no calls until deployed; {where}"

    def after_load(self, items: list[Agent]) -> None:
        if self.from_local_index:
            self.query_one("#list-count", Static).update(
                f"{len(items)} agents (this profile's local index: the server has no list endpoint)",
                layout=False,
            )
        self.read_limits()

    def count_note(self) -> str:
        return f"web-call slots {self.limits.in_use}" if self.limits is not None else ""

    # --- call slots ---

    async def limits_or_none(self) -> AgentLimits | None:
        """GET /v1/agent/limits, or None where the server lacks it or cannot say now: the slots
        are a help to the person, never a reason to stop."""
        try:
            return await self.services.call_api(lambda c: c.agent_limits())
        except errors.ApiError:
            return None

    @work(exclusive=True, group="limits", exit_on_error=False)
    async def read_limits(self) -> None:
        self.post_message(self.LimitsRead(await self.limits_or_none()))

    @on(LimitsRead)
    def _limits_read(self, message: LimitsRead) -> None:
        self.show_limits(message.limits)

    def show_limits(self, limits: AgentLimits | None) -> None:
        self.limits = limits
        if not self.from_local_index:
            self._update_count()

    def worker_succeeded(self, worker: Worker[object]) -> None:
        # Reading the slots in the background is not the person's action: a banner stays.
        if worker.group != "limits":
            super().worker_succeeded(worker)

    # --- web call: asked first, every time; never sent again behind the person's back ---

    def action_web_call(self) -> None:
        agent = self.current
        if agent is None:
            return
        if self.starting_call():
            # A call being started must not be cut off: its answer holds the only way to join it.
            self.notify("A web call is being started; wait for its answer.", severity="warning")
            return
        if agent.deployed is False:
            # Asking to start a billed call the server refuses (409 agent_not_deployed) would
            # only teach the person to say yes to questions that lead nowhere.
            self.banner().show(self.draft_note(agent), info=True)
            return
        self.ask_web_call(agent)

    def draft_note(self, agent: Agent, key: str = "w") -> str:
        how = (f"press D to deploy it here (sandbox only), then {key}" if self.services.on_sandbox
               else f"deploy it in the dashboard, then r reloads this list and {key} starts the call")
        return (f"{label_of(agent)} is a draft (as this list last loaded it): a draft takes no calls "
                f"and nothing was started. To call it, {how}.")

    def starting_call(self) -> bool:
        return any(w.group == "webcall" and not w.is_finished for w in self.workers)

    @work(exclusive=True, group="webcall_ask", exit_on_error=False)
    async def ask_web_call(self, agent: Agent) -> None:
        # Retry in a failure's banner comes back here: it asks again, for this very agent
        # (whichever row is highlighted by then), and starts nothing by itself.
        self.retries["webcall"] = self.retries["webcall_ask"] = partial(self.ask_web_call, agent)
        # The slots are read before asking, every time: after a lost answer they are the one
        # sign the person has of whether the first try is running.
        limits = await self.limits_or_none()
        self.post_message(self.WebCallAsked(agent, limits, self.call_keys.in_doubt(agent.id)))

    @on(WebCallAsked)
    def _confirm_web_call(self, message: WebCallAsked) -> None:
        self.show_limits(message.limits)
        confirm_then(self.app, WebCallConfirm(label_of(message.agent), message.limits, in_doubt=message.in_doubt),
                     partial(self._start_unless_starting, message.agent))

    def _start_unless_starting(self, agent: Agent) -> None:
        # Billed: never a second start while one is under way (a second yes from one gesture).
        if not self.starting_call():
            self.start_web_call(agent)

    # Not exclusive: a new worker of an exclusive group cancels the one running, and a cancelled
    # start may have begun a billed call whose credentials would then never be shown.
    @work(group="webcall", exit_on_error=False)
    async def start_web_call(self, agent: Agent) -> None:
        self.retries["webcall"] = partial(self.ask_web_call, agent)
        # The same key for a Retry of a start whose answer was lost: a server that honours it
        # answers with the first call (its credentials, its one slot) instead of a second call.
        key = self.call_keys.key_for(agent.id)
        try:
            session = await self.services.call_api(
                lambda c: c.start_webcall(agent.ref, idempotency_key=key), resend=False)
        except errors.ApiError as error:
            self.call_keys.failed(agent.id, maybe_applied=error.maybe_applied)
            raise
        self.call_keys.succeeded(agent.id)
        if self.services.calls is not None:
            self.services.calls.record_started(session.call_id, agent.ref, "web")
        self.post_message(self.WebCallStarted(agent, session))

    @on(WebCallStarted)
    def _show_call(self, message: WebCallStarted) -> None:
        self.app.push_screen(WebCallScreen(message.session, label_of(message.agent)))
        self.read_limits()  # the call holds a slot now

    def agent_to_call_with(self) -> str:
        agent = self.current
        return agent.ref if agent is not None else ""

    def api_failed(self, worker: Worker[object], error: BaseException) -> bool:
        if worker.group == "placecall":
            return self.place_call_failed(error)
        if super().api_failed(worker, error):
            return True
        if worker.group == "webcall" and isinstance(error, errors.ApiError) and error.maybe_applied:
            self.banner().show(f"{describe_error(error)} {IN_DOUBT_NOTE} Retry asks first.",
                               self.retries.get("webcall"))
            self.read_limits()  # the count says whether a slot was taken
            return True
        if worker.group == "webcall" and isinstance(error, errors.AgentNotDeployed) and self.services.on_sandbox:
            self.banner().show(f"{describe_error(error)} On this sandbox, D deploys it.",
                               self.retries.get("webcall"))
            return True
        if worker.group == "webcall":
            self.read_limits()  # a refusal for want of slots, say: the count shows why
        return False

    # --- talk: a call over the agent socket, in its own screen (screens/talk.py) ---

    def _keep_call(self, call_id: str, agent_ref: str, kind: str) -> None:
        """A Talk call goes into the calls ledger the moment it is billed (session.created)."""
        if self.services.calls is not None:
            self.services.calls.record_started(call_id, agent_ref, kind)

    def action_talk(self) -> None:
        agent = self.current
        if agent is None:
            return
        if agent.deployed is False:
            self.banner().show(self.draft_note(agent, "t"), info=True)
            return
        self.ask_talk(agent)

    @work(exclusive=True, group="talk_ask", exit_on_error=False)
    async def ask_talk(self, agent: Agent) -> None:
        self.retries["talk_ask"] = partial(self.ask_talk, agent)
        self.post_message(self.TalkAsked(agent, await self.limits_or_none()))

    @on(TalkAsked)
    def _confirm_talk(self, message: TalkAsked) -> None:
        from vap_console.tui.screens.talk import TalkConfirm

        self.show_limits(message.limits)
        confirm_then(self.app, TalkConfirm(label_of(message.agent), message.limits),
                     partial(self._open_talk, message.agent, message.limits))

    def _open_talk(self, agent: Agent, limits: AgentLimits | None) -> None:
        from vap_console.tui.screens.talk import TalkScreen

        self.app.push_screen(TalkScreen(agent, self.services, limits=limits, on_call_started=self._keep_call,
                                        sound=not getattr(self.app, "in_browser", False)),
                             self._talk_closed)

    def _talk_closed(self, _: None) -> None:
        self.read_limits()  # the call's slot is free again

    # --- deploy: the sandbox's stand-in for the dashboard's Deploy button ---

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "deploy_agent":
            return self.services.on_sandbox
        return True

    def action_deploy_agent(self) -> None:
        agent = self.current
        if agent is not None and self.services.on_sandbox:
            self.deploy_agent(agent)

    @work(exclusive=True, group="deploy", exit_on_error=False)
    async def deploy_agent(self, agent: Agent) -> None:
        self.retries["deploy"] = partial(self.deploy_agent, agent)
        await self.services.call_api(lambda c: c.sandbox_deploy_agent(agent.ref))
        self.notify(f"Deployed {label_of(agent)} on the sandbox: it takes web calls now (w).")
        self.select_after_load = agent.id
        self.services.invalidate("agents")

    # --- delete ---

    def action_delete_agent(self) -> None:
        agent = self.current
        if agent is None:
            return
        confirm_then(self.app, Confirm(DELETE_NOTE, title=f"Delete agent {label_of(agent)}?",
                                             yes="Delete", no="Keep", danger=True),
                     partial(self.delete_agent, agent))

    @work(exclusive=True, group="delete", exit_on_error=False)
    async def delete_agent(self, agent: Agent) -> None:
        self.retries["delete"] = partial(self.delete_agent, agent)
        await self.services.call_api(lambda c: c.delete_agent(agent.ref))
        if self.services.local_index is not None:
            self.services.local_index.remove("agent", agent.id)
        self.notify(f"Deleted agent {label_of(agent)}. Its call history is kept.")
        self.services.invalidate("agents", "numbers")

    # --- add by id ---

    def action_add_agent(self) -> None:
        async def check(ref: str) -> str | None:
            # GET /v1/agents/{ref} where the server has it (the real service does), else the
            # account's list; a server with neither remembers the id as typed.
            try:
                return (await self.services.call_api(lambda c: c.get_agent(ref))).id
            except errors.AgentNotFound:
                raise LookupError("no agent with this id or ua_ handle on this account") from None
            except errors.NotSupported:
                pass
            try:
                page = await self.services.call_api(lambda c: c.list_agents())
            except errors.NotSupported:
                return ref  # this server cannot list agents: remembered as typed, unchecked
            for agent in page.items:
                if ref in (agent.id, agent.ref, agent.handle):
                    return agent.id
            raise LookupError("no agent with this id or ua_ handle on this account")

        def added(agent_id: str | None) -> None:
            if not agent_id:
                return
            if self.services.local_index is not None:
                self.services.local_index.add("agent", agent_id)
            known = self.items.get(agent_id)
            self.notify(f"Agent {label_of(known)} is on the list." if known else f"Added agent {agent_id}.")
            self.select_after_load = agent_id
            self.services.invalidate("agents")

        self.app.push_screen(
            PromptIdScreen("Add an agent by id", "Agent id or ua_ handle",
                           "Remembered for this profile, for servers that cannot list agents.",
                           rule=Function(is_agent_ref, "an agent id is a uuid or ua_ followed by its handle"),
                           check=check),
            added,
        )
