"""`vap tools try`: the request a real webhook on loopback receives, the answer judged against the
tool (exit 0 held, 1 not, 2 usage with nothing sent), the secret masked everywhere and written
nowhere, the webhook's text shown literally, --json and --junit."""

from __future__ import annotations

import base64
import json
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.scripting.conftest import Result, Vap
from tests.webhook import Webhook, tool_document

SECRET = "whsec-9f8e7d6c5b4a-3210"


@pytest.fixture
def hook() -> Iterator[Webhook]:
    with Webhook() as server:
        yield server


def add_tool(vap: Vap, name: str, url: str, **config: Any) -> None:
    path = vap.tmp / f"{name}.json"
    path.write_text(json.dumps(tool_document(name, url, **config)))
    result = vap("tools", "create", "--file", str(path))
    assert result.code == 0, result.err


def no_secret_in(result: Result, *files: Path) -> None:
    for text in (result.out, result.err, *(f.read_text() for f in files)):
        assert SECRET not in text
        assert base64.b64encode(f"desk:{SECRET}".encode()).decode() not in text


def test_the_request_arrives_as_the_tool_describes_it(vap: Vap, hook: Webhook) -> None:
    add_tool(vap, "slots", hook.url + "/ok/{doctor}", method="POST",
             params=[{"name": "city", "value": "{city}"}, {"name": "phone", "value": "{phone_number}"}],
             headers=[{"name": "X-Call", "value": "{call_id}"}, {"name": "Content-Type", "value": "application/json"}],
             body='{"doctor": "{doctor}", "clinic": "{business_name}", "agent": "{agent_id}"}',
             llmParams=[{"name": "doctor", "type": "string"}])
    result = vap("tools", "try", "slots", "--arg", "doctor=Mehta", "--var", "business_name=Test Clinic",
                 "--context", "call_id=call-77")
    assert result.code == 0, result.err
    [got] = hook.arrived
    assert (got.method, got.path) == ("POST", "/ok/Mehta")
    # The variable's default (Pune), the context given (call-77) and the stand-in for the rest.
    assert got.query == "city=Pune&phone=%2B12025550100"
    assert got.headers["x-call"] == "call-77"
    assert json.loads(got.body) == {"doctor": "Mehta", "clinic": "Test Clinic", "agent": "agent_try"}
    assert "the contract holds: 200" in result.err


def test_the_platforms_api_key_never_reaches_the_webhook(vap: Vap, hook: Webhook) -> None:
    add_tool(vap, "plain", hook.url + "/ok", auth={"type": "bearer", "token": "stored-on-platform"})
    assert vap("tools", "try", "plain").code == 0
    [got] = hook.arrived
    assert not any(vap.key in v for v in got.headers.values())
    assert "authorization" not in got.headers


@pytest.mark.parametrize(("auth", "header", "value"), [
    ({"type": "bearer", "token": "x"}, "authorization", f"Bearer {SECRET}"),
    ({"type": "basic", "username": "desk", "password": "x"}, "authorization",
     "Basic " + base64.b64encode(f"desk:{SECRET}".encode()).decode()),
    ({"type": "api_key", "headerName": "X-Shop-Key", "token": "x"}, "x-shop-key", SECRET),
], ids=["bearer", "basic", "api_key"])
def test_each_auth_kind_arrives_with_the_secret_given_and_is_shown_masked(
        vap: Vap, hook: Webhook, monkeypatch: pytest.MonkeyPatch, auth: dict[str, Any], header: str, value: str,
) -> None:
    monkeypatch.setenv("HOOK_SECRET", SECRET)
    add_tool(vap, "authed", hook.url + "/echo-secret", auth=auth, outputs=[{"name": "echo_name", "path": "data.name"}])
    junit = vap.tmp / "out.xml"
    result = vap("tools", "try", "authed", "--secret-env", "HOOK_SECRET", "--junit", str(junit))
    assert result.code == 0, result.err
    assert hook.arrived[0].headers[header] == value
    assert "…3210" in result.out  # shown masked, and the webhook's echo of it masked too
    no_secret_in(result, junit)
    as_json = vap("tools", "try", "authed", "--secret-env", "HOOK_SECRET", "--json")
    no_secret_in(as_json)
    assert as_json.json()["request"]["auth"]["secret"] == "given (masked)"


