"""Variables: every account-wide prompt variable, its default and the tool output feeding it."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.console import Group, RenderableType
from rich.text import Text

from vap_console.api import errors
from vap_console.api.models import Variable
from vap_console.tui import format as fmt
from vap_console.tui.screens.base import ListScreen
from vap_console.tui.screens.numbers import fields_table
from vap_console.tui.widgets.rows import Column, Row, make_row

if TYPE_CHECKING:
    from vap_console.api import VapClient


class VariablesScreen(ListScreen[Variable]):
    AREA = "variables"
    LABEL = "Variables"
    NOUN = "variables"
    EMPTY = "No variables yet. Typing {name} in an agent's prompt declares one."
    COLUMNS = (
        # A name is never cut to a prefix two variables share (`order_st…` twice); narrow, the
        # tool feeding it goes before the default value.
        Column("Name", 32, min_width=12, whole=True),
        Column("Default value", 40, min_width=10, drop=1),
        Column("Fed by", 40, min_width=10, drop=2),
    )

    async def fetch(self, client: VapClient) -> list[Variable]:
        page = await client.list_variables()
        if any(v.tool_id for v in page.items) and not self.services.names.tools:
            try:
                tools = await client.list_tools()
            except errors.ApiError:
                pass  # names are a nicety: ids still say which tool feeds a variable
            else:
                self.services.names.tools = {t.id: t.name for t in tools.items}
        self.services.names.variables = {v.name for v in page.items}
        return list(page.items)

    def fed_by(self, v: Variable) -> str:
        if not v.tool_id:
            return ""
        tool = self.services.names.tools.get(v.tool_id, v.tool_id)
        return f"{tool} ({v.tool_output})" if v.tool_output else tool

    def row_of(self, v: Variable) -> Row:
        return make_row(v.id, (v.name, v.default_value, self.fed_by(v)))

    def render_detail(self, v: Variable) -> RenderableType:
        return Group(
            Text("{" + v.name + "}", style="bold"),
            fields_table([
                ("id", v.id),
                ("default", v.default_value if v.default_value else Text("(blank)", style="dim")),
                ("fed by tool", self.services.names.tools.get(v.tool_id, v.tool_id) if v.tool_id else None),
                ("tool id", v.tool_id),
                ("from output", v.tool_output),
                ("created", fmt.when(v.created_at)),
                ("updated", fmt.when(v.updated_at)),
            ]),
        )
