"""One rule, one place (issue 28, point 4): every limit on what is sent is walked through every
layer that checks it, with the value just inside (accepted) and just outside (refused):

* the client's validation (``api/tool_rules.check_tool_document``, ``api/limits``),
* the console's form (the field error is shown under the field, nothing is sent),
* the CLI (``vap tools create --file``, ``vap agents create``: exit 0, or exit 2 and nothing sent),
* the sandbox (201, or 422 naming the field),
* the sandbox's OpenAPI document (the body validates against its schema, or does not).

The limits come from ``vap_console.api.limits``; each case builds its values from them, so a
layer that kept a number of its own (the form's old 600,000 ms timeout against the sandbox's
60,000) fails here.
"""

from __future__ import annotations

import asyncio
import copy
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import jsonschema
import pytest
from textual.widgets import Input, Select, TextArea

from tests.scripting.conftest import Vap
from tests.tui.console_scenes import build_console, settle, until
from vap_console.api import limits
from vap_console.api.limits import Limit
from vap_console.api.tool_rules import check_tool_document
from vap_console.sandbox.app import create_app
from vap_console.sandbox.openapi import build_document
from vap_console.tui.screens.agent_dialog import CreateAgentScreen
from vap_console.tui.screens.tool_form import ToolFormScreen
from vap_console.tui.screens.tool_form_fields import eid, wid
from vap_console.tui.widgets.field_error import FieldError

KEY = "sk_sandbox_agent"
SIZE = (120, 36)


def text(n: int, prefix: str = "") -> str:
    """n characters, starting with ``prefix`` where it fits (a letter first: names stay names)."""
    return (prefix + "a" * n)[:n]


def base_tool(tag: str) -> dict[str, Any]:
    return {"name": f"t_{tag}", "description": "Looks a thing up", "kind": "before_call",
            "config": {"method": "GET", "url": "https://crm.example/lookup"}}


@dataclass
class Case:
    """One side of one rule: a tool body, whether it is inside the rule, and the field it is about."""

    rule: str
    path: str  # the wire path the refusal names (``config.headers``)
    inside: bool
    doc: dict[str, Any]
    form: bool = True  # the console's form has this field
    id: str = field(default="")
    # JSON Schema cannot say it (names unique within a list): the schema's description does.
    in_schema: bool = True


def _edits(doc: dict[str, Any], edit: Callable[[dict[str, Any], dict[str, Any]], None]) -> dict[str, Any]:
    out = copy.deepcopy(doc)
    edit(out, out["config"])
    return out


def walk(rule: str, path: str, limit: Limit, edit: Callable[[dict[str, Any], dict[str, Any], int], None],
         *, form: bool = True) -> list[Case]:
    """high inside and high + 1 outside; low inside and low - 1 outside when there is a low."""
    edges = [(limit.high, True), (limit.high + 1, False)]
    if limit.low:
        edges += [(limit.low, True), (limit.low - 1, False)]
    cases = []
    for n, inside in edges:
        tag = f"{rule.replace('.', '_')}_{n}"
        doc = _edits(base_tool(tag), lambda d, c, n=n: edit(d, c, n))
        cases.append(Case(rule, path, inside, doc, form, f"{rule}[{n}{'' if inside else ' refused'}]"))
    return cases


def pair(rule: str, path: str, inside: bool, edit: Callable[[dict[str, Any], dict[str, Any]], None],
         *, form: bool = True) -> Case:
    doc = _edits(base_tool(f"{rule.replace('.', '_')}_{int(inside)}"), edit)
    return Case(rule, path, inside, doc, form, f"{rule}[{'ok' if inside else 'refused'}]")


def _set(key: str, value: Callable[[int], Any]) -> Callable[[dict[str, Any], dict[str, Any], int], None]:
    def edit(doc: dict[str, Any], config: dict[str, Any], n: int) -> None:
        target = config if key.startswith("config.") else doc
        target[key.removeprefix("config.")] = value(n)
    return edit


def _auth(auth_type: str, key: str, **more: str) -> Callable[[dict[str, Any], dict[str, Any], int], None]:
    def edit(doc: dict[str, Any], config: dict[str, Any], n: int) -> None:
        config["auth"] = {"type": auth_type, **more, key: text(n, "k")}
    return edit


def _pairs(key: str, make: Callable[[int, int], dict[str, str]], count: Callable[[int], int]):
    def edit(doc: dict[str, Any], config: dict[str, Any], n: int) -> None:
        config[key] = [make(n, i) for i in range(count(n))]
    return edit


def _llm(doc: dict[str, Any], config: dict[str, Any], n: int) -> None:
    doc["kind"] = "during_call"
    config["llmParams"] = [{"name": f"p{i}", "description": "d", "type": "string"} for i in range(n)]


