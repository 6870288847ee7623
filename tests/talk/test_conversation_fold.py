"""The conversation model folds one socket event at a time and says which parts changed, so the
Talk screen redraws only those and the CLI reads the same state. No Textual, no socket."""

from __future__ import annotations

import sys

from vap_console.api import errors
from vap_console.api.conversation import AUDIO, BILLING, LIVE, SPEAKING, STATUS, TURNS, Conversation
from vap_console.api.realtime import LineDropped, parse_event


def ev(at: float, **frame: object):
    import json

    return parse_event(json.dumps(frame), received_at=at)


def test_the_model_imports_without_textual() -> None:
    import subprocess

    code = ("import sys, vap_console.api.conversation, vap_console.api.realtime; "
            "sys.exit('textual' in sys.modules)")
    assert subprocess.run([sys.executable, "-c", code], check=False).returncode == 0


def test_an_answer_streams_then_settles_and_only_changed_parts_are_named() -> None:
    talk = Conversation()
    assert talk.apply(ev(10.0, type="session.created", session_id="s", call_id="c1")) == {BILLING, STATUS}
    assert talk.call_id == "c1" and talk.billed_seconds(13.5) == 3.5
    assert talk.apply(ev(10.1, type="agent_start_talking", timestamp="t")) == {SPEAKING, LIVE}
    assert talk.speaking and talk.live is not None and talk.live.text == ""
    assert talk.apply(ev(10.2, type="transcript.delta", role="assistant", text="Hello")) == {LIVE}
    assert talk.apply(ev(10.25, type="output_audio.delta", audio="AAAA")) == {AUDIO}
    talk.apply(ev(10.3, type="transcript.delta", role="assistant", text="Hello there"))
    assert talk.live.text == "Hello there" and list(talk.turns) == []
    assert talk.apply(ev(10.4, type="transcript", role="assistant", text="Hello there.")) == {TURNS, LIVE}
    assert talk.live is None and [(t.role, t.text, t.cut_off) for t in talk.turns] == [
        ("assistant", "Hello there.", False)]
    assert talk.apply(ev(10.5, type="agent_stop_talking", timestamp="t")) == {SPEAKING}
    assert not talk.speaking and talk.audio_frames == 1 and talk.audio_bytes == 3


def test_a_typed_turn_times_the_answer_from_when_it_was_sent() -> None:
    talk = Conversation()
    talk.apply(ev(1.0, type="session.created", call_id="c"))
    talk.sent(2.0)
    talk.apply(ev(2.01, type="transcript", role="user", text="hi"))
    talk.apply(ev(2.25, type="agent_start_talking"))
    talk.apply(ev(2.5, type="transcript", role="assistant", text="Hello"))
    user, agent = talk.turns
    assert (user.role, user.text) == ("user", "hi")
    assert agent.answer_ms == 250.0 and talk.agent_said() == [agent]


def test_an_answer_read_before_the_turn_was_marked_sent_took_no_time() -> None:
    # The reader may take the agent's first frame off the socket just before the sender notes the
    # time its turn left: that answer is 0 ms, never a negative time.
    talk = Conversation()
    talk.sent(7.5)
    talk.apply(ev(7.25, type="agent_start_talking"))
    assert talk.live.answer_ms == 0.0


def test_a_line_typed_while_the_agent_speaks_comes_after_the_turn_it_typed_over() -> None:
    # The greeting is still arriving when the person's typed line is heard: the greeting began
    # first, so the transcript reads greeting, then the line, then the answer to it.
    talk = Conversation()
    talk.apply(ev(0, type="session.created", call_id="c"))
    talk.apply(ev(1, type="agent_start_talking"))
    talk.apply(ev(1.5, type="transcript.delta", role="assistant", text="Namaste! How may"))
    assert talk.apply(ev(2, type="transcript", role="user", text="Opening hours?")) == {LIVE}
    assert list(talk.turns) == [] and [t.text for t in talk.held] == ["Opening hours?"]
    talk.apply(ev(3, type="transcript", role="assistant", text="Namaste! How may I help?"))
    talk.apply(ev(4, type="agent_start_talking"))
    talk.apply(ev(5, type="transcript", role="assistant", text="We open at nine."))
    assert [(t.role, t.text) for t in talk.turns] == [
        ("assistant", "Namaste! How may I help?"), ("user", "Opening hours?"), ("assistant", "We open at nine.")]
    assert talk.settled_total == 3 and talk.held == []


def test_an_interruption_marks_how_much_had_been_said() -> None:
    talk = Conversation()
    talk.apply(ev(0, type="session.created", call_id="c"))
    talk.apply(ev(1, type="agent_start_talking"))
    talk.apply(ev(2, type="transcript.delta", role="assistant", text="Our hours are"))
    assert talk.apply(ev(3, type="interruption")) == {LIVE, TURNS}
    talk.apply(ev(3.1, type="transcript", role="assistant", text="Our hours are"))
    talk.apply(ev(3.2, type="agent_stop_talking"))
    (turn,) = talk.turns
    assert turn.interrupted and turn.interrupted_at == "Our hours are" and turn in talk.turns


