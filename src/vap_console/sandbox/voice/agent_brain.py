"""The sandbox's stand-in for an agent's model: a greeting and answers by fixed rules.

The sandbox has no language model and cannot recognise speech, so an agent on the realtime socket
answers by rules a developer can predict (docs/sandbox-voice.md states them). In order, the first
that applies:

1. a turn with ``bye``, ``goodbye`` or ``hang up`` ends the call: the agent calls ``end_call``
   (when it has it), says goodbye, and the session closes with reason ``ended``;
2. a turn naming one of the agent's during_call tools (``book_appointment`` or ``book
   appointment``) calls it: the tool shows in the call record's tools_called and in the answer;
3. a turn naming a variable (``business_name`` or ``business name``) is answered its value;
4. anything else is echoed back in the agent's persona.

The agent's during_call tools are the account's built-in ones and those its systemInstruction or
greeting attaches as ``{{name}}``. Its variables are filled as at the start of a real call: from
the outputs of the account's before_call tools (which the sandbox cannot call: it answers them
with stand-in values, below), else their default values.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from vap_console.sandbox.catalog import template_by_slug
from vap_console.sandbox.records import Account, AgentRecord, ToolRecord
from vap_console.sandbox.tools import VARIABLE_RE

# What the seeded CRM lookup (the before_call tool lookup_customer) answers in the sandbox; any
# other before_call tool answers each output with its tool and path, e.g. "[crm.data.name]".
STAND_IN_OUTPUTS = {
    ("lookup_customer", "data.name"): "Rahul Verma",
    ("lookup_customer", "data.tier"): "gold",
    ("lookup_customer", "data.lastVisit"): "12 October",
}
ENDING = re.compile(r"\b(bye|goodbye|good bye|hang up)\b", re.IGNORECASE)
TOOL_RE = re.compile(r"\{\{([A-Za-z][A-Za-z0-9_]*)\}\}")
# Echoes are cut here: a pasted page would otherwise be read out for minutes.
ECHO_MAX = 200


@dataclass
class Reply:
    text: str
    tools: list[str] = field(default_factory=list)
    ends_call: bool = False


def _phrase(name: str) -> re.Pattern[str]:
    """``book_appointment`` matches itself or ``book appointment``, as whole words, any case."""
    words = r"[\s_]+".join(re.escape(part) for part in name.split("_") if part)
    return re.compile(rf"(?<![A-Za-z0-9_]){words}(?![A-Za-z0-9_])", re.IGNORECASE)


def _label(name: str) -> str:
    return name.replace("_", " ")


class SandboxAgent:
    """One call's agent: its variables filled once, its greeting, and an answer to each turn."""

    def __init__(self, account: Account, agent: AgentRecord, call_id: str,
                 tool_values: dict[str, str] | None = None) -> None:
        self.agent = agent
        self.values = self._fill_variables(account, agent, call_id, tool_values)
        attached = set(TOOL_RE.findall(agent.system_instruction or "")) | set(TOOL_RE.findall(agent.greeting or ""))
        self.tools: list[ToolRecord] = sorted(
            (t for t in account.tools.values()
             if t.kind == "during_call" and (t.is_default or t.name in attached)),
            key=lambda t: (len(t.name), t.name), reverse=True,  # the longest name wins a tie
        )
        self.persona = self.values.get("agent_name") or agent.name.split(" – ")[0].strip() or "your agent"

    @staticmethod
    def _fill_variables(account: Account, agent: AgentRecord, call_id: str,
                        tool_values: dict[str, str] | None) -> dict[str, str]:
        values = {name: var.default_value for name, var in account.variables.items()}
        if tool_values is not None:  # --call-tools: what the tools really gave, defaults elsewhere
            values.update(tool_values)
            values.update(call_id=call_id, agent_id=agent.id, phone_number="")
            return values
        for tool in account.tools.values():
            if tool.kind != "before_call":
                continue
            for out in tool.config.get("outputs", []):
                name, path = out.get("name", ""), out.get("path", "")
                if name:
                    values[name] = STAND_IN_OUTPUTS.get((tool.name, path), f"[{tool.name}.{path}]")
        # The call-context placeholders a tool may use.
        values.update(call_id=call_id, agent_id=agent.id, phone_number="")
        return values

    def fill(self, text: str) -> str:
        """``{name}`` replaced by the variable's value; an unknown name is left as written;
        a ``{{tool}}`` attachment is read as the tool's name."""
        text = TOOL_RE.sub(lambda m: _label(m.group(1)), text)
        return VARIABLE_RE.sub(lambda m: self.values.get(m.group(1), m.group(0)), text)

    def greeting(self) -> str:
        """The agent's greeting, filled; from its template when it has none, else a plain hello."""
        text = self.agent.greeting.strip()
        if not text and self.agent.template_slug:
            template = template_by_slug(self.agent.template_slug)
            text = template[4] if template else ""
        if not text:
            text = "Hello, this is {agent_name}. How can I help you?"
        return " ".join(self.fill(text).split())

    def answer(self, heard: str) -> Reply:
        heard = " ".join(heard.split())
        if ENDING.search(heard):
            business = self.values.get("business_name")
            thanks = f"Thank you for calling {business}." if business else "Thank you for calling."
            tools = ["end_call"] if any(t.name == "end_call" for t in self.tools) else []
            return Reply(f"{thanks} Goodbye!", tools, ends_call=True)
        for tool in self.tools:
            if tool.name != "end_call" and _phrase(tool.name).search(heard):
                return Reply(f"Done: I used {_label(tool.name)}.", [tool.name])
        for name in sorted(self.values, key=len, reverse=True):
            if name in ("call_id", "agent_id", "phone_number") or not _phrase(name).search(heard):
                continue
            value = self.values[name]
            return Reply(f"The {_label(name)} is {value}." if value else f"The {_label(name)} is not set.")
        echo = heard if len(heard) <= ECHO_MAX else heard[:ECHO_MAX].rsplit(" ", 1)[0] + " …"
        # "You said: what time?. How…" reads wrong: the echo's own end mark closes the sentence.
        stop = "" if echo.endswith((".", "?", "!", "…")) else "."
        return Reply(f"This is {self.persona}. You said: {echo}{stop} How else can I help?")