L = limits
TOOL_CASES: list[Case] = [
    *walk("name", "name", L.TOOL_NAME, _set("name", lambda n: text(n, "n"))),
    *walk("description", "description", L.TOOL_DESCRIPTION, _set("description", lambda n: text(n, "d"))),
    *walk("timeoutMs", "config.timeoutMs", L.TOOL_TIMEOUT_MS, _set("config.timeoutMs", lambda n: n)),
    *walk("url.length", "config.url", L.TOOL_URL,
          _set("config.url", lambda n: "https://crm.example/" + "a" * (n - len("https://crm.example/")))),
    *walk("body", "config.body", L.TOOL_BODY, _set("config.body", lambda n: text(n, "b"))),
    *walk("curl", "config.curl", L.TOOL_BODY, _set("config.curl", lambda n: text(n, "c")), form=False),
    *walk("action", "config.action", L.TOOL_ACTION, _set("config.action", lambda n: text(n, "g")), form=False),
    *walk("performedAction", "config.performedAction", L.TOOL_ACTION,
          _set("config.performedAction", lambda n: text(n, "e")), form=False),
    *walk("params.count", "config.params", L.TOOL_LIST,
          _pairs("params", lambda n, i: {"name": f"q{i}", "value": "v"}, lambda n: n)),
    *walk("params.name", "config.params", L.TOOL_PAIR_NAME,
          _pairs("params", lambda n, i: {"name": text(n, "q"), "value": "v"}, lambda n: 1)),
    *walk("params.value", "config.params", L.TOOL_PAIR_VALUE,
          _pairs("params", lambda n, i: {"name": "q", "value": text(n, "v")}, lambda n: 1)),
    *walk("headers.count", "config.headers", L.TOOL_LIST,
          _pairs("headers", lambda n, i: {"name": f"X-H{i}", "value": "v"}, lambda n: n)),
    *walk("headers.name", "config.headers", L.TOOL_PAIR_NAME,
          _pairs("headers", lambda n, i: {"name": text(n, "X"), "value": "v"}, lambda n: 1)),
    *walk("headers.value", "config.headers", L.TOOL_PAIR_VALUE,
          _pairs("headers", lambda n, i: {"name": "X-H", "value": text(n, "v")}, lambda n: 1)),
    *walk("outputs.count", "config.outputs", L.TOOL_LIST,
          _pairs("outputs", lambda n, i: {"name": f"oc{n}_{i}", "path": "a.b"}, lambda n: n)),
    *walk("outputs.name", "config.outputs", L.TOOL_PAIR_NAME,
          _pairs("outputs", lambda n, i: {"name": text(n, f"on{n}_"), "path": "a"}, lambda n: 1)),
    *walk("outputs.path", "config.outputs", L.TOOL_PAIR_VALUE,
          _pairs("outputs", lambda n, i: {"name": f"op{n}", "path": text(n, "p")}, lambda n: 1)),
    *walk("llmParams.count", "config.llmParams", L.TOOL_LIST, _llm),
    *walk("auth.headerName", "config.auth.headerName", L.TOOL_AUTH_NAME, _auth("api_key", "headerName", token="t")),
    *walk("auth.username", "config.auth.username", L.TOOL_AUTH_NAME, _auth("basic", "username", password="p")),
    *walk("auth.token", "config.auth.token", L.TOOL_SECRET, _auth("bearer", "token")),
    *walk("auth.password", "config.auth.password", L.TOOL_SECRET, _auth("basic", "password", username="u")),
    # The patterns and the lists of words.
    pair("name.shape", "name", True, lambda d, c: d.update(name="Lookup_2")),
    pair("name.shape", "name", False, lambda d, c: d.update(name="2lookup")),
    pair("url.shape", "config.url", True, lambda d, c: c.update(url="http://x")),
    pair("url.shape", "config.url", False, lambda d, c: c.update(url="ftp://crm.example/x")),
    pair("url.spaces", "config.url", False, lambda d, c: c.update(url="https://crm.example/a b")),
    pair("url.empty_host", "config.url", False, lambda d, c: c.update(url="https://")),
    pair("outputs.shape", "config.outputs", True, lambda d, c: c.update(outputs=[{"name": "_order", "path": ""}])),
    pair("outputs.shape", "config.outputs", False, lambda d, c: c.update(outputs=[{"name": "9order", "path": "a"}])),
    Case("outputs.twice", "config.outputs", False, _edits(
        base_tool("outputs_twice"),
        lambda d, c: c.update(outputs=[{"name": "same", "path": "a"}, {"name": "same", "path": "b"}])),
        id="outputs.twice[refused]", in_schema=False),
    pair("method", "config.method", True, lambda d, c: c.update(method="DELETE"), form=False),
    pair("method", "config.method", False, lambda d, c: c.update(method="get"), form=False),
    pair("kind", "kind", False, lambda d, c: d.update(kind="after_call"), form=False),
    pair("auth.type", "config.auth.type", False, lambda d, c: c.update(auth={"type": "oauth"}), form=False),
]


