"""Endpoints of spec §4 other than rentals, plus the agent and tool extensions of DESIGN §4."""

from __future__ import annotations

import base64
import json
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from vap_console.sandbox.wire import account_of, page, read_json, sandbox_of
from vap_console.sandbox.catalog import ENGINES, F0_RANGE, TTS_DEFAULTS, VOICES, template_by_slug, templates
from vap_console.sandbox.clock import iso
from vap_console.sandbox.problems import FieldProblems, Problem
from vap_console.sandbox.state import AgentRecord
from vap_console.sandbox.tools import add_tool, check_tool, declare_variable, delete_tool, variables_in

MEDIA_HOST = "wss://media.sandbox.invalid"
AGENT_NAME_MAX = 120
PROMPT_MAX = 20_000
TTS_NUMBER_RANGES = {
    "temperature": (0.0, 2.0),
    "top_p": (0.0, 1.0),
    "top_k": (1, 1000),
    "repetition_penalty": (0.5, 3.0),
    "max_new_tokens": (1, 8192),
    "f0_up_key": F0_RANGE,
}


# --- tools and variables ---


async def list_tools(request: Request) -> Response:
    tools = sorted(account_of(request).tools.values(), key=lambda t: (not t.is_default, t.name))
    return page([t.to_wire() for t in tools])


async def create_tool(request: Request) -> Response:
    account = account_of(request)
    fields = check_tool(await read_json(request), account)
    tool = add_tool(account, fields, account.next_id("tool"), sandbox_of(request).now())
    return JSONResponse(tool.to_wire(), status_code=201)


async def remove_tool(request: Request) -> Response:
    delete_tool(account_of(request), request.path_params["tool_id"], sandbox_of(request).now())
    return Response(status_code=204)


async def list_variables(request: Request) -> Response:
    variables = sorted(account_of(request).variables.values(), key=lambda v: v.name)
    return page([v.to_wire() for v in variables])


# --- templates, voices ---


async def list_templates(request: Request) -> Response:
    return page(templates(sandbox_of(request).origin))


async def list_voices(request: Request) -> Response:
    return JSONResponse(VOICES)


# --- agents and web calls ---


async def list_agents(request: Request) -> Response:
    agents = sorted(account_of(request).agents.values(), key=lambda a: a.created_at)
    return page([a.to_wire() for a in agents])


def _check_tts(p: FieldProblems, tts: Any) -> dict[str, Any]:
    if tts is None:
        return {"model": VOICES["defaultModel"], "voice": ENGINES[VOICES["defaultModel"]]["voices"][0],
                "description": "", **TTS_DEFAULTS}
    if not isinstance(tts, dict):
        p.add("ttsConfig", "must be an object")
        return {}
    out: dict[str, Any] = {}
    # null is treated as not sent, as everywhere in the sandbox.
    model = tts.get("model") or VOICES["defaultModel"]
    engine = ENGINES.get(model) if isinstance(model, str) else None
    if engine is None:
        p.add("ttsConfig.model", "must be one of " + ", ".join(ENGINES))
    out["model"] = model
    voice = tts.get("voice")
    if voice is None:
        voice = ""
    if not isinstance(voice, str):
        p.add("ttsConfig.voice", "must be a string")
    elif engine is not None and engine["voices"] and voice not in engine["voices"]:
        p.add("ttsConfig.voice", f"must be one of {', '.join(engine['voices'])} for {model}")
    elif engine is not None and not engine["voices"] and voice:
        p.add("ttsConfig.voice", f"must be empty: {model} has no named voices, describe the voice instead")
    out["voice"] = voice
    description = tts.get("description")
    if description is None:
        description = ""
    if not isinstance(description, str) or len(description) > 2000:
        p.add("ttsConfig.description", "must be a string of at most 2000 characters")
    out["description"] = description
    for name, (low, high) in TTS_NUMBER_RANGES.items():
        value = tts.get(name)
        if value is None:
            value = TTS_DEFAULTS[name]
        whole = name in ("top_k", "max_new_tokens", "f0_up_key")
        ok_type = isinstance(value, int) if whole else isinstance(value, (int, float))
        if isinstance(value, bool) or not ok_type or not low <= value <= high:
            kind = "a whole number" if whole else "a number"
            p.add(f"ttsConfig.{name}", f"must be {kind} from {low} to {high}")
        out[name] = value
    return out


