"""Each method speaks to its endpoint as the spec says, and extensions degrade to NotSupported."""

from __future__ import annotations

import json

import httpx
import pytest

from tests.api.conftest import API_KEY, BASE_URL, STAMP, error_body, json_response, wire_rental
from vap_console.api import VapClient, errors
from vap_console.api.models import AgentCreate, AgentTemplate, ToolCreate

TEMPLATE = {
    "id": "9d7c0000-0000-4000-8000-000000000001", "slug": "receptionist", "name": "Receptionist",
    "description": "Answers the front desk", "systemInstruction": "You are a receptionist.",
    "greeting": "Hello!", "ttsConfig": {"model": "mulberry", "voice": "ira", "temperature": 0.6,
                                        "top_p": 0.95, "top_k": 50},
    "sortOrder": 1, "createdAt": STAMP, "updatedAt": STAMP,
}
TOOL = {
    "id": "tool_1", "name": "crm_lookup", "description": "Looks up the caller", "kind": "before_call",
    "config": {"action": "get", "performedAction": "end_call", "curl": "", "method": "GET",
               "url": "https://crm.example/{phone}", "params": [], "headers": [], "body": "",
               "timeoutMs": 3000, "waitForResponse": True, "llmParams": [], "outputs": [],
               "auth": {"type": "bearer", "headerName": "X-API-Key", "username": "", "hasSecret": True}},
    "isDefault": False, "createdAt": STAMP, "updatedAt": STAMP,
}
VOICES = {"defaultModel": "mulberry", "models": [{
    "id": "mulberry", "label": "Mulberry", "disabled": False, "badge": None, "voices": ["ira", "siya"],
    "languages": [{"id": "english", "label": "English", "disabled": False}],
    "defaultLanguage": "english", "descriptions": [], "phoneCalls": True,
}]}


async def test_bearer_key_and_json_accept_on_every_request(make_client):
    client, server = make_client(json_response(200, VOICES))
    await client.list_voices()
    request = server.requests[0]
    assert request.headers["Authorization"] == f"Bearer {API_KEY}"
    assert request.url == f"{BASE_URL}/v1/voices"
    assert request.headers["User-Agent"].startswith("vap-console/")


async def test_list_templates_voices_variables(make_client):
    client, server = make_client(
        json_response(200, {"items": [TEMPLATE], "count": 1}), json_response(200, VOICES),
    )
    templates = await client.list_templates()
    voices = await client.list_voices()
    assert templates.items[0].tts_config.voice == "ira"
    assert voices.models[0].voices == ["ira", "siya"]
    assert [str(r.url.path) for r in server.requests] == ["/v1/agents/templates", "/v1/voices"]


async def test_create_tool_sends_the_credential_and_gets_has_secret_back(make_client):
    client, server = make_client(json_response(201, TOOL))
    tool = await client.create_tool(ToolCreate.model_validate({
        "name": "crm_lookup", "description": "Looks up the caller", "kind": "before_call",
        "config": {"method": "GET", "url": "https://crm.example/{phone}",
                   "auth": {"type": "bearer", "token": "crm-token-1"}},
    }))
    sent = json.loads(server.requests[0].content)
    assert sent["config"]["auth"]["token"] == "crm-token-1"
    assert "performedAction" not in sent["config"]  # unset fields are left to the server
    assert server.requests[0].method == "POST" and server.requests[0].url.path == "/v1/tools"
    assert tool.config.auth.has_secret is True


async def test_start_webcall_posts_agent_id(make_client):
    client, server = make_client(json_response(200, {
        "token": "lk-token-abcdef", "host": "wss://media.example", "roomName": "room-1",
        "callId": "c0000000-0000-4000-8000-000000000001"}))
    session = await client.start_webcall("ua_support")
    assert json.loads(server.requests[0].content) == {"agentId": "ua_support"}
    assert session.room_name == "room-1"


async def test_create_and_delete_agent(make_client):
    client, server = make_client(
        json_response(201, {"id": "a-1", "handle": "ua_front", "name": "Front", "deployed": False}),
        httpx.Response(204),
    )
    agent = await client.create_agent(
        AgentCreate.from_template(AgentTemplate.model_validate(TEMPLATE), "Front"))
    assert agent.ref == "ua_front"
    sent = json.loads(server.requests[0].content)
    assert sent["source"] == "template" and sent["templateSlug"] == "receptionist"
    assert sent["ttsConfig"]["top_p"] == 0.95
    assert await client.delete_agent("ua_front") is None
    assert server.requests[1].method == "DELETE" and server.requests[1].url.path == "/v1/agents/ua_front"


