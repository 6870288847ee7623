"""`vap agents talk|test` against a hostile agent socket (issue 32, point 1): a frame of any depth
or size, a frame over the cap, session.created without a call id or twice, a flood of error frames
and of the person's transcripts. The call goes on or ends in words, the ledger keeps one row per
call, `vap agents test` still writes its JUnit, and what a call keeps stays bounded."""

from __future__ import annotations

import asyncio
import json
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.talk.cli import Talker
from tests.talk.hostile_socket import CREATED, GREETING, HostileSocket, Peer, client_kind, frame, hostile, polite
from vap_console.api import VapClient
from vap_console.api.conversation import MAX_ERRORS, MAX_HELD
from vap_console.scripting.dialogue import Run, converse

DEEP = "[" * 100_000


def scenario(tmp_path: Path, ref: str) -> str:
    path = tmp_path / "t.json"
    path.write_text(json.dumps({"agent": ref, "conversations": [{
        "name": "hostile", "greeting": {"contains": "hostile agent"},
        "turns": [{"say": "hours?", "expect": {"contains": "You said: hours?"}}]}]}), encoding="utf-8")
    return str(path)


@pytest.mark.parametrize("bad", [DEEP, "{" * 100_000, '{"type": "x", "a": ' + "[" * 500 + "]" * 500 + "}",
                                 "not json {", '{"no": "type"}'],
                         ids=["deep-list", "deep-object", "deep-field", "not-json", "no-type"])
def test_a_malformed_frame_is_reported_and_the_test_run_writes_its_junit(talker: Talker, tmp_path: Path,
                                                                       bad: str) -> None:
    with hostile(polite(before=[bad], each_turn=[bad])) as server:
        talker.client_class = client_kind(server)
        report = tmp_path / "report.xml"
        result = talker("agents", "test", scenario(tmp_path, talker.ref()), "--yes", "--junit", str(report))
    assert result.code == 0, result.out + result.err
    assert "2 expectations in 1 conversation: 2 held, 0 failed" in result.said
    suite = ET.parse(report).getroot().find("testsuite")
    assert suite.get("tests") == "2" and suite.get("failures") == "0"


def test_talk_tells_a_malformed_frame_and_goes_on(talker: Talker) -> None:
    with hostile(polite(before=[DEEP])) as server:
        talker.client_class = client_kind(server)
        result = talker("agents", "talk", talker.ref(), "--say", "hi", "--yes")
        as_json = talker("agents", "talk", talker.ref(), "--say", "hi", "--yes", "--json")
    assert result.code == 0, result.err
    assert result.out.splitlines() == [f"agent: {GREETING}", "agent: You said: hi"]
    assert ("warning: the service sent a frame this client cannot read (nested deeper than 32 levels); "
            "ignored, the call goes on") in result.said
    assert as_json.code == 0, as_json.err
    unread = [line for line in as_json.lines() if line["type"] == "?"]
    assert len(unread) == 1 and unread[0]["problem"] == "nested deeper than 32 levels"
    assert unread[0]["frame"] == "[" * 200


def test_a_frame_over_the_cap_ends_the_call_in_words_and_the_junit_is_written(talker: Talker,
                                                                             tmp_path: Path) -> None:
    huge = frame(type="transcript", role="assistant", text="a" * (5 * 2**20))
    with hostile(polite(each_turn=[huge])) as server:
        talker.client_class = client_kind(server)
        talked = talker("agents", "talk", talker.ref(), "--say", "hi", "--yes")
        report = tmp_path / "report.xml"
        tested = talker("agents", "test", scenario(tmp_path, talker.ref()), "--yes", "--junit", str(report))
    assert talked.code == 1
    assert ("The line dropped during the call: the server sent a frame larger than 4 MiB (the console's limit)"
            in talked.said), talked.said
    assert tested.code == 1
    failure = ET.parse(report).getroot().find("testsuite/testcase/failure")
    assert "the server sent a frame larger than 4 MiB" in failure.get("message")


@pytest.mark.parametrize("created", [
    [frame(type="session.created", session_id="s")],
    ["", frame(type="session.created", session_id="s2", call_id="call_second")],
], ids=["without-call-id", "twice"])
def test_a_call_started_oddly_goes_on_kept_once_with_its_junit(talker: Talker, tmp_path: Path,
                                                               created: list[str]) -> None:
    with hostile(polite(created=created[0], before=created[1:])) as server:
        talker.client_class = client_kind(server)
        talked = talker("agents", "talk", talker.ref(), "--say", "hi", "--yes")
        report = tmp_path / "report.xml"
        tested = talker("agents", "test", scenario(tmp_path, talker.ref()), "--yes", "--junit", str(report))
    assert talked.code == 0, talked.err
    assert talked.out.splitlines() == [f"agent: {GREETING}", "agent: You said: hi"]
    assert tested.code == 0, tested.out + tested.err
    assert ET.parse(report).getroot().find("testsuite").get("failures") == "0"
    # One row per call: the first session.created's id, else register-call's; never the second's.
    kept = talker.started
    assert len(kept) == 2 and len({call_id for call_id, _, _ in kept}) == 2
    assert all(call_id and call_id != "call_second" for call_id, _, _ in kept)
    hostile_ids = {call_id for call_id, _, _ in kept if call_id.startswith("call_hostile_")}
    assert hostile_ids == ({"call_hostile_1", "call_hostile_2"} if created[0] == "" else set())


