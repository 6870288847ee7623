"""Wire models for every resource of the API spec (section 2).

Python attributes are snake_case; the wire names (camelCase, and snake_case where the spec writes
it so, as inside endUser and ttsConfig) are aliases. Parsing takes the wire form; dumping with
``model_dump(mode="json", by_alias=True)`` gives the wire form back: fields the body did not carry
are left out rather than invented as null, and unknown fields are kept as they came.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, Generic, TypeVar

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    SecretStr,
    SerializationInfo,
    SerializerFunctionWrapHandler,
    field_serializer,
    model_serializer,
)
from pydantic.alias_generators import to_camel

T = TypeVar("T")


class _Wire(BaseModel):
    """Base of every wire model: extra fields kept, unset fields not dumped."""

    model_config = ConfigDict(
        alias_generator=to_camel,
        populate_by_name=True,
        extra="allow",
        serialize_by_alias=True,
        # Build each model's validator on first use, not at import: start-up then pays only for
        # the few models its first screen parses (the import was ~100-200 ms of schema building).
        defer_build=True,
    )

    @model_serializer(mode="wrap")
    def _omit_unset(self, handler: SerializerFunctionWrapHandler, info: SerializationInfo) -> Any:
        data = handler(self)
        if not isinstance(data, dict):
            return data
        for name, field in type(self).model_fields.items():
            if name in self.model_fields_set:
                continue
            data.pop(name, None)
            if field.alias:
                data.pop(field.alias, None)
        return data


class _SnakeWire(_Wire):
    """For objects the spec writes in snake_case on the wire (endUser, ttsConfig)."""

    model_config = ConfigDict(alias_generator=None)


# --- open-ended string values: known ones as constants, anything else still accepted ---


class RentalStatus:
    FUNDING = "funding"
    KYC_SUBMITTED = "kyc_submitted"
    KYC_ACCEPTED = "kyc_accepted"
    PURCHASING = "purchasing"
    AWAITING_FUNDS = "awaiting_funds"
    ACTIVE = "active"
    KYC_REJECTED = "kyc_rejected"
    PAST_DUE = "past_due"
    RELEASING = "releasing"
    RELEASED = "released"
    FAILED = "failed"

    KNOWN = (
        FUNDING, KYC_SUBMITTED, KYC_ACCEPTED, PURCHASING, AWAITING_FUNDS, ACTIVE,
        KYC_REJECTED, PAST_DUE, RELEASING, RELEASED, FAILED,
    )
    # States a rental does not leave on its own: polling stops here.
    TERMINAL = frozenset({ACTIVE, KYC_REJECTED, RELEASED, FAILED})
    FAILURES = frozenset({KYC_REJECTED, RELEASED, FAILED})


class StepState:
    DONE = "done"
    ACTIVE = "active"
    PENDING = "pending"
    FAILED = "failed"


class StepKey:
    PREPAID = "prepaid"
    SUBMITTED = "submitted"
    VERIFICATION = "verification"
    PURCHASE = "purchase"
    ACTIVE = "active"

    ORDER = (PREPAID, SUBMITTED, VERIFICATION, PURCHASE, ACTIVE)


class NumberType:
    LOCAL = "local"
    MOBILE = "mobile"
    TOLL_FREE = "toll_free"


class ComplianceStatus:
    SUBMITTED = "submitted"
    IN_REVIEW = "in_review"
    ACCEPTED = "accepted"
    REJECTED = "rejected"


class ReleaseReason:
    USER = "user"
    NON_PAYMENT = "non_payment"


class ToolKind:
    BEFORE_CALL = "before_call"
    DURING_CALL = "during_call"
    ALL = (BEFORE_CALL, DURING_CALL)


DEFAULT_TOOL_PREFIX = "default-"
TOOL_NAME_PATTERN = r"^[A-Za-z][A-Za-z0-9_]*$"
TOOL_NAME_MAX = 64
TOOL_DESCRIPTION_MAX = 1000


# --- 2.1 – 2.3 rentals ---


class TimelineStep(_Wire):
    key: str
    label: str
    state: str
    at: datetime | None = None
    detail: str | None = None


class ComplianceApplication(_Wire):
    id: str
    carrier_compliance_id: str | None = None
    status: str
    rejection_reason: str | None = None
    alias: str
    end_user: dict[str, Any]
    documents: list[dict[str, Any]]
    attempts: int
    submitted_at: datetime | None = None
    decided_at: datetime | None = None
    history: list[dict[str, Any]]


class Rental(_Wire):
    id: str
    status: str
    requested_number: str | None = None
    number: str | None = None
    e164: str | None = None
    alias: str | None = None
    number_type: str
    country_iso: str
    region: str | None = None
    city: str | None = None
    monthly_rental_rate_usd: str | None = None
    setup_rate_usd: str | None = None
    voice_rate_usd: str | None = None
    outbound_rate_usd: str | None = None
    monthly_rent_nanos: int | None = None
    setup_nanos: int | None = None
    voice_rate_nanos: int | None = None
    outbound_rate_nanos: int | None = None
    outbound_unit_seconds: int | None = None
    prepaid_nanos: int = 0
    currency: str
    rented_at: datetime | None = None
    next_renewal_at: datetime | None = None
    last_renewal_charged_for: datetime | None = None
    renewal_attempts: int = 0
    renewal_last_error: str | None = None
    release_reason: str | None = None
    released_at: datetime | None = None
    last_error: str | None = None
    user_agent_id: str | None = None
    agent_name: str | None = None
    compliance: ComplianceApplication | None = None
    timeline: list[TimelineStep]
    events: list[dict[str, Any]]
    created_at: datetime
    updated_at: datetime

    @property
    def is_terminal(self) -> bool:
        return self.status in RentalStatus.TERMINAL

    def step(self, key: str) -> TimelineStep | None:
        return next((s for s in self.timeline if s.key == key), None)


class EndUser(_SnakeWire):
    """The renting business; its fields are snake_case on the wire."""

    name: str
    email: str | None = None
    address_line1: str | None = None
    address_line2: str | None = None
    city: str | None = None
    state: str | None = None
    postal_code: str | None = None
    country: str | None = None
    registration_number: str | None = None


class SearchFilters(_Wire):
    pattern: str | None = None
    city: str | None = None


# --- extensions (DESIGN §4): number search and rental requirements ---


class AvailableNumber(_Wire):
    number: str
    e164: str
    number_type: str
    country_iso: str
    region: str | None = None
    city: str | None = None
    monthly_rental_rate_usd: str | None = None
    setup_rate_usd: str | None = None
    monthly_rent_nanos: int | None = None
    setup_nanos: int | None = None
    currency: str | None = None


class DataField(_Wire):
    key: str
    label: str
    required: bool = True
    description: str | None = None


class DocumentType(_Wire):
    id: str
    label: str
    description: str | None = None
    data_fields: list[DataField] = Field(default_factory=list)


class Eligibility(_Wire):
    eligible: bool
    reason: str | None = None


class RentalRequirements(_Wire):
    country_iso: str
    number_type: str | None = None
    verified_kyc: bool
    eligibility: Eligibility
    document_types: list[DocumentType] = Field(default_factory=list)
    monthly_rent_nanos: int | None = None
    setup_nanos: int | None = None
    currency: str | None = None


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

    @property
    def in_use(self) -> str:
        return f"{self.active_requests}/{self.concurrency_limit} in use"


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


# --- 2.9 errors, pages ---


class ErrorDetail(_Wire):
    loc: str
    message: str


class ErrorBody(_Wire):
    error: str
    code: str
    details: list[ErrorDetail] | None = None
    limit: int | None = None
    current: int | None = None


class Page(_Wire, Generic[T]):
    items: list[T]
    count: int
