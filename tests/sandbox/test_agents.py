"""Agents, templates, voices and web calls: spec 2.6–2.8, 4.4–4.7, POST /v1/agents."""

from __future__ import annotations

import re
import uuid

import httpx

from vap_console.api.models import Agent, AgentCreate, AgentTemplate, Page, Rental, VoiceCatalog, WebCallSession

from .conftest import error_of, locs


async def test_voice_engines_follow_the_public_docs(client: httpx.AsyncClient) -> None:
    catalog = VoiceCatalog.model_validate((await client.get("/v1/voices")).json())
    engines = {m.id: m for m in catalog.models}
    assert list(engines) == ["muga", "mulberry", "mulberry-1.6"] and catalog.default_model == "muga"
    muga, mulberry, v16 = engines["muga"], engines["mulberry"], engines["mulberry-1.6"]
    # muga: tone tags and inline events, no descriptions, no presets, romanised Hinglish.
    assert muga.voices == [] and muga.descriptions == [] and [lang.id for lang in muga.languages] == ["hinglish"]
    assert muga.model_extra and muga.model_extra["tones"][0] == "neutral" and "<laugh>" in muga.model_extra["events"]
    # mulberry: descriptions or presets speaker_1..speaker_4.
    assert mulberry.voices == ["speaker_1", "speaker_2", "speaker_3", "speaker_4"] and mulberry.descriptions
    # mulberry-1.6: its own presets and languages, no phone calls.
    assert v16.voices == ["ira", "aisha", "siya", "zoya"] and not v16.phone_calls and not v16.descriptions
    assert {lang.id for lang in v16.languages} - {lang.id for lang in mulberry.languages}
    assert muga.phone_calls and mulberry.phone_calls
    for engine in engines.values():
        assert engine.default_language in {lang.id for lang in engine.languages}


async def test_every_template_is_a_valid_agent(client: httpx.AsyncClient) -> None:
    templates = Page[AgentTemplate].model_validate((await client.get("/v1/agents/templates")).json()).items
    assert {t.tts_config.model for t in templates} == {"muga", "mulberry", "mulberry-1.6"}
    for template in templates:
        body = AgentCreate.from_template(template, template.name).model_dump(mode="json", by_alias=True)
        response = await client.post("/v1/agents", json=body)
        assert response.status_code == 201, (template.slug, response.text)


async def test_tts_config_is_checked_per_engine(client: httpx.AsyncClient) -> None:
    cases = [
        ({"model": "muga", "description": "A calm voice"}, {"body.ttsConfig.description"}),
        ({"model": "muga", "voice": "ira"}, {"body.ttsConfig.voice"}),
        ({"model": "mulberry", "voice": "ira"}, {"body.ttsConfig.voice"}),
        ({"model": "mulberry-1.6", "voice": ""}, {"body.ttsConfig.voice"}),
        ({"model": "mulberry-1.6", "voice": "zoya", "description": "x"}, {"body.ttsConfig.description"}),
        ({"model": "mulberry", "voice": "speaker_4", "f0_up_key": 12.5}, {"body.ttsConfig.f0_up_key"}),
    ]
    for tts, expected in cases:
        response = await client.post("/v1/agents", json={"name": "Check", "ttsConfig": tts})
        assert error_of(response) == (422, "invalid_request") and locs(response) == expected, tts
    for tts in ({"model": "mulberry", "voice": "speaker_2", "f0_up_key": -2.5},
                {"model": "mulberry", "description": "A calm voice"}, {"model": "muga"},
                {"model": "mulberry-1.6", "voice": "aisha"}):
        response = await client.post("/v1/agents", json={"name": "Fine", "ttsConfig": tts})
        assert response.status_code == 201, (tts, response.text)
        assert response.json()["ttsConfig"]["f0_up_key"] == tts.get("f0_up_key", 0)


