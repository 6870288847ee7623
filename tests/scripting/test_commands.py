"""Every `vap <area>` command against the sandbox: exit codes, --json equal to the API's answer,
plain and table output, and refusals that send nothing."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.scripting.conftest import Vap

LISTS = [
    (["numbers", "list"], "/v1/phone-numbers"),
    (["tools", "list"], "/v1/tools"),
    (["variables", "list"], "/v1/variables"),
    (["templates", "list"], "/v1/agents/templates"),
    (["agents", "list"], "/v1/agents"),
]


@pytest.mark.parametrize(("args", "path"), LISTS, ids=lambda v: " ".join(v) if isinstance(v, list) else v)
def test_list_json_is_the_apis_items(vap: Vap, args: list[str], path: str) -> None:
    result = vap(*args, "--json")
    assert result.code == 0, result.err
    assert result.json() == vap.api("GET", path)["items"]


@pytest.mark.parametrize(("args", "path"), LISTS, ids=lambda v: " ".join(v) if isinstance(v, list) else v)
def test_list_piped_is_one_plain_line_per_item(vap: Vap, args: list[str], path: str) -> None:
    result = vap(*args)
    assert result.code == 0, result.err
    lines = result.out.splitlines()
    assert len(lines) == len(vap.api("GET", path)["items"])
    assert "\x1b" not in result.out and all("\t" in line for line in lines)


def test_voices_json_is_the_catalogue(vap: Vap) -> None:
    result = vap("voices", "list", "--json")
    assert result.code == 0 and result.json() == vap.api("GET", "/v1/voices")


def test_terminal_table_is_aligned_in_display_cells(vap: Vap) -> None:
    from rich.cells import cell_len

    result = vap("agents", "list", terminal=True)
    assert result.code == 0
    header, *rows = result.out.splitlines()
    start = header.index("STATE")  # names hold an en dash: cells, not len(), must line up
    for row in rows:
        assert cell_len(row[:len(row)]) >= start
        prefix = next(p for p in (row[:i] for i in range(len(row) + 1)) if cell_len(p) == start)
        assert row[len(prefix):].split()[0] in ("deployed", "draft")


def test_show_commands_print_the_apis_object(vap: Vap) -> None:
    agent = vap.api("GET", "/v1/agents")["items"][0]
    assert vap("agents", "show", agent["id"], "--json").json() == vap.api("GET", f"/v1/agents/{agent['id']}")
    rental = vap.api("GET", "/v1/phone-numbers")["items"][0]
    assert vap("numbers", "show", rental["id"], "--json").json() == vap.api("GET", f"/v1/phone-numbers/{rental['id']}")
    tool = vap.api("GET", "/v1/tools")["items"][-1]
    assert vap("tools", "show", tool["id"], "--json").json() == tool
    template = vap.api("GET", "/v1/agents/templates")["items"][0]
    assert vap("templates", "show", template["slug"], "--json").json() == template


def test_search_and_requirements(vap: Vap) -> None:
    assert vap("numbers", "search", "--json").json() == vap.api("GET", "/v1/phone-numbers/available?countryIso=IN")["items"]
    result = vap("numbers", "requirements", "--json")
    assert result.code == 0 and result.json() == vap.api("GET", "/v1/phone-numbers/requirements?countryIso=IN")


def test_missing_things_exit_1_with_code_and_request_id(vap: Vap) -> None:
    result = vap("tools", "delete", "nope")
    assert result.code == 1
    assert result.err.startswith("vap: agent_tool_not_found: ") and "request " in result.err
    assert len(result.err.splitlines()) == 1
    assert vap("agents", "show", "ua_nope").code == 1
    assert vap("tools", "show", "nope").code == 1


def test_refused_key_exits_2_and_is_never_printed(vap: Vap) -> None:
    result = vap("voices", "list", key="sk_sandbox_revoked")
    assert result.code == 2 and "unauthorized" in result.err
    assert "sk_sandbox_revoked" not in result.err + result.out


def test_usage_errors_exit_2_in_one_line(vap: Vap) -> None:
    result = vap("numbers", "list", "--bogus")
    assert result.code == 2 and len(result.err.splitlines()) == 1 and vap.sent == []


def test_tool_create_and_delete(vap: Vap, tmp_path: Path) -> None:
    spec = {"name": "lookup_order", "description": "Find an order", "kind": "before_call",
            "config": {"method": "GET", "url": "https://shop.example/orders/{phone_number}",
                       "auth": {"type": "bearer", "token": "s3cret-token"}}}
    file = tmp_path / "tool.json"
    file.write_text(json.dumps(spec))
    created = vap("tools", "create", "--file", str(file), "--json")
    assert created.code == 0, created.err
    tool = created.json()
    assert tool["config"]["auth"]["hasSecret"] is True and "s3cret-token" not in created.out
    assert tool in vap.api("GET", "/v1/tools")["items"]
    shown = vap("tools", "show", tool["id"], terminal=True)
    assert "s3cret-token" not in shown.out and "hasSecret" in shown.out
    assert vap("tools", "delete", tool["id"]).code == 0
    assert tool["id"] not in [t["id"] for t in vap.api("GET", "/v1/tools")["items"]]


@pytest.mark.parametrize(("spec", "field"), [
    ({"name": "9bad", "description": "d", "config": {"url": "https://a.example"}}, "name"),
    ({"name": "ok", "description": "", "config": {"url": "https://a.example"}}, "description"),
    ({"name": "ok", "description": "d", "config": {"url": "ftp://a.example"}}, "config.url"),
    ({"name": "ok", "description": "d", "config": {"url": "https://a.example", "auth": {"type": "bearer"}}},
     "config.auth.token"),
    ({"name": "ok", "description": "d", "config": {"url": "https://a.example", "timeoutMs": 0}}, "config.timeoutMs"),
    ({"name": "ok", "description": "d", "kind": "before_call",
      "config": {"url": "https://a.example", "llmParams": [{"name": "q"}]}}, "config.llmParams"),
])
def test_bad_tool_files_are_refused_naming_the_field_and_send_nothing(
    vap: Vap, tmp_path: Path, spec: dict, field: str
) -> None:
    file = tmp_path / "tool.json"
    file.write_text(json.dumps(spec))
    result = vap("tools", "create", "--file", str(file))
    assert result.code == 2 and f"{field}: " in result.err and "nothing was sent" in result.err
    assert vap.sent == []


def test_a_tool_file_that_is_not_json_sends_nothing(vap: Vap, tmp_path: Path) -> None:
    file = tmp_path / "tool.json"
    file.write_text("{nope")
    assert vap("tools", "create", "--file", str(file)).code == 2 and vap.sent == []


def test_agent_create_and_delete(vap: Vap) -> None:
    slug = vap.api("GET", "/v1/agents/templates")["items"][0]["slug"]
    created = vap("agents", "create", "--template", slug, "--name", "Test agent", "--json")
    assert created.code == 0, created.err
    agent = created.json()
    assert vap.api("GET", f"/v1/agents/{agent['id']}") == agent
    assert vap("agents", "delete", agent["id"]).code == 0
    assert vap("agents", "show", agent["id"]).code == 1


def test_agent_create_with_unknown_template_sends_no_post(vap: Vap) -> None:
    result = vap("agents", "create", "--template", "no-such", "--name", "X")
    assert result.code == 1 and not any(s.startswith("POST") for s in vap.sent)


def test_webcall_without_terminal_or_yes_is_refused_before_any_request(vap: Vap) -> None:
    ref = vap.api("GET", "/v1/agents")["items"][0]["id"]
    result = vap("agents", "webcall", ref)
    assert result.code == 2 and "--yes" in result.err and vap.sent == []


def test_webcall_with_yes_says_the_cost_and_prints_the_answer(vap: Vap) -> None:
    ref = next(a["id"] for a in vap.api("GET", "/v1/agents")["items"] if a.get("deployed"))
    result = vap("agents", "webcall", ref, "--yes", "--json")
    assert result.code == 0, result.err
    assert "billed from the moment it starts" in result.err
    assert set(result.json()) >= {"token", "host", "roomName", "callId"}
    assert vap.sent.count("POST /v1/webcall") == 1


def test_webcall_on_a_draft_says_so_and_sends_nothing(vap: Vap) -> None:
    ref = next(a["id"] for a in vap.api("GET", "/v1/agents")["items"] if a.get("deployed") is False)
    result = vap("agents", "webcall", ref, "--yes")
    assert result.code == 1 and "is a draft: a draft takes no calls" in result.err
    assert "Deploy it first" in result.err and "Nothing was sent" in result.err
    assert vap.sent.count("POST /v1/webcall") == 0 and result.out == ""