def test_a_call_with_no_id_anywhere_is_said_not_kept(talker: Talker) -> None:
    class NoIdFromRegister(VapClient):
        async def register_call(self, agent_ref: str):  # type: ignore[no-untyped-def]
            registered = await super().register_call(agent_ref)
            return registered.model_copy(update={"call_id": None})

    with hostile(polite(created=frame(type="session.created", session_id="s"))) as server:
        talker.client_class = client_kind(server, NoIdFromRegister)
        result = talker("agents", "talk", talker.ref(), "--say", "hi", "--yes")
    assert result.code == 0, result.err
    assert "warning: the service gave this call no id (neither register-call nor session.created): it is not " \
           "kept in the calls ledger" in result.said
    assert talker.started == []


FLOOD = 5_000


def flooding_each_answer(peer: Peer) -> object:
    """A plain agent whose answer arrives under a flood: while it is arriving, FLOOD error frames
    and as many of the person's transcripts; then FLOOD settled answers of the agent's own."""

    async def behave(peer: Peer) -> None:
        listening = asyncio.create_task(peer.listen())
        await peer.ws.send(CREATED)
        await peer.say(GREETING)
        text = await peer.turns.get()
        await peer.ws.send(frame(type="agent_start_talking"))
        for n in range(FLOOD):
            await peer.ws.send(frame(type="transcript.delta", role="assistant", text=f"You said {n}"))
            await peer.ws.send(frame(type="error", code="bad_frame", message=f"Could not parse frame {n}."))
            await peer.ws.send(frame(type="transcript", role="user", text=f"hello {n}?"))
            if n % 64 == 0:
                await asyncio.sleep(0)  # a send that need not wait does not yield: let it read
        for n in range(FLOOD):
            await peer.ws.send(frame(type="transcript", role="assistant", text=f"answer {n}"))
            if n % 64 == 0:
                await asyncio.sleep(0)
        await peer.ws.send(frame(type="transcript", role="assistant", text=f"You said: {text}"))
        await peer.ws.send(frame(type="agent_stop_talking"))
        await peer.hung_up.wait()
        await peer.goodbye()
        listening.cancel()

    return behave(peer)


async def conversed(talker: Talker, server: HostileSocket, turns: list[str], **options: Any) -> Run:
    """The scripted conversation `vap agents talk|test` hold, with the agent socket at ``server``."""
    client = client_kind(server)(talker.sandbox.base_url, "sk_sandbox_agent", transport=httpx.AsyncHTTPTransport())
    async with client:
        return await converse(client, talker.ref(), turns, **options)


async def test_a_flood_leaves_every_per_call_list_bounded(talker: Talker) -> None:
    with hostile(flooding_each_answer) as server:
        run = await conversed(talker, server, ["hi"], turn_timeout=600)
    talk = run.conversation
    assert talk.failure is None and run.no_answer is None and not run.unsent
    assert talk.errors_total == FLOOD and len(talk.errors_seen) == MAX_ERRORS
    assert len(talk.held) <= MAX_HELD and len(talk.turns) == talk.max_turns
    # The answers by what they answer: a stream of the agent's turns is kept as the turns are.
    assert all(len(segment) <= talk.max_turns for segment in run.segments)


def ignoring_the_hang_up(peer: Peer) -> object:
    """Greets, answers nothing, and never answers session.close: the socket left open."""

    async def behave(peer: Peer) -> None:
        await peer.ws.send(CREATED)
        await peer.say(GREETING)
        await peer.listen()  # until the client goes

    return behave(peer)


async def test_a_server_that_ignores_the_hang_up_is_closed_from_here_and_it_is_said(talker: Talker) -> None:
    from vap_console.scripting.talk_output import end_of

    with hostile(ignoring_the_hang_up) as server:
        run = await conversed(talker, server, [], hangup_wait=0.2)
        peer = server.peers[0]
        assert peer.hung_up.is_set()
        for _ in range(200):  # the server's side sees the connection end (its loop, its thread)
            if peer.ws.state.name == "CLOSED":
                break
            await asyncio.sleep(0.05)
        assert peer.ws.state.name == "CLOSED"
    assert run.hangup_unanswered
    words, code = end_of(run)
    assert code == 0 and words.startswith("You hung up; the service did not confirm it in time, so the "
                                          "connection was closed from here. Billed for")
