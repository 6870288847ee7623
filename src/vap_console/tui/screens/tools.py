"""Tools: the account's HTTP tools, their whole config, create (form) and delete (with a confirm)."""

from __future__ import annotations

from functools import partial
from typing import TYPE_CHECKING

from rich.console import Group, RenderableType
from rich.text import Text
from textual import work
from textual.binding import Binding
from textual.widgets import Static

from vap_console.api import errors
from vap_console.api.models import Tool, ToolConfig
from vap_console.tui import format as fmt
from vap_console.tui import untrusted
from vap_console.tui.placeholders import highlight
from vap_console.tui.screens.base import ListScreen
from vap_console.tui.screens.dialog import Confirm, confirm_then
from vap_console.tui.screens.numbers import fields_table
from vap_console.tui.screens.tool_form import ToolFormScreen
from vap_console.tui.services import Services
from vap_console.tui.widgets.rows import Column, Row, RowTable, make_row

if TYPE_CHECKING:
    from vap_console.api import VapClient

BUILTIN_NOTE = (
    "Built-in tools (ids starting with default-) come with the platform: "
    "they cannot be edited or deleted."
)


def llm_param_line(param: object) -> Text:
    """``name: description`` — the description is what the model reads to fill the parameter."""
    if not isinstance(param, dict):
        return Text(str(param))
    line = Text(str(param.get("name", "?")), style="bold")
    extra = [str(param["type"])] if param.get("type") else []
    if isinstance(param.get("enum"), list):
        extra.append("one of " + ", ".join(str(v) for v in param["enum"]))
    if extra:
        line.append(f" ({', '.join(extra)})", style="dim")
    if param.get("description"):
        line.append(f": {param['description']}")
    return line


def llm_param_names(params: list[object]) -> set[str]:
    """The argument names a tool's model supplies. The spec leaves an item's shape open: a name
    that is not a string (a list, a number) names nothing a placeholder could use."""
    names = set()
    for param in params:
        name = param.get("name") if isinstance(param, dict) else param
        if isinstance(name, str):
            names.add(name)
    return names


def unknown_tool(tool_id: str) -> Tool:
    """A tool this profile created, on a server that cannot list tools: only its id is known."""
    return Tool(id=tool_id, name=tool_id, description="(known by id only: this server cannot list tools)",
                kind="?", config=ToolConfig())


BUILTIN_MARK = "°"
BUILTIN_NOTE_SHORT = "° built-in"


def url_cell(url: str | None) -> str:
    return url.removeprefix("https://") if url else fmt.NONE


def performed_action_text(value: str | None) -> str | None:
    """The API sets it and documents only its default: say so, instead of a bare "end_call" that
    reads as if the tool ended calls."""
    if not value:
        return None
    if value == "end_call":
        return "end_call: set by the server, its default for a tool created without one"
    return f"{value}: set by the server"


