"""Agents and their templates (spec 2.6), the voices they speak with (2.7), web calls to them (2.8)."""

from __future__ import annotations

from datetime import datetime

from vap_console.api.models.wire import _SnakeWire, _Wire

# --- 2.6 templates, agents ---


class TtsConfig(_SnakeWire):
    model: str | None = None
    voice: str | None = None
    description: str | None = None
    # int | float keeps 50 as 50 and 0.95 as 0.95, so a body round-trips unchanged.
    f0_up_key: int | float | None = None
    temperature: int | float | None = None
    top_p: int | float | None = None
    top_k: int | float | None = None
    repetition_penalty: int | float | None = None
    max_new_tokens: int | float | None = None


class AgentTemplate(_Wire):
    id: str
    slug: str
    name: str
    description: str
    system_instruction: str
    greeting: str
    tts_config: TtsConfig
    sort_order: int | float
    created_at: datetime
    updated_at: datetime


class AgentSource:
    TEMPLATE = "template"
    BLANK = "blank"


class AgentCreate(_Wire):
    name: str
    system_instruction: str | None = None
    greeting: str | None = None
    tts_config: TtsConfig | None = None
    source: str | None = None
    template_slug: str | None = None

    @classmethod
    def from_template(cls, template: AgentTemplate, name: str) -> AgentCreate:
        return cls(
            name=name,
            system_instruction=template.system_instruction,
            greeting=template.greeting,
            tts_config=template.tts_config.model_copy(),
            source=AgentSource.TEMPLATE,
            template_slug=template.slug,
        )


class Agent(_Wire):
    """The spec shows little of an agent record; whatever else the server sends is kept."""

    id: str
    handle: str | None = None
    name: str | None = None
    system_instruction: str | None = None
    greeting: str | None = None
    tts_config: TtsConfig | None = None
    source: str | None = None
    template_slug: str | None = None
    deployed: bool | None = None
    created_at: datetime | None = None
    updated_at: datetime | None = None

    @property
    def ref(self) -> str:
        """The reference to show and to pass back: the ua_<handle> when known, else the id."""
        return self.handle or self.id


class AgentLimits(_SnakeWire):
    """GET /v1/agent/limits on the real service (not in the spec): the concurrent-call slots,
    written in snake_case on the wire, unlike the rest of its answers."""

    concurrency_limit: int
    active_requests: int
    plan: str | None = None
    # A call's price per started minute, where the server publishes one: the sandbox does; the
    # real service publishes no price (reference real-service.md), so there it is None.
    credits_per_started_minute: float | None = None

    @property
    def in_use(self) -> str:
        return f"{self.active_requests}/{self.concurrency_limit} in use"


def call_rate(limits: AgentLimits | None) -> str:
    """What a call costs by the minute, for every billed call's confirm (the console's and
    `vap`'s): the rate the server publishes, or plainly that it publishes none."""
    rate = limits.credits_per_started_minute if limits is not None else None
    if rate is None:
        return ("rate: this server publishes no per-minute price; what a call cost (its credits) is "
                "on its record once it has ended")
    return f"rate: {rate:g} credits per started minute, as this server publishes it"


# --- 2.7 voices ---


class Language(_Wire):
    id: str
    label: str
    disabled: bool = False


class VoiceDescription(_Wire):
    id: str
    label: str
    subtitle: str
    description: str


class VoiceEngine(_Wire):
    id: str
    label: str
    disabled: bool
    badge: str | None = None
    voices: list[str]
    languages: list[Language]
    default_language: str
    descriptions: list[VoiceDescription]
    phone_calls: bool


class VoiceCatalog(_Wire):
    default_model: str
    models: list[VoiceEngine]


# --- 2.8 web calls ---


class WebCallSession(_Wire):
    token: str
    host: str
    room_name: str
    call_id: str

    def __repr__(self) -> str:
        # The token joins a live call: keep it out of logs and tracebacks.
        return (
            f"WebCallSession(host={self.host!r}, room_name={self.room_name!r}, "
            f"call_id={self.call_id!r}, token='…{self.token[-4:]}')"
        )

    __str__ = __repr__