def test_without_the_secret_the_request_goes_without_and_says_so(vap: Vap, hook: Webhook) -> None:
    add_tool(vap, "authed", hook.url + "/ok", auth={"type": "bearer", "token": "x"})
    result = vap("tools", "try", "authed")
    assert result.code == 0
    assert "authorization" not in hook.arrived[0].headers
    assert "no secret given" in result.out


def test_on_a_terminal_the_secret_is_asked_hidden(vap: Vap, hook: Webhook, monkeypatch: pytest.MonkeyPatch) -> None:
    import getpass

    asked: list[str] = []
    monkeypatch.setattr(getpass, "getpass", lambda prompt="": asked.append(prompt) or SECRET)
    add_tool(vap, "authed", hook.url + "/echo-secret", auth={"type": "bearer", "token": "x"})
    result = vap("tools", "try", "authed", terminal=True)
    assert result.code == 0, result.err
    assert asked and "authed's bearer secret" in asked[0]
    assert hook.arrived[0].headers["authorization"] == f"Bearer {SECRET}"
    no_secret_in(result)
    assert not [p for p in vap.tmp.rglob("*") if p.is_file() and SECRET.encode() in p.read_bytes()]


def test_nested_outputs_are_read_and_a_missing_one_fails(vap: Vap, hook: Webhook) -> None:
    add_tool(vap, "crm", hook.url + "/ok", outputs=[
        {"name": "visit_date", "path": "data.visits.0.date"}, {"name": "visit_count", "path": "data.count"},
        {"name": "email", "path": "data.email"}])
    result = vap("tools", "try", "crm", "--json")
    assert result.code == 1
    doc = result.json()
    assert [(o["name"], o["found"], o["value"]) for o in doc["outputs"]] == [
        ("visit_date", True, "2026-01-05"), ("visit_count", True, "3"), ("email", False, None)]
    assert doc["ok"] is False and "output email (data.email): missing" in doc["verdict"]
    plain = vap("tools", "try", "crm", terminal=True)
    assert plain.code == 1 and "missing" in plain.out and "2026-01-05" in plain.out
    assert plain.err.startswith("vap: crm: the contract does not hold: output email (data.email): missing")


def test_a_webhook_slower_than_the_timeout_fails_on_it(vap: Vap, hook: Webhook) -> None:
    add_tool(vap, "slow", hook.url + "/slow", timeoutMs=300)
    result = vap("tools", "try", "slow", "--json")
    assert result.code == 1
    answer = result.json()["answer"]
    assert answer["timedOut"] and answer["status"] is None and answer["ms"] >= 300
    assert "no complete answer within 300 ms (timeoutMs)" in result.err


def test_a_redirect_is_not_followed(vap: Vap, hook: Webhook) -> None:
    add_tool(vap, "moved", hook.url + "/redirect", outputs=[{"name": "moved_name", "path": "data.name"}])
    result = vap("tools", "try", "moved", terminal=True)
    assert result.code == 1
    assert [a.path for a in hook.arrived] == ["/redirect"]
    assert "302" in result.out and "not followed" in result.err


@pytest.mark.parametrize(("outputs", "code"), [([{"name": "page_name", "path": "data.name"}], 1), ([], 0)],
                         ids=["with outputs", "without outputs"])
def test_a_body_that_is_not_json_fails_only_a_tool_with_outputs(vap: Vap, hook: Webhook, outputs: list[Any],
                                                                code: int) -> None:
    add_tool(vap, "page", hook.url + "/html", outputs=outputs)
    result = vap("tools", "try", "page")
    assert result.code == code
    assert "<html><body>Not JSON</body></html>" in result.out
    if code:
        assert "a JSON body: not JSON (text/html" in result.err


@pytest.mark.parametrize("route", ["/huge", "/huge-declared"])
def test_a_10_mb_answer_is_not_read_past_the_cap(vap: Vap, hook: Webhook, route: str) -> None:
    add_tool(vap, "huge", hook.url + route)
    result = vap("tools", "try", "huge", "--json")
    assert result.code == 1
    answer = result.json()["answer"]
    assert answer["overCap"] and answer["bodyCut"]
    assert len(answer["body"]) <= 16 * 1024 and len(result.out) < 64 * 1024
    assert "an answer of at most 1 MiB" in result.err
    # On a terminal: what was not read whole is not called JSON or not JSON.
    shown = vap("tools", "try", "huge").out
    assert "not read as JSON, over the 1,048,576-byte read cap: not read whole" in shown and "not JSON" not in shown