class ToolsScreen(ListScreen[Tool]):
    AREA = "tools"
    LABEL = "Tools"
    NOUN = "tools"
    EMPTY = "No tools yet. Press n to create one."
    COLUMNS = (
        # Narrow, the method goes first, then the kind; the name and the URL stay (built-in
        # tools are marked on their name, not in a column).
        Column("Name", 24, min_width=12),
        Column("Kind", 11, min_width=11, drop=2),
        Column("Method", 6, min_width=6, drop=3),
        Column("URL", 60, min_width=16),
    )
    BINDINGS = [
        Binding("n", "new_tool", "New tool", id="tools.new", tooltip="Create an HTTP tool"),
        Binding("d", "delete_tool", "Delete", id="tools.delete", tooltip="Delete the highlighted tool"),
        Binding("x", "try_tool", "Try", id="tools.try",
                tooltip="Call the highlighted tool's webhook as the platform would, and check its answer"),
    ]

    def __init__(self, services: Services | None = None) -> None:
        super().__init__(services)

    async def fetch(self, client: VapClient) -> list[Tool]:
        try:
            page = await client.list_tools()
            tools = list(page.items)
        except errors.NotSupported:
            tools = [unknown_tool(i) for i in await self.known_ids("tool")]
        self.services.names.tools = {t.id: t.name for t in tools}
        return tools

    def row_of(self, tool: Tool) -> Row:
        return make_row(
            tool.id,
            # Built-in is a mark on the name (the count line says what it means), not a column of
            # its own that stood empty for every other tool while cutting URLs short; https:// goes
            # for the same room (the detail shows the URL whole; http:// stays, it is worth seeing).
            (f"{tool.name}{BUILTIN_MARK}" if tool.builtin else tool.name,
             tool.kind, tool.config.method or fmt.NONE, url_cell(tool.config.url)),
            extra=tool.id + " " + tool.description,
        )

    def _update_count(self) -> None:
        super()._update_count()
        shown = (self.items.get(key) for key in self.query_one(RowTable).keys)
        if any(tool is not None and tool.builtin for tool in shown):
            count = self.query_one("#list-count", Static)
            count.update(untrusted.content(f"{count.content} · {BUILTIN_NOTE_SHORT}"), layout=False)

    def render_detail(self, tool: Tool) -> RenderableType:
        c = tool.config
        known = set(self.services.names.variables) | llm_param_names(c.llm_params)
        auth = c.auth
        auth_text: object = None
        if auth is not None and (auth.type or "none") == "none":
            auth_text = "none (no credentials sent)"  # a header name means nothing without auth
        elif auth is not None:
            auth_text = (f"{auth.type} · header {auth.header_name}"
                         + (f" · user {auth.username}" if auth.username else "")
                         + (" · secret stored" if auth.has_secret else " · no secret"))
        rows: list[tuple[str, object]] = [
            ("id", tool.id),
            ("kind", tool.kind),
            ("built-in", fmt.yes_no(tool.builtin)),
            ("description", tool.description),
            ("method", c.method),
            ("url", highlight(c.url or "", known) if c.url else None),
            ("params", Text("\n").join(Text(f"{p.name} = ") + highlight(p.value, known) for p in c.params) or None),
            ("headers", Text("\n").join(Text(f"{h.name}: ") + highlight(h.value, known) for h in c.headers) or None),
            ("body", highlight(c.body, known) if c.body else None),
            ("timeout", f"{c.timeout_ms} ms" if c.timeout_ms is not None else None),
            ("wait for response", fmt.yes_no(c.wait_for_response)),
            ("auth", auth_text),
            ("llm params", Text("\n").join(llm_param_line(p) for p in c.llm_params) or None),
            ("outputs", "\n".join(f"{o.name} ← {o.path or '(whole response)'}" for o in c.outputs) or None),
            ("action", c.action),
            ("performed action", performed_action_text(c.performed_action)),
            ("curl", c.curl or None),
            ("created", fmt.when(tool.created_at)),
            ("updated", fmt.when(tool.updated_at)),
        ]
        parts: list[RenderableType] = [Text(tool.name, style="bold"), fields_table(rows)]
        if tool.builtin:
            parts.append(Text("\n" + BUILTIN_NOTE, style="italic"))
        return Group(*parts)

    # --- create ---

    def action_new_tool(self) -> None:
        def created(tool: Tool | None) -> None:
            if tool is None:
                return
            if self.services.local_index is not None:
                self.services.local_index.add("tool", tool.id)
            self.notify(f"Created tool {tool.name}.")
            self.select_after_load = tool.id
            self.services.invalidate("tools", "variables")

        self.app.push_screen(ToolFormScreen(self.services), created)

    # --- try ---

    def action_try_tool(self) -> None:
        tool = self.current
        if tool is None:
            return
        if tool.builtin:
            self.banner().show(f"{tool.name}: the platform runs its built-in tools itself; there is no "
                               "webhook of yours to try.", info=True)
            return
        self.banner().clear()
        self.open_try(tool)

    @work(exclusive=True, group="try", exit_on_error=False)
    async def open_try(self, tool: Tool) -> None:
        """The account's variables first (the placeholder rule's second source), then the dialog."""
        from vap_console.tui.screens.tool_try_dialog import ToolTryDialog

        self.retries["try"] = partial(self.open_try, tool)
        try:
            variables = {v.name: v.default_value
                         for v in (await self.services.call_api(lambda c: c.list_variables())).items}
        except errors.NotSupported:
            variables = {}  # a server without variables: their placeholders are typed in the dialog
        self.app.push_screen(ToolTryDialog(tool, variables, self.services))

    # --- delete ---

    def action_delete_tool(self) -> None:
        tool = self.current
        if tool is None:
            return
        if tool.builtin:
            self.banner().show(f"{tool.name}: {BUILTIN_NOTE}", info=True)
            return
        self.banner().clear()  # a note about another tool must not sit above this one's confirm
        confirm_then(self.app, Confirm(
            "Agents lose this tool. Variables it fed fall back to their default values.",
            title=f"Delete tool {tool.name}?", yes="Delete", no="Keep", danger=True,
        ), partial(self.delete_tool, tool))

    @work(exclusive=True, group="delete", exit_on_error=False)
    async def delete_tool(self, tool: Tool) -> None:
        # Read by the app when this delete fails: Retry deletes this very tool again.
        self.retries["delete"] = partial(self.delete_tool, tool)
        await self.services.call_api(lambda c: c.delete_tool(tool.id))
        if self.services.local_index is not None:
            self.services.local_index.remove("tool", tool.id)
        self.notify(f"Deleted tool {tool.name}.")
        self.services.invalidate("tools", "variables")