# --- the layers ---


def client_refuses(case: Case) -> bool:
    body, problems = check_tool_document(case.doc)
    if body is None:
        assert any(p == case.path or p.startswith(case.path + ".") for p in problems), problems
    return body is None


def sandbox_answer(app: Any, method: str, path: str, body: Any) -> httpx.Response:
    async def go() -> httpx.Response:
        async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://sandbox") as c:
            return await c.request(method, path, json=body, headers={"Authorization": f"Bearer {KEY}"})

    return asyncio.run(go())


def sandbox_refuses(app: Any, case: Case) -> bool:
    answer = sandbox_answer(app, "POST", "/v1/tools", case.doc)
    assert answer.status_code in (201, 422), answer.text
    if answer.status_code == 422:
        locs = [d["loc"] for d in answer.json()["details"]]
        assert any(loc.startswith("body." + case.path) for loc in locs), locs
    return answer.status_code == 422


def schema_refuses(document: dict[str, Any], schema: str, body: Any) -> bool:
    validator = jsonschema.Draft202012Validator(
        {"$ref": f"#/components/schemas/{schema}", "components": document["components"]})
    return not validator.is_valid(body)


def cli_exit(vap: Vap, tmp: Path, case: Case) -> str:
    """``vap tools create --file``'s exit for this case, and whether a refusal sent anything."""
    file = tmp / f"{case.doc['name'][:40]}-{len(vap.sent)}.json"
    file.write_text(json.dumps(case.doc), encoding="utf-8")
    before = len(vap.sent)
    result = vap("tools", "create", "--file", str(file))
    if result.code == 2 and (len(vap.sent) != before or case.path.split(".")[-1] not in result.err):
        return f"exit 2 but sent {len(vap.sent) - before} or did not name the field: {result.err[:200]}"
    return f"exit {result.code}"


@pytest.fixture(scope="module")
def openapi() -> dict[str, Any]:
    return build_document()


@pytest.mark.parametrize("case", TOOL_CASES, ids=lambda c: c.id)
def test_a_tool_rule_is_the_same_in_the_client_the_sandbox_and_its_openapi_document(
        case: Case, openapi: dict[str, Any]) -> None:
    refused = not case.inside
    assert client_refuses(case) is refused, "the client's validation"
    assert sandbox_refuses(create_app(), case) is refused, "the sandbox"
    if case.in_schema:
        assert schema_refuses(openapi, "ToolCreate", case.doc) is refused, "the OpenAPI schema"


def test_vap_tools_create_accepts_and_refuses_what_the_sandbox_does(tmp_path: Path, capsys) -> None:
    vap = Vap(create_app(), tmp_path, capsys)
    answers = {c.id: cli_exit(vap, tmp_path, c) for c in TOOL_CASES}
    wrong = {i: got for (i, got), c in zip(answers.items(), TOOL_CASES, strict=True)
             if got != ("exit 0" if c.inside else "exit 2")}
    assert wrong == {}


# --- the console's form ---


def form_values(doc: dict[str, Any]) -> dict[str, Any]:
    config = doc["config"]
    auth = config.get("auth") or {}
    return {
        "name": doc["name"], "description": doc["description"], "kind": doc["kind"],
        "config.method": config.get("method", "GET"), "config.url": config["url"],
        "config.timeoutMs": str(config.get("timeoutMs", "")), "config.body": config.get("body", ""),
        "config.params": "\n".join(f"{p['name']}={p['value']}" for p in config.get("params", [])),
        "config.headers": "\n".join(f"{h['name']}: {h['value']}" for h in config.get("headers", [])),
        "config.outputs": "\n".join(f"{o['name']} = {o['path']}" for o in config.get("outputs", [])),
        "config.llmParams": "\n".join(f"{p['name']}: {p['description']}" for p in config.get("llmParams", [])),
        "config.auth.type": auth.get("type", "none"),
        **{f"config.auth.{k}": auth.get(k, "") for k in ("token", "password", "headerName", "username")},
    }


def fill_form(form: ToolFormScreen, doc: dict[str, Any]) -> None:
    for path, value in form_values(doc).items():
        widget = form.query_one(f"#{wid(path)}")
        if isinstance(widget, TextArea):
            widget.text = value
        elif isinstance(widget, Select):
            widget.value = value
        else:
            assert isinstance(widget, Input)
            widget.value = value


def _form_answered(app: Any, form: ToolFormScreen) -> bool:
    return app.screen is not form or any(e.message for e in form.query(FieldError))


