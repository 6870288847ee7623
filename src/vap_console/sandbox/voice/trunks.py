"""SIP trunks, the caller side of an outbound call (voice.md §4 [T]): ``GET /v1/sip-trunks/{id}``
with the fields a third party reads, and ``POST /v1/sip-trunks`` to register one, a sandbox
extension (the real "register a SIP trunk" page's fields are not stored anywhere).

Every account has two seeded trunks: an active one with credentials, assigned to the first
deployed agent, and an inactive one (``inactive`` is the sandbox's word: only ``active`` was seen).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from vap_console.sandbox.calls import find_agent_or_404, require_voice_agents
from vap_console.sandbox.clock import iso
from vap_console.sandbox.problems import FieldProblems, Problem, json_object, not_found
from vap_console.sandbox.records import Account, stable_id
from vap_console.sandbox.wire import account_of, read_json, sandbox_of

E164 = re.compile(r"\+[1-9][0-9]{7,14}")
E164_PATTERN = "^\\+[1-9][0-9]{7,14}$"
# Printable ASCII without spaces after the scheme, the same in Python and in the document's regex.
SIP_URI_PATTERN = "^sips?:[!-~]{1,250}$"
SIP_URI = re.compile(SIP_URI_PATTERN)
ACTIVE = "active"
INACTIVE = "inactive"
CREDENTIAL_MAX = 256


@dataclass
class SipTrunk:
    id: str
    phone_number: str
    assigned_agent_id: str | None
    status: str
    termination_uri: str
    created_at: datetime
    # Kept only so hasAuth is truthful; never serialised.
    username: str | None = None
    password: str | None = None

    def to_wire(self, account: Account) -> dict[str, Any]:
        agent = self.assigned_agent_id if self.assigned_agent_id in account.agents else None
        return {
            "id": self.id,
            "phoneNumber": self.phone_number,
            "assignedAgentId": agent,
            "status": self.status,
            "hasAuth": bool(self.username and self.password),
            "terminationUri": self.termination_uri,
            "createdAt": iso(self.created_at),
        }


def trunks_of(account: Account, origin: datetime) -> dict[str, SipTrunk]:
    """The account's trunks, the two seeded ones laid in on first use (ids from fixed names)."""
    if not account.trunks:
        agents = sorted((a for a in account.agents.values() if a.deployed), key=lambda a: a.created_at)
        seeded = (
            SipTrunk(stable_id("trunk", "front-desk"), "+912071234500", agents[0].id if agents else None, ACTIVE,
                     "sip:clinic-front-desk.sip.sandbox.invalid", origin - timedelta(days=30),
                     username="clinic", password="sandbox-secret"),
            SipTrunk(stable_id("trunk", "old-pbx"), "+912071234501", None, INACTIVE,
                     "sip:old-pbx.sandbox.invalid:5060", origin - timedelta(days=45)),
        )
        account.trunks.update({t.id: t for t in seeded})
    return {k: v for k, v in account.trunks.items() if isinstance(v, SipTrunk)}


async def get_trunk(request: Request) -> Response:
    account = account_of(request)
    require_voice_agents(account)
    trunk = trunks_of(account, sandbox_of(request).origin).get(request.path_params["trunk_id"])
    if trunk is None:
        raise not_found("SIP trunk")
    return JSONResponse(trunk.to_wire(account))


def _text(body: dict[str, Any], name: str, problems: FieldProblems, *, required: bool) -> str | None:
    value = body.get(name)
    if value is None:
        if required:
            problems.add(name, "is required")
        return None
    if not isinstance(value, str):
        problems.add(name, "must be a string")
        return None
    return value


async def register_trunk(request: Request) -> Response:
    """Sandbox extension: register a trunk (201), active at once."""
    account = account_of(request)
    require_voice_agents(account)
    body = await read_json(request)
    body = json_object(body, "Send a JSON object with phoneNumber and terminationUri.")
    problems = FieldProblems()
    number = _text(body, "phoneNumber", problems, required=True)
    if number is not None and not E164.fullmatch(number):
        problems.add("phoneNumber", "must be an E.164 number: + and 8 to 15 digits, the first not 0")
    uri = _text(body, "terminationUri", problems, required=True)
    if uri is not None and not SIP_URI.fullmatch(uri):
        problems.add("terminationUri",
                     "must be a sip: or sips: URI of printable ASCII without spaces, at most 255 characters")
    username = _text(body, "username", problems, required=False)
    password = _text(body, "password", problems, required=False)
    for name, value in (("username", username), ("password", password)):
        if value is not None and not 1 <= len(value) <= CREDENTIAL_MAX:
            problems.add(name, f"must be 1 to {CREDENTIAL_MAX} characters")
    if (username is None) != (password is None):
        problems.add("password" if password is None else "username", "username and password go together")
    ref = _text(body, "assignedAgentId", problems, required=False)
    problems.raise_if_any()
    agent_id = find_agent_or_404(account, ref).id if ref is not None else None
    state = sandbox_of(request)
    trunks = trunks_of(account, state.origin)
    if any(t.phone_number == number for t in trunks.values()):
        raise Problem(409, "trunk_number_taken", f"A SIP trunk for {number} is already registered.")
    assert number is not None and uri is not None
    trunk = SipTrunk(account.next_id("trunk"), number, agent_id, ACTIVE, uri, state.now(),
                     username=username, password=password)
    account.trunks[trunk.id] = trunk
    return JSONResponse(trunk.to_wire(account), status_code=201)