def test_the_turns_are_bounded() -> None:
    talk = Conversation(max_turns=3)
    for i in range(5):
        talk.apply(ev(i, type="transcript", role="user", text=str(i)))
    assert [t.text for t in talk.turns] == ["2", "3", "4"]


def test_the_end_is_told_and_billing_stops() -> None:
    talk = Conversation()
    talk.apply(ev(0, type="session.created", call_id="c"))
    talk.apply(ev(5, type="session.closed", reason="max_duration"))
    assert talk.end(6.0) >= {STATUS, BILLING}
    assert talk.billed_seconds(100) == 6.0 and "longest allowed length" in talk.how_it_ended

    dropped = Conversation()
    dropped.apply(ev(0, type="session.created", call_id="c"))
    dropped.apply(ev(1, type="agent_start_talking"))
    dropped.apply(ev(1.5, type="transcript.delta", role="assistant", text="Half a"))
    assert TURNS in dropped.end(2.0, LineDropped("The line dropped during the call: socket closed with 1011"))
    assert [(t.text, t.cut_off) for t in dropped.turns] == [("Half a", True)] and not dropped.speaking
    assert "socket closed with 1011" in dropped.how_it_ended


def test_error_frames_are_kept_and_unknown_events_change_nothing() -> None:
    talk = Conversation()
    assert talk.apply(ev(0, type="error", code="invalid_audio", message="odd bytes")) == {STATUS}
    assert talk.errors_seen[0].code == "invalid_audio"
    assert talk.apply(ev(0, type="agent_thinking")) == set()
    talk.end(1.0, errors.InsufficientBalance("no money"))
    assert "Top up" in talk.how_it_ended


def test_an_interruption_marks_the_agents_latest_answer_only() -> None:
    talk = Conversation()
    talk.apply(ev(0, type="session.created", call_id="c"))
    talk.apply(ev(1, type="transcript", role="assistant", text="Hello, Sharma Dental."))
    talk.apply(ev(2, type="transcript", role="user", text="When are you open?"))
    talk.apply(ev(3, type="agent_start_talking"))
    talk.apply(ev(4, type="transcript", role="assistant", text="Nine to five, Monday to Saturday."))
    # Settled, but its audio still plays: speaking over it interrupts that answer.
    assert talk.speaking and talk.live is None
    talk.apply(ev(5, type="interruption"))
    greeting, question, answer = talk.turns
    assert answer.interrupted_at == "Nine to five, Monday to Saturday."
    assert not greeting.interrupted and not question.interrupted

    # A new answer in progress is the one marked, not the settled one before it.
    talk.apply(ev(6, type="agent_stop_talking"))
    talk.apply(ev(7, type="agent_start_talking"))
    talk.apply(ev(8, type="transcript.delta", role="assistant", text="Anything"))
    talk.apply(ev(9, type="interruption"))
    assert talk.live.interrupted_at == "Anything" and talk.turns[0].interrupted_at is None


def test_an_interruption_never_marks_the_persons_own_turn() -> None:
    talk = Conversation()
    talk.apply(ev(0, type="session.created", call_id="c"))
    talk.apply(ev(1, type="agent_start_talking"))
    talk.apply(ev(2, type="transcript", role="assistant", text="Our hours are"))
    talk.apply(ev(3, type="transcript", role="user", text="wait"))
    talk.apply(ev(3.1, type="interruption"))
    assert not any(turn.interrupted for turn in talk.turns)


def test_every_settled_turn_is_counted_even_past_the_kept_ones() -> None:
    # The Talk screen mounts the turns settled since it last looked by this count.
    talk = Conversation(max_turns=2)
    assert talk.settled_total == 0
    talk.apply(ev(1, type="transcript", role="assistant", text="Hello."))
    talk.apply(ev(2, type="transcript", role="user", text="Hi."))
    talk.apply(ev(3, type="transcript", role="assistant", text="How can I help?"))
    assert talk.settled_total == 3 and talk.agent_turns == 2 and len(talk.turns) == 2


def test_nothing_is_billed_before_the_agent_answers_and_seconds_count_from_there() -> None:
    talk = Conversation()
    assert talk.billed_seconds(50.0) == 0.0
    talk.apply(ev(10.0, type="session.created", call_id="c"))
    assert talk.billed_seconds(10.25) == 0.25
    assert talk.billed_seconds(9.5) == 0.0  # a clock read just before the frame's own time


def test_the_persons_words_as_they_speak_are_not_shown_as_the_agents() -> None:
    talk = Conversation()
    talk.apply(ev(0, type="session.created", call_id="c"))
    assert talk.apply(ev(1, type="transcript.delta", role="user", text="When are")) == set()
    assert talk.live is None and list(talk.turns) == []


def test_a_new_call_is_neither_started_nor_speaking_nor_over() -> None:
    talk = Conversation()
    assert not talk.started and not talk.speaking and not talk.ended and talk.how_it_ended == ""
    talk.apply(ev(0, type="session.created", call_id="c"))
    assert talk.started and talk.how_it_ended == ""
    talk.end(3.0)  # the socket closed, neither a goodbye nor a failure known
    assert talk.ended and talk.how_it_ended == "The call ended."
