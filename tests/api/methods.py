"""Every public method of VapClient, with the call to make and a body of the right shape, for the
tests that must hold "on every method" (unusable answers, the random-answer property)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from tests.api.conftest import STAMP, wire_rental, wire_variable
from vap_console.api import RentalApplication, VapClient, models, tool_view
from vap_console.api.models import AgentCreate, ToolCreate

TOOL = {
    "id": "tool_1", "name": "crm_lookup", "description": "Looks up the caller", "kind": "before_call",
    "config": {"method": "GET", "url": "https://crm.example/{phone}", "timeoutMs": 3000},
    "isDefault": False, "createdAt": STAMP, "updatedAt": STAMP,
}
TEMPLATE = {
    "id": "9d7c0000-0000-4000-8000-000000000001", "slug": "receptionist", "name": "Receptionist",
    "description": "Answers the front desk", "systemInstruction": "You are a receptionist.",
    "greeting": "Hello!", "ttsConfig": {"model": "mulberry", "voice": "ira"},
    "sortOrder": 1, "createdAt": STAMP, "updatedAt": STAMP,
}
AGENT = {"id": "a-1", "handle": "ua_front", "name": "Front", "deployed": True}
VOICES = {"defaultModel": "mulberry", "models": [{
    "id": "mulberry", "label": "Mulberry", "disabled": False, "badge": None, "voices": ["ira"],
    "languages": [{"id": "english", "label": "English", "disabled": False}],
    "defaultLanguage": "english", "descriptions": [], "phoneCalls": True,
}]}
NUMBER = {"number": "919876500001", "e164": "+919876500001", "numberType": "local",
          "countryIso": "IN", "city": "Pune"}
REQUIREMENTS = {"countryIso": "IN", "numberType": "local", "verifiedKyc": False,
                "eligibility": {"eligible": True, "reason": None}, "documentTypes": []}
WEBCALL = {"token": "lk-token-abcdef", "host": "wss://media.example", "roomName": "room-1",
           "callId": "c0000000-0000-4000-8000-000000000001"}


def _wav() -> bytes:
    import io
    import wave

    out = io.BytesIO()
    with wave.open(out, "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(24_000)
        w.writeframes(b"\0\0" * 2400)
    return out.getvalue()


WAV = _wav()


def page(*items: Any) -> dict[str, Any]:
    return {"items": list(items), "count": len(items)}


@dataclass(frozen=True)
class Method:
    name: str
    http: str  # GET, POST or DELETE
    call: Callable[[VapClient], Awaitable[Any]]
    # A body the method turns into its model (None: the method returns None, a delete).
    valid: Any
    # Where its path starts (the sandbox's own endpoints are outside /v1).
    prefix: str = "/v1/"
    # A body that is not JSON (speech: a WAV), sent as it is instead of ``valid``.
    raw: bytes | None = None

    @property
    def is_post(self) -> bool:
        return self.http == "POST"

    def __repr__(self) -> str:
        return self.name


def _tool() -> ToolCreate:
    return ToolCreate.model_validate(
        {"name": "t", "description": "d", "kind": "before_call", "config": {"url": "https://x.test"}})


METHODS: list[Method] = [
    Method("rent_number", "POST",
           lambda c: c.rent_number(RentalApplication(requested_number="+919876500001")), wire_rental()),
    Method("get_rental", "GET", lambda c: c.get_rental("r-1"), wire_rental()),
    Method("list_rentals", "GET", lambda c: c.list_rentals(), page(wire_rental())),
    Method("search_numbers", "GET", lambda c: c.search_numbers("IN", pattern="98"), page(NUMBER)),
    Method("rental_requirements", "GET", lambda c: c.rental_requirements("IN", "local"), REQUIREMENTS),
    Method("create_tool", "POST", lambda c: c.create_tool(_tool()), TOOL),
    Method("delete_tool", "DELETE", lambda c: c.delete_tool("tool_1"), None),
    Method("list_tools", "GET", lambda c: c.list_tools(), page(TOOL)),
    Method("list_variables", "GET", lambda c: c.list_variables(), page(wire_variable())),
    # `vap tools try`'s read without pydantic: a usable page as list_tools reads it, the rest its errors.
    Method("get_light", "GET", lambda c: c.get_light("/v1/tools", tool_view.tools_page,
                                                       lambda: models.Page[models.Tool], extension=True), page(TOOL)),
    Method("list_templates", "GET", lambda c: c.list_templates(), page(TEMPLATE)),
    Method("create_agent", "POST", lambda c: c.create_agent(AgentCreate(name="Front")), AGENT),
    Method("delete_agent", "DELETE", lambda c: c.delete_agent("ua_front"), None),
    Method("list_agents", "GET", lambda c: c.list_agents(), page(AGENT)),
    Method("list_voices", "GET", lambda c: c.list_voices(), VOICES),
    Method("start_webcall", "POST", lambda c: c.start_webcall("ua_front"), WEBCALL),
    Method("get_agent", "GET", lambda c: c.get_agent("ua_front"), AGENT),
    Method("agent_limits", "GET", lambda c: c.agent_limits(), {"concurrency_limit": 4, "active_requests": 1}),
    Method("register_call", "POST", lambda c: c.register_call("ua_front"),
           {"access_token": "wct_" + "0" * 32, "expires_in": 300, "sample_rate": 24000}),
    Method("tools_called", "GET", lambda c: c.tools_called("call-1"), {"id": "call-1", "toolsCalled": ["end_call"]}),
    Method("sandbox_deploy_agent", "POST", lambda c: c.sandbox_deploy_agent("ua_front"), AGENT,
           prefix="/sandbox/"),
    Method("synthesize", "POST", lambda c: c.synthesize("[happy] Hello", "muga"), {}, raw=WAV),
    Method("place_call", "POST", lambda c: c.place_call("ua_front", "+919812340001", "trunk-1"),
           {"callId": "c-1", "status": "calling", "toNumber": "+919812340001"}),
    Method("get_call", "GET", lambda c: c.get_call("c-1"), {"id": "c-1", "status": "completed"}),
    Method("get_sip_trunk", "GET", lambda c: c.get_sip_trunk("t-1"), {"id": "t-1", "status": "active"}),
]

# The methods whose answer is JSON (the unusable-JSON cases apply to them).
WITH_BODY = [m for m in METHODS if m.http != "DELETE" and m.raw is None]


def public_methods() -> set[str]:
    """The coroutine methods VapClient offers, to check METHODS misses none."""
    import inspect

    return {
        name for name, member in inspect.getmembers(VapClient, inspect.iscoroutinefunction)
        # fetch_recording goes to a signed URL through a client of its own, without the key and
        # without the Sender: tests/api/test_calls_client.py holds it to its own rules.
        if not name.startswith("_") and name not in {"aclose", "__aenter__", "__aexit__", "fetch_recording"}
    }
