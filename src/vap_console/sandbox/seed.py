"""The account every key starts with: an Indian dental clinic's voice desk, mid-flight.

Times are laid out from the clock's start and ids are uuid5 of fixed names, so every sandbox
instance, and every key, starts from the same bytes.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from vap_console.sandbox import inventory
from vap_console.sandbox.catalog import template_by_slug
from vap_console.sandbox.keys import SandboxKey
from vap_console.sandbox.records import Account, AgentRecord, LedgerEntry, VariableRecord, stable_id
from vap_console.sandbox.rentals import (
    PURCHASE_ERROR,
    Milestone,
    RentalRecord,
)
from vap_console.sandbox.tools import add_tool, check_tool

BUILTIN_TOOLS = [
    ("end_call", "during_call", "End the call politely once the caller's request is handled or they say goodbye.",
     {"method": "POST", "url": "https://tools.vap.internal/end-call", "performedAction": "end_call"}),
    ("transfer_call", "during_call",
     "Transfer the caller to a human when they ask for one or the request is outside your scope.",
     {"method": "POST", "url": "https://tools.vap.internal/transfer",
      "performedAction": "transfer_call",
      "llmParams": [{"name": "reason", "type": "string", "description": "why the caller is transferred"}]}),
    ("switch_language", "during_call", "Switch the conversation to English, Hinglish or Hindi when the caller asks.",
     {"method": "POST", "url": "https://tools.vap.internal/language", "performedAction": "continue",
      "llmParams": [{"name": "language", "type": "string", "enum": ["english", "hinglish", "hindi"]}]}),
]

USER_TOOLS = [
    ("lookup_customer", "before_call",
     "Looks the caller up in the clinic's CRM by phone number before the call starts.",
     {"method": "GET", "url": "https://crm.sharmadental.example/api/patients",
      "params": [{"name": "phone", "value": "{phone_number}"}],
      "headers": [{"name": "Accept", "value": "application/json"}],
      "timeoutMs": 3000,
      "auth": {"type": "bearer", "token": "sandbox-crm-token"},
      "outputs": [{"name": "customer_name", "path": "data.name"},
                  {"name": "customer_tier", "path": "data.tier"},
                  {"name": "last_visit", "path": "data.lastVisit"}]}),
    ("book_appointment", "during_call",
     "Books an appointment slot once the caller has chosen a doctor, a date and a time.",
     {"method": "POST", "url": "https://crm.sharmadental.example/api/appointments",
      "body": '{"patient": "{customer_name}", "doctor": "{doctor}", "slot": "{slot}"}',
      "headers": [{"name": "Content-Type", "value": "application/json"}],
      "auth": {"type": "basic", "username": "voice-desk", "password": "sandbox-password"},
      "llmParams": [{"name": "doctor", "type": "string"}, {"name": "slot", "type": "string"}],
      "outputs": [{"name": "appointment_slot", "path": "booking.slot"}]}),
    ("order_status", "during_call",
     "Finds an order by its number and tells its delivery status.",
     {"method": "GET", "url": "https://shop.example/api/orders/{order_id}",
      "auth": {"type": "api_key", "headerName": "X-Shop-Key", "token": "sandbox-shop-key"},
      "llmParams": [{"name": "order_id", "type": "string"}],
      "outputs": [{"name": "order_status", "path": "order.status"}]}),
]

VARIABLES = [
    ("business_name", "Sharma Dental Clinic"),
    ("agent_name", "Priya"),
    ("city", "Pune"),
    ("support_hours", "9 am to 7 pm, Monday to Saturday"),
    ("language_preference", "Hinglish"),
    ("callback_number", "+912071706120"),
    ("customer_name", "there"),
    ("customer_tier", "regular"),
    ("last_visit", ""),
    ("appointment_slot", ""),
    ("order_status", ""),
    ("emi_amount", "₹4,250"),
    ("due_date", "5th of this month"),
]

END_USER = {
    "name": "Sharma Dental Clinic Private Limited",
    "email": "accounts@sharmadental.example",
    "address_line1": "14, Prabhat Road",
    "address_line2": "Erandwane",
    "city": "Pune",
    "state": "Maharashtra",
    "postal_code": "411004",
    "country": "IN",
    "registration_number": "27AAACS1234F1Z5",
}

_DOCUMENTS = [
    {"documentTypeId": "business_registration", "dataFields": {"gstin": "27AAACS1234F1Z5"},
     "fileName": "gst-certificate.pdf", "contentType": "application/pdf", "size": 182_344},
    {"documentTypeId": "address_proof", "dataFields": {},
     "fileName": "electricity-bill.pdf", "contentType": "application/pdf", "size": 96_210},
    {"documentTypeId": "signatory_id", "dataFields": {"pan": "ABCPS1234K", "signatory_name": "Dr Anjali Sharma"},
     "fileName": "pan-card.jpg", "contentType": "image/jpeg", "size": 241_908},
]

# (name, template slug, deployed)
AGENTS = [
    ("Priya – Front Desk", "clinic-receptionist", True),
    ("Arjun – Implant Leads", "lead-qualifier", True),
    ("Meera – EMI Reminders", "emi-reminder", False),
    ("Kabir – Feedback Calls", "feedback-survey", True),
]


def seed_account(key: SandboxKey, origin: datetime) -> Account:
    account = Account(key=key)
    account.ledger.append(LedgerEntry(origin - timedelta(days=90), key.wallet_nanos, "opening balance"))
    made = origin - timedelta(days=60)
    for i, (name, default) in enumerate(VARIABLES):
        at = made + timedelta(minutes=i)
        account.variables[name] = VariableRecord(
            id=stable_id("variable", name), name=name, default_value=default,
            tool_id=None, tool_output=None, created_at=at, updated_at=at,
        )
    for i, (name, kind, description, config) in enumerate(BUILTIN_TOOLS + USER_TOOLS):
        fields = check_tool({"name": name, "kind": kind, "description": description, "config": config}, account)
        builtin = i < len(BUILTIN_TOOLS)
        tool_id = f"default-{name.replace('_', '-')}" if builtin else stable_id("tool", name)
        add_tool(account, fields, tool_id, made + timedelta(days=1, hours=i))
    for i, (name, slug, deployed) in enumerate(AGENTS):
        template = template_by_slug(slug)
        assert template is not None
        _, _, _, system, greeting, tts = template
        at = made + timedelta(days=5 + i)
        agent_id = stable_id("agent", slug)
        account.agents[agent_id] = AgentRecord(
            id=agent_id, handle="ua_" + agent_id.replace("-", "")[:12], name=name,
            system_instruction=system, greeting=greeting, tts_config=dict(tts),
            source="template", template_slug=slug, deployed=deployed, created_at=at, updated_at=at,
        )
    _seed_rentals(account, origin)
    return account


def _listing(city: str, ending: str) -> inventory.Listing:
    return next(i for i in inventory.INVENTORY if i.city == city and i.number.endswith(ending))


def _rental(
    account: Account, name: str, listing: inventory.Listing, created: datetime,
    steps: list[tuple[float, str, dict[str, Any]]], agent_slug: str | None = None,
) -> None:
    rental_id = stable_id("rental", name)
    milestones = [Milestone(created + timedelta(hours=h), kind, data) for h, kind, data in steps]
    record = RentalRecord(
        id=rental_id, requested_number=listing.e164, listing=listing, search_filters={"city": listing.city or ""},
        end_user=dict(END_USER), documents=[dict(d) for d in _DOCUMENTS], alias=f"Sharma Dental – {listing.city}",
        compliance_id=stable_id("compliance", name),
        carrier_compliance_id="CA" + rental_id.replace("-", "")[:16].upper(),
        created_at=created, milestones=milestones,
        user_agent_id=stable_id("agent", agent_slug) if agent_slug else None,
    )
    account.rentals[rental_id] = record
    charge = listing.price.first_charge_nanos
    account.ledger.append(LedgerEntry(created, -charge, f"first month of {listing.number}"))
    if steps[-1][1] in ("kyc_rejected", "purchase_failed"):
        account.ledger.append(LedgerEntry(milestones[-1].at, charge, "refund"))


def _seed_rentals(account: Account, origin: datetime) -> None:
    day = 24.0
    _rental(account, "pune-front-desk", _listing("Pune", "1010"), origin - timedelta(days=21), [
        (0, "submitted", {}), (1, "in_review", {}), (5, "kyc_accepted", {}), (5.05, "purchasing", {}),
        (5.2, "purchased", {}), (5.25, "active", {}),
    ], agent_slug="clinic-receptionist")
    _rental(account, "chennai-old", _listing("Chennai", "7788"), origin - timedelta(days=75), [
        (0, "submitted", {}), (2, "in_review", {}), (20, "kyc_accepted", {}), (20.1, "purchasing", {}),
        (20.3, "purchased", {}), (20.4, "active", {}), (65 * day, "released", {"reason": "user"}),
    ])
    _rental(account, "bengaluru-rejected", _listing("Bengaluru", "4455"), origin - timedelta(days=3), [
        (0, "submitted", {}), (3, "in_review", {}),
        (26, "kyc_rejected", {"reason": "The address proof is older than three months."}),
    ])
    _rental(account, "delhi-failed", _listing("Delhi", "6120"), origin - timedelta(days=6), [
        (0, "submitted", {}), (1, "in_review", {}), (4, "kyc_accepted", {}), (4.1, "purchasing", {}),
        (4.3, "purchase_failed", {"error": PURCHASE_ERROR.replace(" (sandbox scenario 0003)", "")}),
    ])
    _rental(account, "mumbai-in-review", _listing("Mumbai", "2345"), origin - timedelta(hours=2), [
        (0, "submitted", {}), (0.25, "in_review", {}),
    ])

