"""Tools (spec 2.4) and the variables their outputs fill (2.5)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from pydantic import Field, SecretStr, field_serializer

from vap_console.api.limits import TOOL_DESCRIPTION, TOOL_KINDS, TOOL_NAME
from vap_console.api.limits import TOOL_NAME_PATTERN as TOOL_NAME_PATTERN
from vap_console.api.models.wire import _Wire


class ToolKind:
    BEFORE_CALL = "before_call"
    DURING_CALL = "during_call"
    ALL = TOOL_KINDS


DEFAULT_TOOL_PREFIX = "default-"
TOOL_NAME_MAX = TOOL_NAME.high
TOOL_DESCRIPTION_MAX = TOOL_DESCRIPTION.high


# --- 2.4 tools ---


class NameValue(_Wire):
    name: str
    value: str


class ToolOutput(_Wire):
    name: str
    path: str


class ToolAuthInput(_Wire):
    """auth as sent: the credential (token or password) is write-only."""

    type: str | None = None
    token: SecretStr | None = None
    password: SecretStr | None = None
    header_name: str | None = None
    username: str | None = None

    @field_serializer("token", "password", when_used="unless-none")
    def _reveal(self, value: SecretStr) -> str:
        # Only ever serialised to build the request body; repr and str stay masked.
        return value.get_secret_value()


class ToolAuthOutput(_Wire):
    """auth as returned: the credential never comes back, only whether one is stored."""

    type: str | None = None
    header_name: str = "X-API-Key"
    username: str = ""
    has_secret: bool = False


class _ToolConfigBase(_Wire):
    action: str | None = None
    performed_action: str | None = None
    curl: str | None = None
    method: str | None = None
    url: str | None = None
    params: list[NameValue] | None = None
    headers: list[NameValue] | None = None
    body: str | None = None
    timeout_ms: int | None = None
    wait_for_response: bool | None = None
    llm_params: list[Any] | None = None
    outputs: list[ToolOutput] | None = None


class ToolConfig(_ToolConfigBase):
    """config as returned, with the spec's defaults for what the creator did not send."""

    performed_action: str = "end_call"
    curl: str = ""
    params: list[NameValue] = Field(default_factory=list)
    headers: list[NameValue] = Field(default_factory=list)
    body: str = ""
    wait_for_response: bool = True
    llm_params: list[Any] = Field(default_factory=list)
    outputs: list[ToolOutput] = Field(default_factory=list)
    auth: ToolAuthOutput | None = None


class ToolConfigInput(_ToolConfigBase):
    """config as sent: whatever is left unset is not sent, the server applies its defaults."""

    auth: ToolAuthInput | None = None


class ToolCreate(_Wire):
    name: str
    description: str
    kind: str
    config: ToolConfigInput


class Tool(_Wire):
    id: str
    name: str
    description: str
    kind: str
    config: ToolConfig
    is_default: bool = False
    created_at: datetime | None = None
    updated_at: datetime | None = None

    @property
    def builtin(self) -> bool:
        return self.is_default or self.id.startswith(DEFAULT_TOOL_PREFIX)


# --- 2.5 variables ---


class Variable(_Wire):
    id: str
    name: str
    default_value: str
    tool_id: str | None = None
    tool_output: str | None = None
    created_at: datetime
    updated_at: datetime
