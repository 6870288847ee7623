"""Phone-number rentals (spec 2.1-2.3) and the number search and requirements extensions."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from pydantic import Field

from vap_console.api.models.wire import _SnakeWire, _Wire

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
