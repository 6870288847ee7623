"""A rental's life, laid out as dated milestones when it is created and read back at any instant.

No timer moves a rental: ``render(now)`` folds the milestones that have happened by ``now`` into
the spec's Rental body (status, timeline, compliance, events, money fields). That keeps the
sandbox deterministic on a virtual clock and lets ``--speed`` simply stretch the offsets.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from vap_console.sandbox.clock import iso
from vap_console.sandbox.inventory import COUNTRY, CURRENCY, Listing, search
from vap_console.sandbox.records import Account, LedgerEntry
from vap_console.sandbox.scenarios import Scenario

# Seconds after submission, at speed 1: live in about 20 s.
TOPUP_DELAY = 6.0
IN_REVIEW_AFTER = 3.0
VERIFIED_AFTER = 8.0
VERIFIED_AFTER_KNOWN_KYC = 2.0
PURCHASING_AFTER = 2.0
PURCHASED_AFTER = 6.0
ACTIVE_AFTER = 4.0

STEP_LABELS = {
    "prepaid": "First month's rent paid",
    "submitted": "Documents submitted",
    "verification": "KYC verification",
    "purchase": "Number purchase",
    "active": "Number active",
}

REJECTION_REASON = (
    "The address proof does not match the registered business address (sandbox scenario 0002)."
)
PURCHASE_ERROR = (
    "telephony_sandbox_error: the carrier could not complete the purchase (sandbox scenario 0003); "
    "the first month's rent was refunded."
)
NO_SUBSTITUTE_ERROR = (
    "The number was taken before it could be bought and no other number matched the search "
    "filters; the first month's rent was refunded."
)


def rupees(nanos: int) -> str:
    whole, frac = divmod(abs(nanos), 10**9)
    digits = str(whole)
    if len(digits) > 3:  # Indian grouping: 1,00,000
        head, tail = digits[:-3], digits[-3:]
        groups: list[str] = []
        while len(head) > 2:
            groups.insert(0, head[-2:])
            head = head[:-2]
        digits = ",".join(([head] if head else []) + groups + [tail])
    return f"{'-' if nanos < 0 else ''}₹{digits}.{frac // 10**7:02d}"


def add_month(moment: datetime) -> datetime:
    month = moment.month % 12 + 1
    year = moment.year + (moment.month == 12)
    day = moment.day
    while True:
        try:
            return moment.replace(year=year, month=month, day=day)
        except ValueError:
            day -= 1


@dataclass
class Milestone:
    at: datetime
    kind: str
    data: dict[str, Any] = field(default_factory=dict)


@dataclass
class RentalRecord:
    id: str
    requested_number: str
    listing: Listing
    search_filters: dict[str, str] | None
    end_user: dict[str, Any]
    documents: list[dict[str, Any]]
    alias: str
    compliance_id: str
    carrier_compliance_id: str
    created_at: datetime
    milestones: list[Milestone]
    user_agent_id: str | None = None
    # Things done to the rental by other requests (an agent deleted, say): (at, event).
    later_events: list[tuple[datetime, dict[str, Any]]] = field(default_factory=list)

    def settles_at(self) -> datetime:
        return self.milestones[-1].at if self.milestones else self.created_at

    def holds(self, now: datetime) -> set[str]:
        """Numbers this rental has or is about to have (a planned substitute included), to keep
        them out of search results and substitutes. Cheaper than ``render``: renting checks this
        against every rental of the account."""
        numbers = {self.listing.number}
        for m in self.milestones:
            if m.kind == "substituted":
                numbers.add(m.data["listing"].number)
            elif m.at <= now and m.kind in ("kyc_rejected", "purchase_failed", "released"):
                return set()
        return numbers

    def render(self, now: datetime, account: Account | None) -> dict[str, Any]:
        listing = self.listing
        status = "kyc_submitted"
        steps = {key: {"key": key, "label": label, "state": "pending", "at": None, "detail": None}
                 for key, label in STEP_LABELS.items()}
        compliance: dict[str, Any] = {
            "id": self.compliance_id,
            "carrierComplianceId": None,
            "status": "draft",
            "rejectionReason": None,
            "alias": self.alias,
            "endUser": self.end_user,
            "documents": self.documents,
            "attempts": 0,
            "submittedAt": None,
            "decidedAt": None,
            "history": [],
        }
        fields: dict[str, Any] = {
            "number": None, "e164": None, "rentedAt": None, "nextRenewalAt": None,
            "prepaidNanos": 0, "lastError": None, "releaseReason": None, "releasedAt": None,
        }
        events: list[tuple[datetime, dict[str, Any]]] = []
        updated = self.created_at
        purchased_at: datetime | None = None

        def event(at: datetime, kind: str, **data: Any) -> None:
            if at > self.created_at:  # the spec: a new rental's event log is empty
                events.append((at, {"type": kind, "at": iso(at), **data}))

        def step(key: str, state: str, at: datetime | None, detail: str | None) -> None:
            steps[key].update(state=state, at=iso(at), detail=detail)

        def history(at: datetime, status_: str, note: str) -> None:
            compliance["history"].append({"status": status_, "at": iso(at), "note": note})

        for m in self.milestones:
            if m.at > now:
                break
            at = m.at
            updated = at
            charge = listing.price.first_charge_nanos
            if m.kind == "funding":
                status = "funding"
                step("prepaid", "active", None,
                     f"Waiting for auto-pay to top up the wallet by {rupees(m.data['shortNanos'])}")
            elif m.kind == "submitted":
                status = "kyc_submitted"
                if m.data.get("toppedUpNanos"):
                    event(at, "wallet.topped_up", amountNanos=m.data["toppedUpNanos"], currency=CURRENCY)
                fields["prepaidNanos"] = charge
                step("prepaid", "done", at, f"{rupees(charge)} taken from the wallet")
                event(at, "rental.prepaid", amountNanos=charge, currency=CURRENCY)
                detail = m.data.get("submittedDetail") or f"{len(self.documents)} documents sent to the carrier"
                step("submitted", "done", at, detail)
                step("verification", "active", at, "The carrier is reviewing the KYC application")
                compliance.update(status="submitted", submittedAt=iso(at), attempts=1,
                                  carrierComplianceId=self.carrier_compliance_id)
                history(at, "submitted", detail)
                event(at, "compliance.submitted", complianceId=self.compliance_id)
            elif m.kind == "in_review":
                compliance["status"] = "in_review"
                history(at, "in_review", "The carrier opened the application")
                event(at, "compliance.in_review", complianceId=self.compliance_id)
            elif m.kind == "kyc_accepted":
                status = "kyc_accepted"
                step("verification", "done", at, "KYC accepted by the carrier")
                step("purchase", "active", at, "Queued for purchase")
                compliance.update(status="accepted", decidedAt=iso(at))
                history(at, "accepted", "KYC accepted")
                event(at, "compliance.accepted", complianceId=self.compliance_id)
            elif m.kind == "kyc_rejected":
                status = "kyc_rejected"
                reason = m.data["reason"]
                step("verification", "failed", at, reason)
                compliance.update(status="rejected", decidedAt=iso(at), rejectionReason=reason)
                history(at, "rejected", reason)
                event(at, "compliance.rejected", complianceId=self.compliance_id, reason=reason)
                event(at, "rental.refunded", amountNanos=charge, currency=CURRENCY)
            elif m.kind == "purchasing":
                status = "purchasing"
                step("purchase", "active", at, f"Buying {listing.e164}")
                event(at, "purchase.started", number=listing.number)
            elif m.kind == "substituted":
                taken = listing
                listing = m.data["listing"]
                event(at, "number.substituted", requested=taken.number, substitute=listing.number,
                      reason="the requested number was taken meanwhile")
                step("purchase", "active", at,
                     f"{taken.e164} was taken meanwhile; buying {listing.e164} from the same search")
            elif m.kind == "purchased":
                purchased_at = at
                step("purchase", "done", at, f"Bought {listing.e164}")
                step("active", "active", at, "Connecting the number")
                event(at, "number.purchased", number=listing.number)
            elif m.kind == "purchase_failed":
                status = "failed"
                error = m.data["error"]
                fields["lastError"] = error
                step("purchase", "failed", at, error)
                event(at, "purchase.failed", error=error)
                event(at, "rental.refunded", amountNanos=charge, currency=CURRENCY)
            elif m.kind == "active":
                status = "active"
                rented = purchased_at or at
                fields.update(number=listing.number, e164=listing.e164, rentedAt=iso(rented),
                              nextRenewalAt=iso(add_month(rented)))
                step("active", "done", at, f"{listing.e164} is live")
                event(at, "rental.active", number=listing.number)
            elif m.kind == "released":
                status = "released"
                fields.update(releaseReason=m.data["reason"], releasedAt=iso(at))
                event(at, "rental.released", reason=m.data["reason"])

        for at, data in self.later_events:
            if at <= now:
                events.append((at, data))
                updated = max(updated, at)
        events.sort(key=lambda pair: pair[0])

        agent = account.agents.get(self.user_agent_id) if account and self.user_agent_id else None
        return {
            "id": self.id,
            "status": status,
            "requestedNumber": self.requested_number,
            "number": fields["number"],
            "e164": fields["e164"],
            "alias": self.alias,
            "numberType": listing.number_type,
            "countryIso": COUNTRY,
            "region": listing.region,
            "city": listing.city,
            **listing.money_fields(),
            "prepaidNanos": fields["prepaidNanos"],
            "rentedAt": fields["rentedAt"],
            "nextRenewalAt": fields["nextRenewalAt"],
            "lastRenewalChargedFor": None,
            "renewalAttempts": 0,
            "renewalLastError": None,
            "releaseReason": fields["releaseReason"],
            "releasedAt": fields["releasedAt"],
            "lastError": fields["lastError"],
            "userAgentId": agent.id if agent else None,
            "agentName": agent.name if agent else None,
            "compliance": compliance,
            "timeline": [steps[key] for key in STEP_LABELS],
            "events": [data for _, data in events],
            "createdAt": iso(self.created_at),
            "updatedAt": iso(updated),
        }


def plan(
    *,
    start: datetime,
    scenario: Scenario,
    listing: Listing,
    search_filters: dict[str, str] | None,
    short_nanos: int,
    known_kyc: bool,
    exclude: set[str],
) -> tuple[list[Milestone], list[LedgerEntry]]:
    """The rental's milestones and the wallet entries they imply, from ``start`` on."""

    def after(t: datetime, seconds: float) -> datetime:
        return t + timedelta(seconds=seconds)

    charge = listing.price.first_charge_nanos
    milestones: list[Milestone] = []
    ledger: list[LedgerEntry] = []
    t = start
    submitted_detail = "Verified KYC on file reused" if known_kyc else None
    if short_nanos > 0:
        milestones.append(Milestone(t, "funding", {"shortNanos": short_nanos}))
        t = after(t, TOPUP_DELAY)
        ledger.append(LedgerEntry(t, short_nanos, "auto-pay top-up"))
        milestones.append(Milestone(t, "submitted", {"toppedUpNanos": short_nanos,
                                                     "submittedDetail": submitted_detail}))
    else:
        milestones.append(Milestone(t, "submitted", {"submittedDetail": submitted_detail}))
    ledger.append(LedgerEntry(t, -charge, f"first month of {listing.number}"))
    if not known_kyc:
        milestones.append(Milestone(after(t, IN_REVIEW_AFTER), "in_review"))
    t = after(t, VERIFIED_AFTER_KNOWN_KYC if known_kyc else VERIFIED_AFTER)
    if scenario is Scenario.KYC_REJECTED:
        milestones.append(Milestone(t, "kyc_rejected", {"reason": REJECTION_REASON}))
        ledger.append(LedgerEntry(t, charge, "refund: KYC rejected"))
        return milestones, ledger
    milestones.append(Milestone(t, "kyc_accepted"))
    t = after(t, PURCHASING_AFTER)
    milestones.append(Milestone(t, "purchasing"))
    t = after(t, PURCHASED_AFTER)
    if scenario is Scenario.PURCHASE_FAILS:
        milestones.append(Milestone(t, "purchase_failed", {"error": PURCHASE_ERROR}))
        ledger.append(LedgerEntry(t, charge, "refund: purchase failed"))
        return milestones, ledger
    if scenario is Scenario.NUMBER_TAKEN:
        substitute = pick_substitute(listing, search_filters, exclude)
        if substitute is None:
            milestones.append(Milestone(t, "purchase_failed", {"error": NO_SUBSTITUTE_ERROR}))
            ledger.append(LedgerEntry(t, charge, "refund: number taken"))
            return milestones, ledger
        milestones.append(Milestone(t, "substituted", {"listing": substitute}))
    milestones.append(Milestone(t, "purchased"))
    milestones.append(Milestone(after(t, ACTIVE_AFTER), "active"))
    return milestones, ledger


def pick_substitute(
    taken: Listing, filters: dict[str, str] | None, exclude: set[str]
) -> Listing | None:
    """The first other number from the same search that is not itself a scenario number."""
    filters = filters or {}
    candidates = search(
        number_type=taken.number_type,
        pattern=filters.get("pattern"),
        city=filters.get("city") or taken.city,
        exclude=exclude | {taken.number},
    )
    return next((c for c in candidates if Scenario.of(c.number) is Scenario.SUCCEEDS), None)
