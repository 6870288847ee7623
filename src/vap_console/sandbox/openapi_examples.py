"""The document's examples: what a fresh sandbox (the seeded account of the everything-works key,
on the virtual clock's start) really answers, so an example is never out of date."""

from __future__ import annotations

from typing import Any

from vap_console.sandbox.calls import MEDIA_HOST
from vap_console.sandbox.catalog import VOICES, templates
from vap_console.sandbox.clock import VirtualClock
from vap_console.sandbox.inventory import CURRENCY, DOCUMENT_TYPES, INVENTORY, PRICES
from vap_console.sandbox.keys import KEYS
from vap_console.sandbox.state import SandboxState
from vap_console.sandbox.voice.call_records import PRICE_CREDITS_PER_MINUTE


def _page(items: list[dict[str, Any]], limit: int = 2) -> dict[str, Any]:
    return {"items": items[:limit], "count": len(items)}


def examples() -> dict[str, Any]:
    state = SandboxState(VirtualClock())
    account = state.account(KEYS[0])
    now = state.now()
    rentals = sorted(account.rentals.values(), key=lambda r: r.created_at, reverse=True)
    rental = next(r for r in rentals if r.render(now, account)["status"] == "active")
    tools = sorted(account.tools.values(), key=lambda t: (t.is_default, t.name))
    user_tool = tools[0].to_wire()
    agents = sorted(account.agents.values(), key=lambda a: a.created_at)
    deployed = next(a for a in agents if a.deployed)
    call_id = "3f1c9a52-0b7e-4d61-9a3f-5c8e2d4b7a10"
    return {
        "rentals": _page([r.render(now, account) for r in rentals]),
        "rental": rental.render(now, account),
        "rent_request": {"requestedNumber": INVENTORY[4].e164},
        "available": _page([item.to_wire() for item in INVENTORY]),
        "requirements": {
            "countryIso": "IN", "numberType": "local", "verifiedKyc": False,
            "eligibility": {"eligible": True, "reason": None}, "documentTypes": list(DOCUMENT_TYPES),
            "monthlyRentNanos": PRICES["local"].monthly_rent_nanos, "setupNanos": PRICES["local"].setup_nanos,
            "currency": CURRENCY,
        },
        "tools": _page([t.to_wire() for t in tools]),
        "tool": user_tool,
        "tool_request": {
            "name": "lookup_order", "description": "Looks the caller's order up by phone number.",
            "kind": "before_call",
            "config": {"method": "GET", "url": "https://shop.example/orders?phone={caller}",
                       "auth": {"type": "bearer", "token": "secret-token"},
                       "outputs": [{"name": "order_status", "path": "order.status"}]},
        },
        "variables": _page(sorted((v.to_wire() for v in account.variables.values()), key=lambda v: v["name"])),
        "voices": VOICES,
        "templates": _page(templates(state.origin)),
        "agents": _page([a.to_wire() for a in agents]),
        "agent": deployed.to_wire(),
        "agent_request": {"name": "Front desk", "systemInstruction": "You answer calls for {clinic_name}.",
                          "greeting": "Namaste! How can I help?", "ttsConfig": {"model": "muga"},
                          "source": "blank"},
        "limits": {"concurrency_limit": KEYS[0].call_slots, "active_requests": 0, "plan": KEYS[0].plan,
                   "credits_per_started_minute": PRICE_CREDITS_PER_MINUTE},
        "webcall_request": {"agentId": deployed.handle},
        "webcall": {"token": "eyJhbGciOiJub25lIn0.eyJyb29tIjoiY2FsbC0uLi4ifQ.sandbox", "host": MEDIA_HOST,
                    "roomName": "call-" + call_id.replace("-", ""), "callId": call_id},
    }
