"""Every limit on what is sent, defined once (issue 28, point 4).

The client's checks (``api/tool_rules.py``, ``api/rental_rules.py``, ``api/rental.py``), the
console's fields (the tool form, the agent dialog, the rental wizard), ``vap``'s commands, the
sandbox (``sandbox/tools.py``, ``endpoints.py``, ``phone_numbers.py``) and the sandbox's OpenAPI
document all read their numbers and patterns from here, so a value the form accepts is one the
server accepts, and a value the server refuses is refused before it is sent, in the same words.
``tests/test_one_rule_each.py`` walks every limit through all five.

Where the spec gives a value it is the one here (tool name 64, description 1 to 1000, documents
5 MB each, pdf/jpeg/png). Where it is silent, the value is the sandbox's, which plays the
deployment: a tool's timeoutMs is at most 60,000 ms (a during-call tool that waits longer holds a
caller in silence for over a minute; the console's old 600,000 let a person type what the server
then refused), and an agent's name at most 100 characters (what the console and ``vap`` already
told people; the sandbox's 120 was the odd one out).

No Textual, no pydantic: the sandbox imports this too.
"""

from __future__ import annotations

import re
from dataclasses import dataclass


@dataclass(frozen=True)
class Limit:
    """How many characters, entries, bytes or milliseconds a value may have: ``low`` to ``high``."""

    high: int
    low: int = 0
    unit: str = "characters"

    def rule(self) -> str:
        """The rule in words: ``at most 64 characters``, ``1 to 1000 characters``."""
        if self.unit == "ms":
            return f"from {self.low:,} to {self.high:,} ms"
        if self.low:
            return f"{self.low} to {self.high} {self.unit}"
        return f"at most {self.high} {self.unit}"

    def problem(self, size: int) -> str | None:
        """``must be …`` when ``size`` breaks the rule, else None."""
        if self.low <= size <= self.high:
            return None
        if self.unit == "entries":
            return f"must have {self.rule()}"
        return f"must be {self.rule()}"

    def allows(self, size: int) -> bool:
        return self.low <= size <= self.high


def whole(pattern: str) -> re.Pattern[str]:
    """A ``^…$`` pattern that means the whole string: in Python a ``$`` also matches before a
    final newline ("lookup\\n"), so it ends in ``\\Z`` here; use with ``.match``."""
    return re.compile(pattern.removesuffix("$") + r"\Z")


# --- tools (spec 2.4, 4.2) ---

TOOL_NAME_PATTERN = r"^[A-Za-z][A-Za-z0-9_]*$"
TOOL_NAME = Limit(64, 1)
TOOL_DESCRIPTION = Limit(1000, 1)
TOOL_KINDS = ("before_call", "during_call")
TOOL_METHODS = ("GET", "POST", "PUT", "PATCH", "DELETE")
TOOL_AUTH_TYPES = ("none", "bearer", "basic", "api_key")
TOOL_TIMEOUT_MS = Limit(60_000, 1, "ms")
TOOL_DEFAULT_TIMEOUT_MS = 10_000
# A URL is http(s), then at least one character and no white space anywhere.
# A host without brackets: "http://[" is no URL (urlsplit refuses it), and what may stand between
# brackets (an IPv6 address) is more than a pattern can check; a webhook is named or IPv4.
TOOL_URL_PATTERN = r"^https?://[^\s/?#\[\]]+(?:[/?#]\S*)?$"
TOOL_URL = Limit(2048)
TOOL_BODY = Limit(20_000)  # config.body and config.curl
TOOL_ACTION = Limit(64)  # config.action and config.performedAction
TOOL_LIST = Limit(50, unit="entries")  # params, headers, llmParams, outputs
TOOL_PAIR_NAME = Limit(2048, 1)  # a param's or header's name
TOOL_PAIR_VALUE = Limit(2048)  # a param's or header's value, an output's path
TOOL_AUTH_TYPE = Limit(32)
TOOL_AUTH_NAME = Limit(256)  # config.auth.headerName and config.auth.username
TOOL_SECRET = Limit(2048)  # config.auth.token and config.auth.password
# What is read of a tool webhook's answer (`vap tools try`, the sandbox's --call-tools): the spec
# gives no size; outputs are a few short values, and 1 MiB keeps a 10 MB answer from costing more.
TOOL_ANSWER = Limit(1024 * 1024, unit="bytes")
# An output fills the variable of its name: {name} in a prompt, so a letter or _ first.
VARIABLE_NAME_PATTERN = r"^[A-Za-z_][A-Za-z0-9_]*$"
# An llmParam is a function argument the model supplies: named like a tool.
LLM_PARAM_NAME_PATTERN = TOOL_NAME_PATTERN

# --- agents (spec 2.6, DESIGN §4) ---

AGENT_NAME = Limit(100, 1)
AGENT_PROMPT = Limit(20_000)  # systemInstruction and greeting
TTS_DESCRIPTION = Limit(2000)  # ttsConfig.description: the public service's text limit
AGENT_REF = Limit(200, 1)
# input_text.send's text on the agent socket: the vendor publishes no limit; the sandbox's (its
# agent_socket.TEXT_MAX) plays the deployment. Talk's box, `vap agents talk --say` and a
# conversation test's `say` check it before anything is sent.
TYPED_TURN = Limit(2000, 1)

# --- rentals (spec 4.1, 8) ---

DOCUMENT_BYTES = Limit(5 * 1024 * 1024, 1, "bytes")  # "5 MB each": 5 MiB, as the sandbox counts
DOCUMENTS = Limit(10, unit="entries")
RENTAL_TEXT = Limit(200)  # each endUser field, searchFilters, a document's dataFields value
DATA_FIELD_KEY = Limit(64, 1)
REQUESTED_NUMBER = Limit(32, 1)

# --- speech synthesis, POST /v1/tts (reference/voice.md §5) ---

TTS_TEXT = Limit(2000, 1)  # text: required, at most 2,000 characters

# --- every request ---

IDEMPOTENCY_KEY = Limit(255, 1)


def agent_name_problem(name: str) -> str | None:
    """An agent's name as it will be sent (stripped): the rule it breaks, or None."""
    text = name.strip()
    if not text:
        return "must not be blank"
    return AGENT_NAME.problem(len(text))
