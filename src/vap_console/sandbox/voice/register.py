"""``POST /v1/register-call``: a one-use ``wct_`` token for the realtime agent socket.

As published (reference voice.md §3.1): 201 ``{access_token, expires_in: 300, sample_rate: 24000}``
plus ``call_id`` (a harmless extra a third-party client reads; the socket's ``session.created`` and
``GET /v1/calls/{id}`` carry the same id). Registering checks what the web call checks, but
"does not start a call, bill anything or take a concurrency slot": the balance and the slots are
checked when the socket connects, and a refusal then is an ``error`` frame and close 4000.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from datetime import datetime, timedelta

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from vap_console.sandbox.calls import deployed_agent_of, require_voice_agents
from vap_console.sandbox.faults import Faults
from vap_console.sandbox.problems import Problem
from vap_console.sandbox.state import SandboxState
from vap_console.sandbox.voice.pacing import Pacer
from vap_console.sandbox.voice.speech import SAMPLE_RATE
from vap_console.sandbox.wire import account_of

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
