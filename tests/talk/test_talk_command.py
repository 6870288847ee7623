"""`vap agents talk REF --say …`: holds a typed conversation over the agent socket, prints the
transcript (or one JSON object per event), asks before a billed call like `webcall`."""

from __future__ import annotations

from tests.sandbox.socket_calls import PRIYA_GREETING, sandbox_with
from tests.talk.cli import Talker
from vap_console.sandbox.clock import SystemClock
from vap_console.sandbox.keys import by_name


def test_a_conversation_prints_its_transcript_and_says_how_it_ended(talker: Talker) -> None:
    result = talker("agents", "talk", talker.ref(), "--say", "What are your opening hours?", "--yes")
    assert result.code == 0, result.err
    assert result.out.splitlines() == [
        f"agent: {PRIYA_GREETING}",
        "you: What are your opening hours?",
        "agent: This is Priya. You said: What are your opening hours? How else can I help?",
    ]
    assert "This charges your account: a call over the agent socket is billed from the moment the agent answers" \
        in result.said
    assert "You hung up. Billed for" in result.said
    (call,) = talker.started
    assert call[1:] == (talker.ref(), "talk") and call[0]


def test_the_agent_ending_the_call_stops_the_script(talker: Talker) -> None:
    result = talker("agents", "talk", talker.ref(), "--say", "bye", "--say", "hello?", "--yes")
    assert result.code == 0, result.err
    assert result.out.splitlines()[-1] == "agent: Thank you for calling Sharma Dental Clinic. Goodbye!"
    assert "The agent ended the call." in result.said and "(1 --say not answered: the call had ended)" in result.said


def test_json_prints_one_object_per_event_with_audio_summarised(talker: Talker) -> None:
    result = talker("agents", "talk", talker.ref(), "--say", "hi", "--yes", "--json")
    assert result.code == 0, result.err
    lines = result.lines()
    kinds = [line["type"] for line in lines]
    assert kinds[0] == "session.created" and kinds[-2:] == ["session.closed", "client.closed"]
    assert {"agent_start_talking", "transcript.delta", "transcript", "agent_stop_talking"} <= set(kinds)
    audio = [line for line in lines if line["type"] == "output_audio.delta"]
    assert audio and all(line == {"at": line["at"], "t": line["t"], "type": "output_audio.delta", "bytes": 960}
                         for line in audio)
    assert all(isinstance(line["t"], float | int) and line["at"].endswith("+00:00") for line in lines)
    assert lines[-2]["reason"] == "client_requested" and lines[-1]["call_id"] == lines[0]["call_id"]


def test_money_is_refused_without_a_terminal_unless_yes(talker: Talker) -> None:
    result = talker("agents", "talk", talker.ref(), "--say", "hi")
    assert result.code == 2 and "costs money and there is no terminal to ask on: pass --yes" in result.said
    assert talker.started == []
    assert all(c.kind != "socket" for c in talker.sandbox.state.account(by_name("agent")).calls.values())


def test_a_draft_is_explained_and_nothing_is_sent(talker: Talker) -> None:
    account = talker.sandbox.state.account(by_name("agent"))
    draft = next(a.handle for a in account.agents.values() if not a.deployed)
    result = talker("agents", "talk", draft, "--say", "hi", "--yes")
    assert result.code == 1 and "is a draft: a draft takes no calls. Deploy it first" in result.said
    assert talker.started == []


def test_a_blank_say_is_a_usage_error() -> None:
    from vap_console.scripting.root import run

    assert run(["agents", "talk", "ua_x", "--say", " ", "--yes"]) == 2


def test_a_refused_start_and_a_dropped_line_are_told_with_exit_1(tmp_path, capsys) -> None:
    with sandbox_with(SystemClock(100), "socket_start_error=insufficient_balance") as sandbox:
        talker = Talker(sandbox, tmp_path, capsys)
        result = talker("agents", "talk", talker.ref(), "--say", "hi", "--yes")
    assert result.code == 1 and result.out == ""
    assert "insufficient_balance" in result.said and "socket closed with 4000" in result.said
    assert "Top up" in result.said

    with sandbox_with(SystemClock(100), "socket_drop_after=2") as sandbox:
        talker = Talker(sandbox, tmp_path, capsys)
        result = talker("agents", "talk", talker.ref(), "--say", "hi", "--say", "more", "--yes",
                        "--timeout", "5")
    assert result.code == 1 and "line_dropped" in result.said and "socket closed with 1011" in result.said
    assert "nothing is re-dialled by itself" in result.said