async def test_an_agent_from_a_template_gets_a_uuid_a_handle_and_its_variables(client: httpx.AsyncClient) -> None:
    template = Page[AgentTemplate].model_validate((await client.get("/v1/agents/templates")).json()).items[0]
    assert template.tts_config.temperature == 0.6 and template.tts_config.max_new_tokens == 2048
    create = AgentCreate.from_template(template, "Night desk")
    create.system_instruction = (create.system_instruction or "") + " Mention {night_fee} after 10 pm."
    response = await client.post("/v1/agents", json=create.model_dump(mode="json", by_alias=True))
    assert response.status_code == 201
    agent = Agent.model_validate(response.json())
    assert uuid.UUID(agent.id) and agent.handle and agent.handle.startswith("ua_")
    assert agent.template_slug == template.slug and agent.source == "template"
    names = {v["name"]: v for v in (await client.get("/v1/variables")).json()["items"]}
    assert names["night_fee"]["defaultValue"] == ""
    # {{book_appointment}} attaches a tool: it is not a variable.
    assert "book_appointment" not in names or names["book_appointment"]["toolId"]
    listed = {a["id"] for a in (await client.get("/v1/agents")).json()["items"]}
    assert agent.id in listed
    # GET /v1/agents/{ref} by either reference.
    for ref in (agent.id, agent.handle):
        one = await client.get(f"/v1/agents/{ref}")
        assert one.status_code == 200 and Agent.model_validate(one.json()).id == agent.id
    assert error_of(await client.get("/v1/agents/ua_nobody")) == (404, "agent_not_found")


async def test_agent_validation_lists_every_field(client: httpx.AsyncClient) -> None:
    response = await client.post("/v1/agents", json={
        "name": "", "ttsConfig": {"model": "mulberry", "voice": "bob", "temperature": "hot", "f0_up_key": 13},
        "source": "template", "templateSlug": "nope",
    })
    assert error_of(response) == (422, "invalid_request")
    assert locs(response) == {
        "body.name", "body.ttsConfig.voice", "body.ttsConfig.temperature", "body.ttsConfig.f0_up_key",
        "body.templateSlug",
    }


async def _agents(client: httpx.AsyncClient) -> list[Agent]:
    return Page[Agent].model_validate((await client.get("/v1/agents")).json()).items


async def test_webcall_by_uuid_or_handle_with_either_field_name(client: httpx.AsyncClient) -> None:
    agent = next(a for a in await _agents(client) if a.deployed)
    sessions = []
    for body in ({"agentId": agent.id}, {"agent_id": agent.handle}, {"agentId": agent.handle}):
        response = await client.post("/v1/webcall", json=body)
        assert response.status_code == 200, response.text
        sessions.append(WebCallSession.model_validate(response.json()))
    assert all(s.host.startswith("wss://") for s in sessions)
    assert all(re.fullmatch(r"call-[0-9a-f]{32}", s.room_name) for s in sessions)
    assert len({s.call_id for s in sessions}) == 3 and all(uuid.UUID(s.call_id) for s in sessions)


async def test_webcall_refusals(client: httpx.AsyncClient) -> None:
    undeployed = next(a for a in await _agents(client) if not a.deployed)
    assert error_of(await client.post("/v1/webcall", json={"agentId": undeployed.id})) == (409, "agent_not_deployed")
    assert error_of(await client.post("/v1/webcall", json={"agentId": "ua_nobody"})) == (404, "agent_not_found")
    missing = await client.post("/v1/webcall", json={})
    assert error_of(missing) == (422, "invalid_request") and locs(missing) == {"body.agentId"}


async def test_deleting_an_agent_detaches_its_number(client: httpx.AsyncClient) -> None:
    rentals = Page[Rental].model_validate((await client.get("/v1/phone-numbers")).json()).items
    connected = next(r for r in rentals if r.user_agent_id)
    agent = next(a for a in await _agents(client) if a.id == connected.user_agent_id)
    assert (await client.delete(f"/v1/agents/{agent.handle}")).status_code == 204
    after = Rental.model_validate((await client.get(f"/v1/phone-numbers/{connected.id}")).json())
    assert after.user_agent_id is None and after.agent_name is None
    assert after.events[-1]["type"] == "agent.detached"
    assert error_of(await client.delete(f"/v1/agents/{agent.id}")) == (404, "agent_not_found")
    assert error_of(await client.post("/v1/webcall", json={"agentId": agent.id})) == (404, "agent_not_found")


async def test_null_optional_agent_fields_mean_not_sent(client: httpx.AsyncClient) -> None:
    response = await client.post("/v1/agents", json={
        "name": "Plain", "systemInstruction": None, "greeting": None, "source": None, "templateSlug": None,
        "ttsConfig": {"model": "muga", "voice": None, "temperature": None},
    })
    assert response.status_code == 201, response.text
    agent = response.json()
    assert agent["deployed"] is False and agent["source"] == "blank"
    assert agent["ttsConfig"]["temperature"] == 0.6 and agent["ttsConfig"]["voice"] == ""
