"""{token} placeholders in a tool's url, params, headers and body (spec 2.4).

A token is filled from the model's arguments (llmParams), then the account's variables, then the
call's context params. The console can only know the first two, so a token that is neither is
flagged as "unknown" — a warning, since it may still be a context param.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from rich.text import Text

TOKEN = re.compile(r"\{([A-Za-z_][A-Za-z0-9_.]*)\}")
KNOWN_STYLE = "bold green"
UNKNOWN_STYLE = "bold yellow underline"


def tokens(value: str) -> list[str]:
    return [m.group(1) for m in TOKEN.finditer(value)]


def unknown_tokens(values: Iterable[str], known: set[str]) -> list[str]:
    seen: list[str] = []
    for value in values:
        for token in tokens(value):
            if token not in known and token not in seen:
                seen.append(token)
    return seen


def highlight(value: str, known: set[str]) -> Text:
    text = Text(value)
    for m in TOKEN.finditer(value):
        text.stylize(KNOWN_STYLE if m.group(1) in known else UNKNOWN_STYLE, m.start(), m.end())
    return text