async def create_agent(request: Request) -> Response:
    account = account_of(request)
    body = await read_json(request)
    p = FieldProblems()
    if not isinstance(body, dict):
        p.add("body", "must be a JSON object")
        p.raise_if_any()
    name = body.get("name")
    if not isinstance(name, str) or not name.strip():
        p.add("name", "is required")
    elif len(name) > AGENT_NAME_MAX:
        p.add("name", f"must be at most {AGENT_NAME_MAX} characters")
    texts = {}
    for field in ("systemInstruction", "greeting"):
        value = body.get(field)
        if value is None:
            value = ""
        if not isinstance(value, str) or len(value) > PROMPT_MAX:
            p.add(field, f"must be a string of at most {PROMPT_MAX} characters")
            value = ""
        texts[field] = value
    tts = _check_tts(p, body.get("ttsConfig"))
    source = body.get("source") or "blank"
    if source not in ("template", "blank"):
        p.add("source", "must be template or blank")
    slug = body.get("templateSlug")
    if source == "template":
        if not isinstance(slug, str) or template_by_slug(slug) is None:
            p.add("templateSlug", "must name an existing template when source is template")
    elif slug is not None and not isinstance(slug, str):
        p.add("templateSlug", "must be a string")
    deployed = body.get("deployed")
    if deployed is None:
        deployed = True
    if not isinstance(deployed, bool):
        p.add("deployed", "must be true or false")
    p.raise_if_any()
    now = sandbox_of(request).now()
    agent_id = account.next_id("agent")
    agent = AgentRecord(
        id=agent_id, handle="ua_" + agent_id.replace("-", "")[:12], name=name.strip(),
        system_instruction=texts["systemInstruction"], greeting=texts["greeting"], tts_config=tts,
        source=source, template_slug=slug, deployed=deployed, created_at=now, updated_at=now,
    )
    account.agents[agent.id] = agent
    for variable in variables_in(agent.system_instruction, agent.greeting):
        declare_variable(account, variable, now)
    return JSONResponse(agent.to_wire(), status_code=201)


async def delete_agent(request: Request) -> Response:
    account = account_of(request)
    ref = request.path_params["agent_ref"]
    agent = account.find_agent(ref)
    if agent is None:
        raise Problem(404, "agent_not_found", f"No agent {ref!s:.80} on this account.")
    now = sandbox_of(request).now()
    del account.agents[agent.id]
    for rental in account.rentals.values():
        if rental.user_agent_id == agent.id:
            rental.user_agent_id = None
            rental.later_events.append((now, {
                "type": "agent.detached", "at": iso(now), "agentId": agent.id, "agentName": agent.name,
            }))
    return Response(status_code=204)


async def start_webcall(request: Request) -> Response:
    account = account_of(request)
    body = await read_json(request)
    if not isinstance(body, dict):
        raise Problem(422, "invalid_request", "Send a JSON object with agentId.",
                      details=[{"loc": "body", "message": "must be a JSON object"}])
    ref = body.get("agentId", body.get("agent_id"))
    if not isinstance(ref, str) or not ref.strip():
        raise Problem(422, "invalid_request", "agentId is required.",
                      details=[{"loc": "body.agentId", "message": "is required: the agent's uuid or ua_<handle>"}])
    agent = account.find_agent(ref.strip())
    if agent is None:
        raise Problem(404, "agent_not_found", f"No agent {ref!s:.80} on this account.")
    if not agent.deployed:
        raise Problem(409, "agent_not_deployed", f"{agent.name} has not been deployed yet; deploy it first.")
    call_id = account.next_id("call")
    room = f"webcall-{agent.handle}-{call_id[:8]}"
    claims = {"room": room, "agent": agent.id, "call": call_id, "iat": int(sandbox_of(request).now().timestamp())}
    token = ".".join(
        base64.urlsafe_b64encode(json.dumps(part, separators=(",", ":")).encode()).decode().rstrip("=")
        for part in ({"alg": "none", "typ": "JWT"}, claims)
    ) + ".sandbox"
    session = {"token": token, "host": MEDIA_HOST, "roomName": room, "callId": call_id}
    account.webcalls.append({"agentId": agent.id, **session})
    return JSONResponse(session)
