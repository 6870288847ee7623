"""Spec 2.4/2.5, 4.2, 4.3: tools, their defaults, write-only credentials and the variables they feed."""

from __future__ import annotations

import httpx

from vap_console.api.models import Page, Tool, Variable

from .conftest import error_of, locs

MINIMAL = {
    "name": "crm_lookup",
    "description": "Finds the caller in the CRM",
    "kind": "before_call",
    "config": {"method": "GET", "url": "https://crm.example/api"},
}


async def variables(client: httpx.AsyncClient) -> dict[str, Variable]:
    page = Page[Variable].model_validate((await client.get("/v1/variables")).json())
    return {v.name: v for v in page.items}


async def test_unsent_config_fields_come_back_with_the_spec_defaults(client: httpx.AsyncClient) -> None:
    response = await client.post("/v1/tools", json=MINIMAL)
    assert response.status_code == 201
    body = response.json()
    config = body["config"]
    assert config["performedAction"] == "end_call"
    assert config["curl"] == "" and config["body"] == ""
    assert config["waitForResponse"] is True
    assert config["llmParams"] == []
    assert config["auth"]["headerName"] == "X-API-Key"
    assert config["auth"]["username"] == ""
    assert config["auth"]["hasSecret"] is False
    assert body["isDefault"] is False and not body["id"].startswith("default-")
    Tool.model_validate(body)


async def test_credentials_are_write_only(client: httpx.AsyncClient) -> None:
    tool = {**MINIMAL, "config": {**MINIMAL["config"], "auth": {
        "type": "bearer", "token": "tok-SECRET-1234", "password": "pw-SECRET-5678", "headerName": "Authorization",
    }}}
    created = await client.post("/v1/tools", json=tool)
    assert created.json()["config"]["auth"] == {
        "type": "bearer", "headerName": "Authorization", "username": "", "hasSecret": True,
    }
    listed = await client.get("/v1/tools")
    for response in (created, listed):
        assert "SECRET" not in response.text
        assert "token" not in response.text and "password" not in response.text


async def test_every_failing_field_is_listed(client: httpx.AsyncClient) -> None:
    response = await client.post("/v1/tools", json={
        "name": "9lives", "description": "", "kind": "after_call",
        "config": {"url": "ftp://x", "timeoutMs": "soon", "waitForResponse": "yes", "method": "FETCH"},
    })
    assert error_of(response) == (422, "invalid_request")
    assert locs(response) == {
        "body.name", "body.description", "body.kind", "body.config.url", "body.config.timeoutMs",
        "body.config.waitForResponse", "body.config.method",
    }


async def test_name_rules(client: httpx.AsyncClient) -> None:
    for bad in ["", "_x", "has space", "naïve", "a-b", "x" * 65]:
        response = await client.post("/v1/tools", json={**MINIMAL, "name": bad})
        assert locs(response) == {"body.name"}, bad
    assert (await client.post("/v1/tools", json={**MINIMAL, "name": "x" * 64})).status_code == 201


async def test_a_name_with_a_final_newline_is_refused(client: httpx.AsyncClient) -> None:
    # re.match with a $ matched before a final newline, so "lookup\n" was taken as a name (issue 18).
    for bad in ["lookup\n", "lookup\r\n", "look\nup"]:
        response = await client.post("/v1/tools", json={**MINIMAL, "name": bad})
        assert error_of(response) == (422, "invalid_request") and locs(response) == {"body.name"}, bad
    assert (await client.post("/v1/tools", json={**MINIMAL, "name": "lookup"})).status_code == 201


async def test_description_is_1_to_1000_characters(client: httpx.AsyncClient) -> None:
    assert locs(await client.post("/v1/tools", json={**MINIMAL, "description": "d" * 1001})) == {"body.description"}
    assert (await client.post("/v1/tools", json={**MINIMAL, "description": "d" * 1000})).status_code == 201


async def test_duplicate_name_has_its_own_code(client: httpx.AsyncClient) -> None:
    assert (await client.post("/v1/tools", json=MINIMAL)).status_code == 201
    assert error_of(await client.post("/v1/tools", json=MINIMAL)) == (409, "tool_name_taken")
    # Built-in names are taken too.
    assert error_of(await client.post("/v1/tools", json={**MINIMAL, "name": "end_call"})) == (409, "tool_name_taken")


async def test_builtin_tools_cannot_be_deleted(client: httpx.AsyncClient) -> None:
    tools = Page[Tool].model_validate((await client.get("/v1/tools")).json()).items
    builtin = next(t for t in tools if t.is_default)
    assert builtin.id.startswith("default-")
    assert error_of(await client.delete(f"/v1/tools/{builtin.id}")) == (403, "tool_is_default")
    assert builtin.id in {t["id"] for t in (await client.get("/v1/tools")).json()["items"]}


async def test_unknown_tool_is_404_agent_tool_not_found(client: httpx.AsyncClient) -> None:
    assert error_of(await client.delete("/v1/tools/does-not-exist")) == (404, "agent_tool_not_found")


async def test_outputs_feed_variables_and_fall_back_when_the_tool_goes(client: httpx.AsyncClient) -> None:
    before = await variables(client)
    tool = {**MINIMAL, "config": {**MINIMAL["config"], "outputs": [
        {"name": "loyalty_points", "path": "data.points"}, {"name": "city", "path": "data.city"},
    ]}}
    created = (await client.post("/v1/tools", json=tool)).json()
    fed = await variables(client)
    assert fed["loyalty_points"].tool_id == created["id"] and fed["loyalty_points"].tool_output == "data.points"
    assert fed["loyalty_points"].default_value == ""
    assert fed["city"].tool_id == created["id"]
    assert fed["city"].default_value == before["city"].default_value
    assert (await client.delete(f"/v1/tools/{created['id']}")).status_code == 204
    after = await variables(client)
    assert after["city"].tool_id is None and after["city"].tool_output is None
    assert after["city"].default_value == before["city"].default_value
    assert after["loyalty_points"].tool_id is None
    assert error_of(await client.delete(f"/v1/tools/{created['id']}")) == (404, "agent_tool_not_found")


async def test_a_variable_already_fed_by_another_tool_is_refused(client: httpx.AsyncClient) -> None:
    tool = {**MINIMAL, "config": {**MINIMAL["config"], "outputs": [{"name": "customer_name", "path": "n"}]}}
    response = await client.post("/v1/tools", json=tool)
    assert locs(response) == {"body.config.outputs.0.name"}
    assert "lookup_customer" in response.json()["details"][0]["message"]


async def test_null_optional_fields_mean_not_sent(client: httpx.AsyncClient) -> None:
    config = {"url": "https://x.example", "method": None, "timeoutMs": None, "waitForResponse": None,
              "llmParams": None, "params": None, "headers": None, "body": None, "curl": None,
              "performedAction": None, "outputs": None, "auth": None}
    response = await client.post("/v1/tools", json={**MINIMAL, "config": config})
    assert response.status_code == 201, response.text
    got = response.json()["config"]
    assert (got["method"], got["waitForResponse"], got["performedAction"], got["body"]) == ("GET", True, "end_call", "")
    assert got["llmParams"] == [] and got["params"] == [] and got["auth"]["hasSecret"] is False
