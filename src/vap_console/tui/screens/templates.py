"""Templates: starter agents; create an agent from one (a name is all it asks)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.console import Group, RenderableType
from rich.text import Text
from textual.binding import Binding

from vap_console.api.models import AgentTemplate
from vap_console.tui import format as fmt
from vap_console.tui.screens.agent_dialog import CreateAgentScreen
from vap_console.tui.screens.base import ListScreen
from vap_console.tui.screens.numbers import fields_table
from vap_console.tui.widgets.rows import Column, Row, make_row

if TYPE_CHECKING:
    from vap_console.api import VapClient
    from vap_console.api.models import Agent


def tts_rows(template: AgentTemplate) -> list[tuple[str, object]]:
    t = template.tts_config
    return [
        ("model", t.model), ("voice", t.voice), ("description", t.description),
        ("f0_up_key", t.f0_up_key), ("temperature", t.temperature), ("top_p", t.top_p),
        ("top_k", t.top_k), ("repetition_penalty", t.repetition_penalty),
        ("max_new_tokens", t.max_new_tokens),
    ]


class TemplatesScreen(ListScreen[AgentTemplate]):
    AREA = "templates"
    LABEL = "Templates"
    NOUN = "templates"
    EMPTY = "No agent templates on this account."
    # Narrow, the slug goes before the description: the description says what a template is for.
    COLUMNS = (Column("Name", 28, min_width=12), Column("Slug", 24, min_width=10, drop=2),
               Column("Description", 80, min_width=12, drop=1))
    BINDINGS = [
        Binding("a", "create_agent", "Create agent", id="templates.create_agent",
                tooltip="Create an agent from the highlighted template"),
    ]

    async def fetch(self, client: VapClient) -> list[AgentTemplate]:
        page = await client.list_templates()
        return sorted(page.items, key=lambda t: (t.sort_order, t.name))

    def row_of(self, t: AgentTemplate) -> Row:
        return make_row(t.id, (t.name, t.slug, t.description))

    def render_detail(self, t: AgentTemplate) -> RenderableType:
        return Group(
            Text(t.name, style="bold"),
            Text(t.description, style="italic"),
            fields_table([("slug", t.slug), ("id", t.id), ("updated", fmt.when(t.updated_at))]),
            Text("\nGreeting", style="bold underline"),
            Text(t.greeting),
            Text("\nSystem instruction", style="bold underline"),
            Text(t.system_instruction),
            Text("\nttsConfig", style="bold underline"),
            fields_table(tts_rows(t)),
        )

    def action_create_agent(self) -> None:
        template = self.current
        if template is None:
            return

        def created(agent: Agent | None) -> None:
            if agent is not None:
                # The real service saves a new agent as a draft: say so before a web call finds out.
                draft = agent.deployed is False
                where = "6, then D, deploys it on this sandbox" if self.services.on_sandbox else \
                    "deploy it in the dashboard before its first web call"
                self.notify(f"Created agent {agent.name or agent.ref} from {template.name}"
                            + (f". It is a draft: {where}." if draft else "."))
                self.services.invalidate("agents", "variables")

        self.app.push_screen(CreateAgentScreen(template, self.services), created)
