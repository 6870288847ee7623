"""``POST /v1/register-call``: a one-use ``wct_`` token for the realtime agent socket.

As published (reference voice.md §3.1): 201 ``{access_token, expires_in: 300, sample_rate: 24000}``
plus ``call_id`` (a harmless extra a third-party client reads; the socket's ``session.created`` and
``GET /v1/calls/{id}`` carry the same id). Registering checks what the web call checks, but
"does not start a call, bill anything or take a concurrency slot": the balance and the slots are
checked when the socket connects, and a refusal then is an ``error`` frame and close 4000.

The token also opens a web call: ``POST /v1/webcall {"accessToken": <token>}``, with or without an
Authorization header (a browser redeeming the token its server minted; a third-party client does
so, reference voice.md §3.1), answers the room whose ``callId`` is the token's call. The token is
spent only when the room is answered; the account's checks (402, 429, 502) come first.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from datetime import datetime, timedelta

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from vap_console.sandbox import calls
from vap_console.sandbox.calls import deployed_agent_of, require_voice_agents
from vap_console.sandbox.faults import Faults
from vap_console.sandbox.gateway import missing_key
from vap_console.sandbox.keys import SANDBOX_KEYS
from vap_console.sandbox.problems import Problem, json_object
from vap_console.sandbox.state import SandboxState
from vap_console.sandbox.voice.pacing import Pacer
from vap_console.sandbox.voice.speech import SAMPLE_RATE
from vap_console.sandbox.wire import account_of, read_json, sandbox_of

TOKEN_PREFIX = "wct_"
TOKEN_SECONDS = 300


@dataclass
class Grant:
    """What a minted token allows: one socket call to one agent, until ``expires_at``."""

    token: str
    key: str  # the account's key (SandboxState.accounts)
    agent_id: str
    call_id: str
    expires_at: datetime


class AgentSockets:
    """The agent socket's side of one sandbox instance: its minted tokens and its pacer."""

    def __init__(self, state: SandboxState, faults: Faults) -> None:
        self.state = state
        self.faults = faults
        self.pacer = Pacer(state.clock)
        self.grants: dict[str, Grant] = {}
        self.minted = 0

    def mint(self, key: str, agent_id: str, call_id: str) -> Grant:
        now = self.state.now()
        # Expired tokens go when new ones are minted: an unused token costs nothing for ever.
        self.grants = {t: g for t, g in self.grants.items() if g.expires_at > now}
        self.minted += 1
        # Deterministic like every sandbox id: a fresh sandbox asked the same things mints the same tokens.
        digest = hashlib.sha256(f"{key}:{call_id}:{self.minted}".encode()).hexdigest()
        grant = Grant(TOKEN_PREFIX + digest[:32], key, agent_id, call_id, now + timedelta(seconds=TOKEN_SECONDS))
        self.grants[grant.token] = grant
        return grant

    def valid(self, token: str) -> Grant | None:
        """The token's grant if it is unspent and unexpired, left unspent."""
        grant = self.grants.get(token)
        return grant if grant is not None and grant.expires_at > self.state.now() else None

    def spend(self, token: str | None) -> Grant | None:
        """The token's grant, spent now; None when it is unknown, already spent or expired."""
        grant = self.grants.pop(token or "", None)
        if grant is None or grant.expires_at <= self.state.now():
            return None
        return grant


def sockets_of(app: Starlette) -> AgentSockets:
    """The app's AgentSockets, made on first use from its state and faults."""
    sockets: AgentSockets | None = getattr(app.state, "agent_sockets", None)
    if sockets is None:
        sockets = app.state.agent_sockets = AgentSockets(app.state.sandbox, app.state.faults)
    return sockets


async def register_call(request: Request) -> Response:
    account = account_of(request)
    require_voice_agents(account)
    if account.key.blocked:
        raise Problem(402, "access_blocked",
                      "The account is paused after a failed payment; settle it in the dashboard.")
    agent = await deployed_agent_of(request, account)
    call_id = account.next_call_id()
    grant = sockets_of(request.app).mint(account.key.key, agent.id, call_id)
    return JSONResponse({"access_token": grant.token, "expires_in": TOKEN_SECONDS, "sample_rate": SAMPLE_RATE,
                         "call_id": call_id}, status_code=201)


async def start_webcall(request: Request) -> Response:
    """``POST /v1/webcall``: with ``agentId`` and a key, a new web call (sandbox/calls.py); with a
    register-call ``accessToken``, key or not, the room of the token's call."""
    account = request.scope.get("state", {}).get("account")
    try:
        body = json_object(await read_json(request), "Send a JSON object with agentId.")
    except Problem:
        if account is None:
            raise missing_key() from None  # no key and no token: the gateway's answer
        raise
    if "accessToken" not in body:
        if account is None:
            raise missing_key()
        return await calls.start_webcall(request)
    token = body["accessToken"]
    if not isinstance(token, str):
        raise Problem(422, "invalid_request", "accessToken must be the access_token POST /v1/register-call answered.",
                      details=[{"loc": "body.accessToken", "message": "must be a string: a register-call token"}])
    sockets = sockets_of(request.app)
    grant = sockets.valid(token)
    if grant is None or (account is not None and account.key.key != grant.key):
        raise Problem(401, "unauthorized", "The access token is unknown, already used or expired: mint a "
                                           "new one with POST /v1/register-call.")
    key = SANDBOX_KEYS[grant.key]
    if account is None:
        request.app.state.limiter.check(key.key)  # a token's requests count against its key's budget
        account = sandbox_of(request).account(key)
    calls.require_call_account(account)
    agent = account.find_agent(grant.agent_id)
    if agent is None:
        raise Problem(404, "agent_not_found", "The token's agent was deleted since the token was minted.")
    if not agent.deployed:
        raise Problem(409, "agent_not_deployed", f"{agent.name} is a draft: only a deployed agent takes calls.")
    answer = calls.open_room(request, account, agent, grant.call_id)
    sockets.spend(token)
    return answer
