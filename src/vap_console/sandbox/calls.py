"""Web calls and the account's concurrent-call slots, as the real service's public docs describe
them (reference/real-service.md), plus the sandbox-only way to deploy an agent.

A web call holds one of the account's slots from the moment it is answered until the participant
leaves the room. Nobody ever joins a sandbox room (nothing listens at MEDIA_HOST), so a call
holds its slot for CALL_HOLD_SECONDS of the sandbox clock, as a room nobody joins is closed.
Its call record (``GET /v1/calls/{callId}``) says so: ``calling`` until then, then ``expired`` with
endReason ``no_participant``, billed for the hold from the moment it was answered, as the real
service bills a web call (sandbox/voice/call_records.py).
"""

from __future__ import annotations

import base64
import json
from datetime import datetime, timedelta

from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from vap_console.sandbox.problems import Problem, json_object
from vap_console.sandbox.state import Account, AgentRecord
from vap_console.sandbox.voice.call_records import (
    CALLING,
    EXPIRED,
    PRICE_CREDITS_PER_MINUTE,
    CallRecord,
    Step,
    bill,
)
from vap_console.sandbox.wire import account_of, read_json, sandbox_of

MEDIA_HOST = "wss://media.sandbox.invalid"
CALL_HOLD_SECONDS = 120


def require_voice_agents(account: Account) -> None:
    if not account.key.voice_agents:
        raise Problem(503, "not_configured", "Voice agents are not available on this deployment.")


def find_agent_or_404(account: Account, ref: str) -> AgentRecord:
    agent = account.find_agent(ref.strip())
    if agent is None:
        raise Problem(404, "agent_not_found", f"No agent {ref!s:.80} on this account.")
    return agent


def active_calls(account: Account, now: datetime) -> int:
    """Slots in use at ``now``: web calls still held, the other calls (outbound, socket) that
    have not ended, and speech being made (``live_speech``)."""
    web = sum(1 for call in account.webcalls if call["endsAt"] > now)
    return web + sum(1 for call in account.calls.values()
                     if isinstance(call, CallRecord) and call.kind != "web" and call.holds_slot(now)) \
        + len(account.live_speech)


async def agent_limits(request: Request) -> Response:
    account = account_of(request)
    require_voice_agents(account)
    now = sandbox_of(request).now()
    return JSONResponse({
        "concurrency_limit": account.key.call_slots,
        "active_requests": active_calls(account, now),
        "plan": account.key.plan,
        # Sandbox only: its price, so a confirm can say what a call costs (the real service
        # publishes none; docs/sandbox-voice.md "Price").
        "credits_per_started_minute": PRICE_CREDITS_PER_MINUTE,
    })


async def deploy_agent(request: Request) -> Response:
    """Sandbox only: what the dashboard's Deploy does on the real service."""
    account = account_of(request)
    require_voice_agents(account)
    agent = find_agent_or_404(account, request.path_params["agent_ref"])
    if not agent.deployed:
        agent.deployed = True
        agent.updated_at = sandbox_of(request).now()
    return JSONResponse(agent.to_wire())


async def deployed_agent_of(request: Request, account: Account) -> AgentRecord:
    """The deployed agent a call request's body names (``agentId``, or ``agent_id``): 422/404/409."""
    body = await read_json(request)
    body = json_object(body, "Send a JSON object with agentId.")
    ref = body.get("agentId", body.get("agent_id"))
    if not isinstance(ref, str) or not ref.strip():
        raise Problem(422, "invalid_request", "agentId is required.",
                      details=[{"loc": "body.agentId", "message": "is required: the agent's uuid or ua_<handle>"}])
    agent = find_agent_or_404(account, ref)
    if not agent.deployed:
        raise Problem(409, "agent_not_deployed",
                      f"{agent.name} is a draft: only a deployed agent takes calls.")
    return agent


def require_call_account(account: Account) -> None:
    """What a billed call start checks of the account first (web and outbound calls): 503, 402."""
    require_voice_agents(account)
    if account.key.blocked:
        raise Problem(402, "access_blocked",
                      "The account is paused after a failed payment; settle it in the dashboard.")
    if not account.key.call_balance:
        raise Problem(402, "insufficient_balance", "The account's balance cannot cover a call; top it up first.")


async def start_webcall(request: Request) -> Response:
    account = account_of(request)
    require_call_account(account)
    agent = await deployed_agent_of(request, account)
    return open_room(request, account, agent)


def open_room(request: Request, account: Account, agent: AgentRecord, call_id: str | None = None) -> Response:
    """The web call's room, once the account and the agent have been checked: 429 with every slot
    taken, the agent's 502 where the key fails a first start. Its call is ``call_id`` (a redeemed
    register-call token's), or a new id taken only once the call starts."""
    key = account.key
    now = sandbox_of(request).now()
    active = active_calls(account, now)
    if active >= key.call_slots:
        raise Problem(429, "concurrency_limit_exceeded",
                      f"All {key.call_slots} concurrent-call slots are in use.",
                      active_requests=active, limit=key.call_slots)
    if key.start_fails_first and agent.id not in account.failed_starts:
        account.failed_starts.add(agent.id)
        raise Problem(502, "agent_start_failed", f"{agent.name} could not be started; safe to retry.")
    call_id = call_id or account.next_call_id()
    # The real service's room names are call- and 32 hex digits.
    room = "call-" + call_id.replace("-", "")
    claims = {"room": room, "agent": agent.id, "call": call_id, "iat": int(now.timestamp()),
              "exp": int((now + timedelta(minutes=10)).timestamp())}
    token = ".".join(
        base64.urlsafe_b64encode(json.dumps(part, separators=(",", ":")).encode()).decode().rstrip("=")
        for part in ({"alg": "none", "typ": "JWT"}, claims)
    ) + ".sandbox"
    session = {"token": token, "host": MEDIA_HOST, "roomName": room, "callId": call_id}
    account.webcalls.append({
        "agentId": agent.id, **session, "startedAt": now, "endsAt": now + timedelta(seconds=CALL_HOLD_SECONDS),
    })
    record = CallRecord(id=call_id, agent_id=agent.id, kind="web", status=CALLING, created_at=now, started_at=now,
                        steps=[Step(now + timedelta(seconds=CALL_HOLD_SECONDS), EXPIRED, "no_participant")])
    account.calls[call_id] = record
    bill(account, record)
    policy = getattr(request.app.state, "call_tools", None)
    if policy is not None:  # --call-tools: the before_call webhooks, for real, once the room is answered
        from vap_console.sandbox.voice.tool_calls import start_before_call

        # Nobody joins a sandbox room, so nothing says the variables they fill; the record keeps each call.
        start_before_call(policy, account, agent, call_id, "",
                          lambda _filled, entries: record.tool_calls.extend(entries))
    return JSONResponse(session)