@pytest.mark.slow
async def test_the_tool_form_shows_each_rule_under_its_field_before_sending() -> None:
    """Outside each rule: ctrl+s shows the problem under the field and nothing is sent."""
    console = build_console(start_screen="tools")
    wrong: list[str] = []
    async with console.app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("n")
        await until(pilot, lambda: isinstance(console.app.screen, ToolFormScreen))
        form = console.app.screen
        assert isinstance(form, ToolFormScreen)
        for case in (c for c in TOOL_CASES if c.form and not c.inside):
            fill_form(form, case.doc)
            form.show_errors({}, jump=False)  # the last case's messages go
            await pilot.press("ctrl+s")
            await until(pilot, lambda: _form_answered(console.app, form))
            if console.app.screen is not form:
                wrong.append(f"{case.id}: sent")
                break
            shown = form.query_one(f"#{eid(case.path)}", FieldError).message
            if not shown:
                others = {e.id: e.message for e in form.query(FieldError) if e.message}
                wrong.append(f"{case.id}: nothing under {case.path}; {others}")
        assert len(console.account.tools) == len(build_console().account.tools)
    assert wrong == []


@pytest.mark.slow
async def test_the_tool_form_takes_what_is_just_inside_each_rule_and_the_sandbox_creates_it() -> None:
    """Inside each rule: the form's checks pass (what ctrl+s runs before it sends) and the body it
    would send is created by the sandbox."""
    console = build_console(start_screen="tools")
    sandbox = httpx.AsyncClient(transport=httpx.ASGITransport(app=create_app()), base_url="http://sandbox",
                                headers={"Authorization": f"Bearer {KEY}"})
    wrong: list[str] = []
    async with sandbox, console.app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("n")
        await until(pilot, lambda: isinstance(console.app.screen, ToolFormScreen))
        form = console.app.screen
        assert isinstance(form, ToolFormScreen)
        for case in (c for c in TOOL_CASES if c.form and c.inside):
            fill_form(form, case.doc)
            await settle(pilot)
            parsed = form.parse()
            if parsed.body is None:
                wrong.append(f"{case.id}: the form says {parsed.errors}")
                continue
            answer = await sandbox.post("/v1/tools", content=parsed.body.model_dump_json(by_alias=True,
                                                                                        exclude_none=True))
            if answer.status_code != 201:
                wrong.append(f"{case.id}: the sandbox says {answer.text[:300]}")
    assert wrong == []


# --- an agent's name ---

AGENT_NAMES = [
    (text(limits.AGENT_NAME.high, "Front"), True),
    (text(limits.AGENT_NAME.high + 1, "Front"), False),
    ("F", True),
    ("   ", False),
]
TEMPLATE = "clinic-receptionist"


def agent_body(name: str) -> dict[str, Any]:
    return {"name": name, "source": "template", "templateSlug": TEMPLATE}


@pytest.mark.parametrize(("name", "inside"), AGENT_NAMES, ids=lambda v: str(len(v)) if isinstance(v, str) else str(v))
def test_an_agent_name_is_one_rule_in_the_client_the_cli_the_sandbox_and_openapi(
        name: str, inside: bool, openapi: dict[str, Any], tmp_path: Path, capsys) -> None:
    assert (limits.agent_name_problem(name) is None) is inside, "the client's rule"
    answer = sandbox_answer(create_app(), "POST", "/v1/agents", agent_body(name))
    assert (answer.status_code == 201) is inside, answer.text
    assert schema_refuses(openapi, "AgentCreate", agent_body(name)) is not inside, "the OpenAPI schema"
    vap = Vap(create_app(), tmp_path, capsys)
    result = vap("agents", "create", "--template", TEMPLATE, "--name", name)
    assert result.code == (0 if inside else 2), result.err
    if not inside:
        assert "--name" in result.err and vap.sent == []


async def test_the_agent_dialog_refuses_a_name_the_server_refuses_before_sending() -> None:
    console = build_console(start_screen="templates")
    wrong = []
    async with console.app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        for name, inside in AGENT_NAMES:
            before = len(console.account.agents)
            await pilot.press("a")
            await until(pilot, lambda: isinstance(console.app.screen, CreateAgentScreen))
            dialog = console.app.screen
            dialog.query_one("#agent-name", Input).value = name
            await pilot.press("enter")
            if inside:
                await until(pilot, lambda: not isinstance(console.app.screen, CreateAgentScreen))
                if len(console.account.agents) != before + 1:
                    wrong.append(f"{len(name)}: not created")
                # Back to templates for the next one.
                await pilot.press("5")
                await settle(pilot)
                continue
            await until(pilot, lambda dialog=dialog: bool(dialog.query_one("#agent-name-error", FieldError).message))
            if len(console.account.agents) != before:
                wrong.append(f"{len(name)}: sent")
            await pilot.press("escape")
            await until(pilot, lambda: not isinstance(console.app.screen, CreateAgentScreen))
    assert wrong == []