def test_escape_sequences_in_the_answer_are_shown_not_run(vap: Vap, hook: Webhook) -> None:
    add_tool(vap, "hostile", hook.url + "/hostile", outputs=[{"name": "hostile_name", "path": "data.name"}])
    junit = vap.tmp / "hostile.xml"
    result = vap("tools", "try", "hostile", "--junit", str(junit), terminal=True)
    assert result.code == 0, result.err
    for text in (result.out, result.err):
        assert "\x1b" not in text and "\x9b" not in text and "\x00" not in text and "\u202e" not in text
    assert "␛]0;pwned" in result.out and "␛[31mred" in result.out
    as_json = vap("tools", "try", "hostile", "--json")
    assert "\x1b" not in as_json.out and "\\u001b" in as_json.out
    ET.fromstring(junit.read_bytes())  # valid XML, whatever the webhook said
    assert "\x1b" not in junit.read_text()


def test_dry_run_prints_the_request_and_sends_nothing(vap: Vap, hook: Webhook, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOOK_SECRET", SECRET)
    add_tool(vap, "dry", hook.url + "/ok", params=[{"name": "city", "value": "{city}"}],
             auth={"type": "bearer", "token": "x"})
    result = vap("tools", "try", "dry", "--dry-run", "--secret-env", "HOOK_SECRET", terminal=True)
    assert result.code == 0, result.err
    assert hook.arrived == []
    assert f"GET {hook.url}/ok?city=Pune" in result.out and "Bearer …3210" in result.out
    assert "filled {city}" in result.out and "nothing was sent" in result.err
    no_secret_in(result)


def test_a_placeholder_nothing_fills_is_named_before_anything_is_sent(vap: Vap, hook: Webhook) -> None:
    add_tool(vap, "book", hook.url + "/ok", body='{"slot": "{slot}", "who": "{nobody_knows}"}',
             llmParams=[{"name": "slot", "type": "string"}])
    result = vap("tools", "try", "book")
    assert result.code == 2 and hook.arrived == []
    assert "nothing fills {slot} in body; {nobody_knows} in body" in result.err
    assert "--arg slot=…" in result.err and "nothing was sent" in result.err


@pytest.mark.parametrize(("args", "says"), [
    (["--arg", "nope=1"], "--arg nope: no llmParams entry"),
    (["--var", "not_a_variable=1"], "--var not_a_variable: no variable"),
    (["--context", "user_id=1"], "--context user_id: the context params are call_id, agent_id, phone_number"),
    (["--arg", "noequals"], "--arg noequals: write NAME=VALUE"),
    (["--secret-env", "VAP_TEST_UNSET_VARIABLE"], "--secret-env VAP_TEST_UNSET_VARIABLE: that environment variable"),
    (["--secret-env", "other_tool=HOME"], "--secret-env other_tool=…: other_tool is not a tool being tried"),
    (["--all"], "name one tool (NAME or ID) or give --all"),
    (["--junit", "/no/such/folder/out.xml"], "--junit: the folder /no/such/folder does not exist"),
], ids=["arg", "var", "context", "pair", "secret-env", "secret-env tool", "both", "junit"])
def test_a_wrong_option_is_exit_2_and_nothing_is_sent(vap: Vap, hook: Webhook, args: list[str], says: str) -> None:
    add_tool(vap, "lookup", hook.url + "/ok")
    result = vap("tools", "try", "lookup", *args)
    assert result.code == 2 and hook.arrived == []
    assert says in result.err


def test_an_unknown_tool_is_exit_1(vap: Vap) -> None:
    result = vap("tools", "try", "no_such_tool")
    assert result.code == 1 and "no tool no_such_tool" in result.err


def test_wait_for_response_false_sends_and_does_not_wait(vap: Vap, hook: Webhook) -> None:
    add_tool(vap, "fire", hook.url + "/slow", method="POST", body="{}", waitForResponse=False, timeoutMs=60000)
    result = vap("tools", "try", "fire", "--json")
    assert result.code == 0, result.err
    assert [a.path for a in hook.wait_arrived(1)] == ["/slow"]
    assert result.json()["answer"]["waited"] is False and result.json()["sent"] is True


def test_wait_for_response_false_with_outputs_cannot_hold(vap: Vap, hook: Webhook) -> None:
    add_tool(vap, "fire", hook.url + "/ok", waitForResponse=False, outputs=[{"name": "fired", "path": "ok"}])
    result = vap("tools", "try", "fire")
    assert result.code == 1 and "fired is never filled" in result.err


def _only_these_tools(vap: Vap) -> None:
    # The seeded tools call hosts that do not exist: --all here tries only the tests' own.
    for item in vap.api("GET", "/v1/tools")["items"]:
        if not item["isDefault"]:
            assert vap("tools", "delete", item["id"]).code == 0


def test_all_with_junit_writes_a_case_per_tool_and_fails_when_one_does(vap: Vap, hook: Webhook) -> None:
    _only_these_tools(vap)
    add_tool(vap, "good", hook.url + "/ok", outputs=[{"name": "good_name", "path": "data.name"}])
    add_tool(vap, "bad", hook.url + "/status/500")
    junit = vap.tmp / "all.xml"
    result = vap("tools", "try", "--all", "--junit", str(junit))
    assert result.code == 1
    assert "2 tools tried: 1 held, 1 did not" in result.err
    suite = ET.fromstring(junit.read_bytes()).find("testsuite")
    assert suite is not None and suite.get("tests") == "2" and suite.get("failures") == "1"
    cases = {c.get("name"): c for c in suite.iter("testcase")}
    assert set(cases) == {"good", "bad"}
    assert cases["good"].find("failure") is None and cases["bad"].find("failure") is not None
    assert sorted(a.path for a in hook.arrived) == ["/ok", "/status/500"]


def test_all_as_json_is_one_object(vap: Vap, hook: Webhook) -> None:
    _only_these_tools(vap)
    add_tool(vap, "good", hook.url + "/ok")
    result = vap("tools", "try", "--all", "--json")
    assert result.code == 0, result.err
    doc = result.json()
    assert doc["ok"] is True and [t["tool"]["name"] for t in doc["tools"]] == ["good"]
    assert doc["tools"][0]["answer"]["status"] == 200


def test_all_gives_each_tool_its_own_secret_or_the_shared_one(vap: Vap, hook: Webhook,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    _only_these_tools(vap)
    monkeypatch.setenv("ONE_SECRET", "first-secret-value-1111")
    monkeypatch.setenv("SHARED_SECRET", "shared-secret-value-2222")
    add_tool(vap, "one", hook.url + "/ok/one", auth={"type": "bearer", "token": "x"})
    add_tool(vap, "two", hook.url + "/ok/two", auth={"type": "bearer", "token": "x"})
    result = vap("tools", "try", "--all", "--secret-env", "one=ONE_SECRET", "--secret-env", "SHARED_SECRET")
    assert result.code == 0, result.err
    got = {a.path: a.headers["authorization"] for a in hook.arrived}
    assert got == {"/ok/one": "Bearer first-secret-value-1111", "/ok/two": "Bearer shared-secret-value-2222"}
    assert "first-secret" not in result.out + result.err and "shared-secret" not in result.out + result.err


def test_a_hostile_tool_name_is_shown_literally_even_in_the_secret_prompt(vap: Vap, hook: Webhook,
                                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    import getpass

    from vap_console.sandbox.keys import by_name

    add_tool(vap, "authed", hook.url + "/ok", auth={"type": "bearer", "token": "x"})
    account = vap.app.state.sandbox.account(by_name("agent"))
    record = next(t for t in account.tools.values() if t.name == "authed")
    record.name = "authed\x1b]0;owned\x07"  # what a hostile server could answer
    asked: list[str] = []
    monkeypatch.setattr(getpass, "getpass", lambda prompt="": asked.append(prompt) or SECRET)
    result = vap("tools", "try", record.id, terminal=True)
    assert result.code == 0, result.err
    assert asked and "\x1b" not in asked[0] and "␛]0;owned␇" in asked[0]
    assert "\x1b" not in result.out + result.err
