"""Endpoints of spec §4 other than rentals, plus the agent and tool extensions of DESIGN §4."""

from __future__ import annotations

from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from vap_console.api.limits import AGENT_NAME, AGENT_PROMPT, TTS_DESCRIPTION
from vap_console.sandbox.calls import find_agent_or_404, require_voice_agents
from vap_console.sandbox.catalog import ENGINES, F0_RANGE, TTS_DEFAULTS, VOICES, template_by_slug, templates
from vap_console.sandbox.clock import iso
from vap_console.sandbox.problems import FieldProblems, json_object, whole
from vap_console.sandbox.state import AgentRecord
from vap_console.sandbox.tools import add_tool, check_tool, declare_variable, delete_tool, variables_in
from vap_console.sandbox.wire import account_of, page, read_json, sandbox_of

TTS_NUMBER_RANGES: dict[str, tuple[float, float]] = {
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
    account = account_of(request)
    require_voice_agents(account)
    agents = sorted(account.agents.values(), key=lambda a: a.created_at)
    return page([a.to_wire() for a in agents])


async def get_agent(request: Request) -> Response:
    account = account_of(request)
    require_voice_agents(account)
    return JSONResponse(find_agent_or_404(account, request.path_params["agent_ref"]).to_wire())


def _check_tts(p: FieldProblems, tts: Any) -> dict[str, Any]:
    if tts is None:
        return {"model": VOICES["defaultModel"], "voice": "", "description": "", **TTS_DEFAULTS}
    if not isinstance(tts, dict):
        p.add("ttsConfig", "must be an object")
        return {}
    out: dict[str, Any] = {}
    # null is treated as not sent, as everywhere in the sandbox.
    model = tts.get("model")
    if model is None:
        model = VOICES["defaultModel"]
    engine = ENGINES.get(model) if isinstance(model, str) else None
    if engine is None:
        p.add("ttsConfig.model", "must be one of " + ", ".join(ENGINES))
    out["model"] = model
    voice = tts.get("voice")
    if voice is None:
        voice = ""
    if not isinstance(voice, str):
        p.add("ttsConfig.voice", "must be a string")
    elif engine is not None and engine["voices"] and voice and voice not in engine["voices"]:
        p.add("ttsConfig.voice", f"must be one of {', '.join(engine['voices'])} for {model}")
    elif engine is not None and not engine["voices"] and voice:
        p.add("ttsConfig.voice", f"must be empty: {model} has no preset voices")
    out["voice"] = voice
    description = tts.get("description")
    if description is None:
        description = ""
    if not isinstance(description, str) or not TTS_DESCRIPTION.allows(len(description)):
        p.add("ttsConfig.description", f"must be a string of {TTS_DESCRIPTION.rule()}")
    elif engine is not None and description and not engine["descriptions"]:
        p.add("ttsConfig.description", f"must be empty: {model} is not steered by a description")
    out["description"] = description
    # An engine steered only by presets needs one; muga needs neither (tone tags are in the text).
    if (engine is not None and isinstance(voice, str) and isinstance(description, str)
            and engine["voices"] and not engine["descriptions"] and not voice):
            p.add("ttsConfig.voice", f"is required for {model}: one of {', '.join(engine['voices'])}")
    for name, (low, high) in TTS_NUMBER_RANGES.items():
        value = tts.get(name)
        if value is None:
            value = TTS_DEFAULTS[name]
        is_whole = name in ("top_k", "max_new_tokens")
        as_whole = whole(value) if is_whole else None
        if as_whole is not None:
            value = as_whole
        ok_type = isinstance(value, int) if is_whole else isinstance(value, (int, float))
        if isinstance(value, bool) or not ok_type or not low <= value <= high:
            kind = "a whole number" if is_whole else "a number"
            p.add(f"ttsConfig.{name}", f"must be {kind} from {low} to {high}")
        out[name] = value
    return out


async def create_agent(request: Request) -> Response:
    account = account_of(request)
    require_voice_agents(account)
    body = await read_json(request)
    body = json_object(body)
    p = FieldProblems()
    name: Any = body.get("name")
    if not isinstance(name, str) or not name.strip():
        p.add("name", "is required")
    elif not AGENT_NAME.allows(len(name)):
        p.add("name", f"must be {AGENT_NAME.rule()}")
    texts = {}
    for field in ("systemInstruction", "greeting"):
        value = body.get(field)
        if value is None:
            value = ""
        if not isinstance(value, str) or not AGENT_PROMPT.allows(len(value)):
            p.add(field, f"must be a string of {AGENT_PROMPT.rule()}")
            value = ""
        texts[field] = value
    tts = _check_tts(p, body.get("ttsConfig"))
    source = body.get("source")
    if source is None:
        source = "blank"
    if source not in ("template", "blank"):
        p.add("source", "must be template or blank")
    slug = body.get("templateSlug")
    if source == "template":
        if not isinstance(slug, str) or template_by_slug(slug) is None:
            p.add("templateSlug", "must name an existing template when source is template")
    elif slug is not None and not isinstance(slug, str):
        p.add("templateSlug", "must be a string")
    p.raise_if_any()
    now = sandbox_of(request).now()
    agent_id = account.next_id("agent")
    agent = AgentRecord(
        id=agent_id, handle="ua_" + agent_id.replace("-", "")[:12], name=name.strip(),
        system_instruction=texts["systemInstruction"], greeting=texts["greeting"], tts_config=tts,
        source=source, template_slug=slug,
        # Saving makes a draft, as on the real service; only Deploy (POST /sandbox/agents/{ref}/deploy
        # here, the dashboard there) makes it take calls.
        deployed=False, created_at=now, updated_at=now,
    )
    account.agents[agent.id] = agent
    for variable in variables_in(agent.system_instruction, agent.greeting):
        declare_variable(account, variable, now)
    return JSONResponse(agent.to_wire(), status_code=201)


async def delete_agent(request: Request) -> Response:
    account = account_of(request)
    require_voice_agents(account)
    agent = find_agent_or_404(account, request.path_params["agent_ref"])
    now = sandbox_of(request).now()
    del account.agents[agent.id]
    for rental in account.rentals.values():
        if rental.user_agent_id == agent.id:
            rental.user_agent_id = None
            rental.later_events.append((now, {
                "type": "agent.detached", "at": iso(now), "agentId": agent.id, "agentName": agent.name,
            }))
    return Response(status_code=204)
