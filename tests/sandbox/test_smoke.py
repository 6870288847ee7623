"""The first-screen endpoints answer with the seeded account, in-process and over loopback."""

from __future__ import annotations

import httpx

from vap_console.api.models import AgentTemplate, Page, Rental, Tool, Variable, VoiceCatalog

AUTH = {"Authorization": "Bearer sk_sandbox_agent"}


async def test_seeded_account_lists_parse_as_the_wire_models(sandbox_transport: httpx.ASGITransport) -> None:
    async with httpx.AsyncClient(transport=sandbox_transport, base_url="http://sandbox") as client:
        rentals = Page[Rental].model_validate((await client.get("/v1/phone-numbers", headers=AUTH)).json())
        tools = Page[Tool].model_validate((await client.get("/v1/tools", headers=AUTH)).json())
        variables = Page[Variable].model_validate((await client.get("/v1/variables", headers=AUTH)).json())
        templates = Page[AgentTemplate].model_validate((await client.get("/v1/agents/templates", headers=AUTH)).json())
        voices = VoiceCatalog.model_validate((await client.get("/v1/voices", headers=AUTH)).json())
    assert {r.status for r in rentals.items} >= {"active", "kyc_submitted", "kyc_rejected", "failed"}
    assert any(r.status == "active" and r.agent_name for r in rentals.items)
    assert any(t.builtin for t in tools.items) and any(not t.builtin for t in tools.items)
    assert len(variables.items) >= 12 and any(v.tool_id for v in variables.items)
    assert len(templates.items) >= 5
    assert {m.id for m in voices.models} == {"muga", "mulberry", "mulberry-1.6"}


def test_live_sandbox_serves_on_loopback(live_sandbox) -> None:
    assert live_sandbox.base_url.startswith("http://127.0.0.1:")
    response = httpx.get(f"{live_sandbox.base_url}/v1/voices", headers=AUTH, timeout=5)
    assert response.status_code == 200
    assert response.json()["defaultModel"] == "muga"