async def test_ids_cannot_escape_their_path_segment(make_client):
    client, server = make_client(json_response(200, wire_rental()))
    await client.get_rental("../tools/x")
    assert server.requests[0].url.raw_path == b"/v1/phone-numbers/..%2Ftools%2Fx"


async def test_search_numbers_sends_only_given_filters(make_client):
    client, server = make_client(json_response(200, {"items": [{
        "number": "919876500001", "e164": "+919876500001", "numberType": "local", "countryIso": "IN",
        "city": "Pune"}], "count": 1}))
    page = await client.search_numbers("IN", pattern="98765", city="Pune")
    assert page.items[0].e164 == "+919876500001"
    assert dict(server.requests[0].url.params) == {"countryIso": "IN", "pattern": "98765", "city": "Pune"}
    assert server.requests[0].url.path == "/v1/phone-numbers/available"


async def test_rental_requirements(make_client):
    client, server = make_client(json_response(200, {
        "countryIso": "IN", "numberType": "local", "verifiedKyc": False,
        "eligibility": {"eligible": True, "reason": None},
        "documentTypes": [{"id": "gst", "label": "GST certificate",
                           "dataFields": [{"key": "gstin", "label": "GSTIN"}]}]}))
    req = await client.rental_requirements("IN", "local")
    assert req.document_types[0].data_fields[0].key == "gstin"
    assert dict(server.requests[0].url.params) == {"countryIso": "IN", "numberType": "local"}


@pytest.mark.parametrize("method", ["list_rentals", "list_tools", "list_agents"])
@pytest.mark.parametrize("answer", [
    httpx.Response(404, text="Not Found"),
    httpx.Response(405, text="Method Not Allowed"),
    json_response(404, {"detail": "Not Found"}),
])
async def test_missing_extension_is_not_supported_without_retrying(make_client, method, answer):
    client, server = make_client(answer)
    with pytest.raises(errors.NotSupported) as caught:
        await getattr(client, method)()
    assert len(server.requests) == 1
    assert "does not offer GET /v1/" in str(caught.value)


async def test_extension_search_not_supported(make_client):
    client, _ = make_client(httpx.Response(404))
    with pytest.raises(errors.NotSupported):
        await client.search_numbers("IN")
    with pytest.raises(errors.NotSupported):
        await client.rental_requirements("IN")


async def test_a_spec_code_on_an_extension_404_is_not_not_supported(make_client):
    client, _ = make_client(json_response(404, error_body("agent_not_found")))
    with pytest.raises(errors.AgentNotFound):
        await client.list_agents()


async def test_404_on_a_spec_path_is_not_found_not_not_supported(make_client):
    client, _ = make_client(httpx.Response(404))
    with pytest.raises(errors.NotFound) as caught:
        await client.get_rental("nope")
    assert not isinstance(caught.value, errors.NotSupported)


async def test_list_rentals_parses_pages(make_client):
    client, _ = make_client(json_response(200, {"items": [wire_rental(), wire_rental(status="active")],
                                                 "count": 2}))
    page = await client.list_rentals()
    assert [r.status for r in page.items] == ["kyc_submitted", "active"]


def test_constructor_refuses_bad_base_urls_and_missing_keys():
    with pytest.raises(ValueError, match="base_url"):
        VapClient("ftp://host", API_KEY)
    with pytest.raises(ValueError, match="base_url"):
        VapClient("api.example.test", API_KEY)
    with pytest.raises(ValueError, match="api_key"):
        VapClient(BASE_URL, "  ")


async def test_base_url_is_readable_and_normalised():
    async with VapClient(BASE_URL + "/", API_KEY) as client:
        assert client.base_url == BASE_URL
    assert client.closed


async def test_a_redirect_is_not_followed_and_says_where_to(make_client):
    client, server = make_client(httpx.Response(301, headers={"Location": "https://new.example.test/v1/voices"}))
    # An answer the client cannot use: UnexpectedResponse (code "redirected"), no longer a bare
    # ApiError, so every "check the base URL" branch of a caller catches it.
    with pytest.raises(errors.UnexpectedResponse) as caught:
        await client.list_voices()
    assert type(caught.value) is errors.Redirected and caught.value.code == "redirected"
    assert len(server.requests) == 1
    assert "redirected GET /v1/voices to https://new.example.test/v1/voices" in str(caught.value)
    assert "base URL" in str(caught.value)
