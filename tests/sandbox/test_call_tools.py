"""`vap sandbox serve --call-tools`: at the start of an agent-socket call each before_call tool's
webhook is called for real (api/tool_call.py's request), its outputs fill the greeting's variables,
a failure keeps the default, a host that is not loopback is never connected to, and each call is
kept on the call record with its secret masked."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest

from tests.sandbox.socket_calls import instant
from tests.webhook import Webhook
from vap_console.sandbox.clock import VirtualClock
from vap_console.sandbox.server import RunningSandbox, start_in_thread
from vap_console.sandbox.voice.tool_calls import ToolCalling

from .socket_calls import account_of, dialled, register

ARJUN = ("Hello {name}, this is Priya from Sharma Dental Clinic. You enquired about a flat with us. "
         "Is this a good time to talk?")
STORED_TOKEN = "sandbox-crm-token"  # the seeded lookup_customer's credential


@pytest.fixture
def hook() -> Iterator[Webhook]:
    with Webhook() as server:
        yield server


@pytest.fixture
def calling(sandbox_clock: VirtualClock) -> Iterator[RunningSandbox]:
    with start_in_thread(clock=sandbox_clock, call_tools=ToolCalling(), faults=instant()) as running:
        yield running


def _point_lookup_at(sandbox: RunningSandbox, url: str) -> None:
    tool = next(t for t in account_of(sandbox).tools.values() if t.name == "lookup_customer")
    tool.config = {**tool.config, "url": url, "timeoutMs": 2000}


async def _greeting_and_record(sandbox: RunningSandbox) -> tuple[str, dict]:
    registered = await register(sandbox, "Arjun")
    async with dialled(sandbox, registered["access_token"]) as call:
        await call.until("agent_start_talking", timeout=60)
        call.clock.advance(30)  # longer than the greeting takes to say
        events = await call.until("agent_stop_talking")
    record = account_of(sandbox).calls[registered["call_id"]]
    return events[-2]["text"], {"toolCalls": record.tool_calls, "id": registered["call_id"]}


async def test_a_before_call_tools_real_outputs_fill_the_greeting(calling, hook: Webhook) -> None:
    _point_lookup_at(calling, hook.url + "/ok")
    greeting, record = await _greeting_and_record(calling)
    assert greeting == ARJUN.format(name="Asha Rao")  # data.name from the webhook, not the stand-in
    [got] = hook.arrived
    assert got.headers["authorization"] == f"Bearer {STORED_TOKEN}"  # the tool's own credential
    assert not any("sk_sandbox" in v for v in got.headers.values())  # never the platform's key
    assert got.query == "phone="  # {phone_number}: a socket call has none
    [entry] = record["toolCalls"]
    assert entry["name"] == "lookup_customer" and entry["status"] == 200 and entry["ms"] is not None
    assert entry["outputs"] == {"customer_name": "Asha Rao", "customer_tier": "gold"}
    assert "data.lastVisit" in entry["error"]  # an output path missing is said, the rest still fill
    assert STORED_TOKEN not in json.dumps(record)


async def test_a_failing_webhook_leaves_the_default_and_is_recorded(calling, hook: Webhook) -> None:
    _point_lookup_at(calling, hook.url + "/status/500")
    greeting, record = await _greeting_and_record(calling)
    assert greeting == ARJUN.format(name="there")  # customer_name's default
    [entry] = record["toolCalls"]
    assert entry["status"] == 500 and entry["outputs"] == {} and "500" in entry["error"]


async def test_a_webhook_past_its_timeout_leaves_the_default(calling, hook: Webhook) -> None:
    _point_lookup_at(calling, hook.url + "/slow")
    greeting, record = await _greeting_and_record(calling)
    assert greeting == ARJUN.format(name="there")
    assert "no complete answer within 2000 ms" in record["toolCalls"][0]["error"]


async def test_a_host_that_is_not_loopback_is_never_called(calling) -> None:
    # The seed's own URL (crm.sharmadental.example): refused before any connection is opened.
    greeting, record = await _greeting_and_record(calling)
    assert greeting == ARJUN.format(name="there")
    [entry] = record["toolCalls"]
    assert entry["status"] is None and "crm.sharmadental.example is not called" in entry["error"]


async def test_without_call_tools_the_stand_ins_answer(live_sandbox, hook: Webhook) -> None:
    _point_lookup_at(live_sandbox, hook.url + "/ok")
    greeting, record = await _greeting_and_record(live_sandbox)
    assert greeting == ARJUN.format(name="Rahul Verma") and hook.arrived == [] and record["toolCalls"] == []


@pytest.mark.parametrize(("url", "called"), [
    ("http://127.0.0.1:9/x", True), ("http://[::1]:9/x", True), ("http://localhost/x", True),
    ("https://hooks.example/x", True), ("https://HOOKS.example/x", True),
    ("https://other.example/x", False), ("http://api.localhost/x", False), ("http://10.0.0.1/x", False),
])
def test_only_loopback_and_the_hosts_named_are_called(url: str, called: bool) -> None:
    assert (ToolCalling(frozenset({"hooks.example"})).refusal(url) is None) is called


def test_serve_takes_call_tools_and_its_hosts() -> None:
    from vap_console.cli import build_parser

    args = build_parser().parse_args(["sandbox", "serve", "--call-tools", "--call-tools-host", "hooks.example",
                                      "--call-tools-host", "staging.example"])
    assert args.call_tools and args.call_tools_host == ["hooks.example", "staging.example"]


def _point_booking_at(sandbox: RunningSandbox, url: str) -> None:
    tool = next(t for t in account_of(sandbox).tools.values() if t.name == "book_appointment")
    tool.config = {**tool.config, "url": url, "timeoutMs": 2000,
                   "outputs": [{"name": "appointment_slot", "path": "data.visits.0.date"}]}


async def _booked(sandbox: RunningSandbox, turn: str, reply: str) -> tuple[str, list]:
    registered = await register(sandbox)
    async with dialled(sandbox, registered["access_token"]) as call:
        await call.next(timeout=60)
        await call.greeted()
        events = await call.answered(turn, reply)
        await call.send(type="session.close")
        await call.to_close()
    return events[-2]["text"], account_of(sandbox).calls[registered["call_id"]].tool_calls


async def test_a_turn_naming_a_during_call_tool_calls_it_with_the_turns_arguments(calling, hook: Webhook) -> None:
    _point_booking_at(calling, hook.url + "/ok")
    reply = "Done: I used book appointment: appointment slot is 2026-01-05."
    said, entries = await _booked(calling, "Please book_appointment doctor: Mehta, slot=Friday 10am", reply)
    assert said == reply  # the answer uses what the webhook returned
    [got] = hook.arrived
    assert got.method == "POST"
    assert json.loads(got.body) == {"patient": "there", "doctor": "Mehta", "slot": "Friday 10am"}
    booking = entries[-1]
    assert booking["name"] == "book_appointment" and booking["status"] == 200
    assert booking["outputs"] == {"appointment_slot": "2026-01-05"}
    assert "sandbox-password" not in json.dumps(entries)  # its basic auth's stored password, masked


async def test_a_during_call_tool_missing_an_argument_is_not_sent(calling, hook: Webhook) -> None:
    _point_booking_at(calling, hook.url + "/ok")
    reply = "I tried book appointment, but it did not work."
    said, entries = await _booked(calling, "book appointment doctor: Mehta", reply)
    assert said == reply and hook.arrived == []
    assert "nothing fills {slot} in body" in entries[-1]["error"]


@pytest.mark.parametrize(("turn", "args"), [
    ("book_appointment doctor: Mehta, slot: Friday 10am", {"doctor": "Mehta", "slot": "Friday 10am"}),
    ("book it; doctor=Mehta; slot = Mon", {"doctor": "Mehta", "slot": "Mon"}),
    ("doctor: Mehta, time: 5pm", {"doctor": "Mehta"}),
    ("no pairs here", {}),
])
def test_a_turns_arguments_are_name_value_pairs(turn: str, args: dict[str, str]) -> None:
    from vap_console.sandbox.voice.tool_calls import arguments_in

    assert arguments_in(turn, ["doctor", "slot"]) == args


async def test_calls_share_one_kept_connection_to_a_webhook(calling, hook: Webhook) -> None:
    # A connection (and, for https, the CA bundle) per tool call added its setup to every answer.
    _point_lookup_at(calling, hook.url + "/ok")
    await _greeting_and_record(calling)
    await _greeting_and_record(calling)
    first, second = hook.arrived
    assert first.peer and first.peer == second.peer


async def test_each_tool_call_is_told_on_the_socket_as_its_documented_frame(calling, hook: Webhook) -> None:
    import jsonschema

    from vap_console.sandbox.voice.asyncapi import build_asyncapi

    _point_lookup_at(calling, hook.url + "/ok")
    _point_booking_at(calling, hook.url + "/status/500")
    registered = await register(calling)
    async with dialled(calling, registered["access_token"]) as call:
        await call.next(timeout=60)
        await call.greeted()
        await call.answered("book_appointment doctor: Mehta, slot: Fri", "I tried book appointment, but it did not work.")
        await call.send(type="session.close")
        await call.to_close()
    frames = [e for e in call.events if e["type"] == "sandbox.tool_call"]
    assert [(f["name"], f["status"]) for f in frames] == [("lookup_customer", 200), ("book_appointment", 500)]
    assert frames[0]["outputs"]["customer_name"] == "Asha Rao"
    schema = build_asyncapi()["components"]["messages"]["sandboxToolCall"]["payload"]
    for frame in frames:
        jsonschema.validate(frame, schema)
        assert set(frame) == set(schema["properties"])
    assert STORED_TOKEN not in json.dumps(frames) and "sandbox-password" not in json.dumps(frames)


def test_talk_json_emits_each_tool_call_as_it_happens(tmp_path, capsys, hook: Webhook) -> None:
    from tests.talk.cli import SPEED, Talker

    with start_in_thread(speed=SPEED, call_tools=ToolCalling()) as sandbox:
        _point_lookup_at(sandbox, hook.url + "/ok")
        talker = Talker(sandbox, tmp_path, capsys)
        result = talker("agents", "talk", talker.ref(), "--say", "hi", "--yes", "--json")
    assert result.code == 0, result.err
    kinds = [line["type"] for line in result.lines()]
    assert kinds.index("sandbox.tool_call") == 1  # right after session.created, before the greeting
    frame = result.lines()[1]
    assert (frame["name"], frame["status"], frame["outputs"]["customer_name"]) == ("lookup_customer", 200, "Asha Rao")
