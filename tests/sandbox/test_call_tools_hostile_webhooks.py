"""A hostile webhook against the sandbox's --call-tools (issue 33, point 3): slow beyond its
timeoutMs, a 10 MB body (said or not), escape sequences, wrong JSON, a redirect. Each changes
nothing but the record of that call: the call goes on with the variable's default, the record says
what happened, and the next call through the same kept client is served as if nothing had happened.
Each auth kind sends the tool's own credential and never the platform's API key."""

from __future__ import annotations

import base64
import json

import pytest

from tests.webhook import HOSTILE, Webhook
from vap_console.sandbox.server import RunningSandbox

from .calling import ARJUN, calling, greeting_and_record, hook, point_lookup_at
from .socket_calls import account_of

__all__ = ["calling", "hook"]  # fixtures
API_KEY = "sk_sandbox_agent"  # the key the calls are made with: the platform's


async def next_call_is_unharmed(sandbox: RunningSandbox, hook: Webhook) -> None:
    point_lookup_at(sandbox, hook.url + "/ok")
    greeting, record = await greeting_and_record(sandbox)
    assert greeting == ARJUN.format(name="Asha Rao") and record["toolCalls"][0]["error"].count("lastVisit") == 1


@pytest.mark.parametrize(("route", "status", "error"), [
    ("/slow", None, "no complete answer within 2000 ms"),
    ("/huge", 200, "1,048,576 bytes or more: not read whole"),
    ("/huge-declared", 200, "10,485,760 bytes or more: not read whole"),
    ("/html", 200, "not JSON"),
    ("/redirect", 302, "302"),
])
async def test_a_hostile_webhook_leaves_the_default_and_only_its_record_says_so(
        calling, hook: Webhook, route: str, status: int | None, error: str) -> None:
    point_lookup_at(calling, hook.url + route)
    greeting, record = await greeting_and_record(calling)
    assert greeting == ARJUN.format(name="there")  # the call went on, with customer_name's default
    [entry] = record["toolCalls"]
    assert entry["status"] == status and entry["outputs"] == {}
    assert error in entry["error"], entry["error"]
    assert [a.path for a in hook.arrived] == [route]  # a redirect is not followed: /ok never asked
    await next_call_is_unharmed(calling, hook)


async def test_escape_sequences_in_the_answer_are_kept_as_data_and_shown_literally(calling, hook: Webhook) -> None:
    point_lookup_at(calling, hook.url + "/hostile")
    greeting, record = await greeting_and_record(calling)
    name = HOSTILE["data"]["name"]
    # The record keeps exactly what the webhook said (JSON escapes it on the wire), as the platform
    # would fill the variable with it; nothing in the sandbox interprets it.
    [entry] = record["toolCalls"]
    assert entry["status"] == 200 and entry["outputs"]["customer_name"] == name
    assert greeting == ARJUN.format(name=name)
    await next_call_is_unharmed(calling, hook)


def test_escape_sequences_from_a_webhook_reach_talk_output_as_visible_stand_ins(tmp_path, capsys, hook) -> None:
    from tests.talk.cli import SPEED, Talker
    from vap_console.sandbox.server import start_in_thread
    from vap_console.sandbox.voice.tool_calls import ToolCalling

    with start_in_thread(speed=SPEED, call_tools=ToolCalling()) as sandbox:
        point_lookup_at(sandbox, hook.url + "/hostile")
        talker = Talker(sandbox, tmp_path, capsys)
        result = talker("agents", "talk", talker.ref("Arjun"), "--say", "hi", "--yes")
    assert result.code == 0, result.err
    assert "\x1b" not in result.out + result.err and "\x9b" not in result.out + result.err
    assert "␛]0;pwned" in result.out  # shown literally, never run


AUTH = {
    "bearer": ({"type": "bearer"}, {"token": "tok-bearer-1234"}, ("authorization", "Bearer tok-bearer-1234")),
    "basic": ({"type": "basic", "username": "desk"}, {"password": "pw-basic-5678"},
              ("authorization", "Basic " + base64.b64encode(b"desk:pw-basic-5678").decode())),
    "api_key": ({"type": "api_key", "headerName": "X-Shop-Key"}, {"token": "tok-key-9012"},
                ("x-shop-key", "tok-key-9012")),
    "none": ({"type": "none"}, {}, None),
}


@pytest.mark.parametrize("kind", list(AUTH))
async def test_each_auth_kind_sends_the_tools_credential_and_never_the_platform_key(
        calling, hook: Webhook, kind: str) -> None:
    auth, secret, header = AUTH[kind]
    point_lookup_at(calling, hook.url + "/echo-secret",
                    auth={"headerName": "X-API-Key", "username": "", **auth, "hasSecret": bool(secret)})
    next(t for t in account_of(calling).tools.values() if t.name == "lookup_customer").secret = secret
    greeting, record = await greeting_and_record(calling)
    [got] = hook.arrived
    sent = {k: v for k, v in got.headers.items() if k in ("authorization", "x-shop-key", "x-api-key")}
    assert sent == (dict([header]) if header else {})
    everything = json.dumps(got.headers) + got.query + got.body.decode()
    assert API_KEY not in everything and "sk_sandbox" not in everything  # the platform's key never goes
    assert greeting == ARJUN.format(name="x")  # /echo-secret's data.name
    for value in secret.values():  # masked on the record
        assert value not in json.dumps(record)
