"""``GET /v1/agents/{ref}/versions``: a sandbox extension of a path the real service has (a third
party names it, real-service.md [T]) but whose answer nobody has published.

The sandbox's answer: ``{items, count}``, one version per deploy, newest first, each a snapshot of
what the agent answers with (its prompt, greeting and voice). A draft has none. Agents cannot be
edited in the sandbox, so an agent has at most one version: version 1, from its deploy (a seeded
deployed agent's at its creation).
"""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import Response

from vap_console.sandbox.calls import find_agent_or_404, require_voice_agents
from vap_console.sandbox.clock import iso
from vap_console.sandbox.wire import account_of, page


async def list_versions(request: Request) -> Response:
    account = account_of(request)
    require_voice_agents(account)
    agent = find_agent_or_404(account, request.path_params["agent_ref"])
    versions = []
    if agent.deployed:
        # Deploying is the one change an agent has after it is made, so updated_at is its moment.
        versions.append({
            "version": 1,
            "agentId": agent.id,
            "deployedAt": iso(agent.updated_at),
            "name": agent.name,
            "systemInstruction": agent.system_instruction,
            "greeting": agent.greeting,
            "ttsConfig": agent.tts_config,
        })
    return page(versions)
