"""{token} placeholders in a tool's url, params, headers and body (spec 2.4).

A token is filled from the model's arguments (llmParams), then the account's variables, then the
call's context params. The console knows the first two and the context params the service
documents ({call_id}, {agent_id}, {phone_number}); any other token is flagged as "unknown" — a
warning, since the service may still fill it.
"""

from __future__ import annotations

from collections.abc import Iterable

from rich.text import Text

# The rule's one definition (what a token is, which context params the service fills) is the
# request builder's, so the form marks exactly what `vap tools try` and the platform fill.
from vap_console.api.tool_call import CONTEXT_PARAMS, TOKEN
from vap_console.api.tool_call import tokens as tokens

KNOWN_STYLE = "bold green"
CONTEXT_STYLE = "bold cyan"
UNKNOWN_STYLE = "bold yellow underline"
CONTEXT = frozenset(CONTEXT_PARAMS)


def unknown_tokens(values: Iterable[str], known: set[str]) -> list[str]:
    seen: list[str] = []
    for value in values:
        for token in tokens(value):
            if token not in known and token not in CONTEXT and token not in seen:
                seen.append(token)
    return seen


def highlight(value: str, known: set[str]) -> Text:
    text = Text(value)
    for m in TOKEN.finditer(value):
        token = m.group(1)
        style = KNOWN_STYLE if token in known else CONTEXT_STYLE if token in CONTEXT else UNKNOWN_STYLE
        text.stylize(style, m.start(), m.end())
    return text
