"""What Talk and `vap agents talk|test` show of each agent answer (issue 32 point 7): its answer
time is from the person's own turn, never from an older one; an answer that arrives whole (a
`transcript` with nothing before it) is the agent's, timed and in its place; and each event names
every part of the screen it changed, so nothing is left undrawn."""

from __future__ import annotations

import json

from vap_console.api.conversation import AUDIO, BILLING, LIVE, SPEAKING, STATUS, TURNS, Conversation
from vap_console.api.realtime import LineDropped, parse_event


def ev(at: float, **frame: object):
    return parse_event(json.dumps(frame), received_at=at)


def test_a_second_answer_after_one_typed_turn_is_not_timed_from_the_old_send() -> None:
    talk = Conversation()
    talk.apply(ev(1.0, type="session.created", call_id="c"))
    talk.sent(2.0)
    talk.apply(ev(2.5, type="agent_start_talking"))
    talk.apply(ev(3.0, type="transcript", role="assistant", text="One moment."))
    talk.apply(ev(3.1, type="agent_stop_talking"))
    # The agent speaks again by itself (a follow-up), nothing new was sent: no answer time.
    talk.apply(ev(9.0, type="agent_start_talking"))
    talk.apply(ev(9.5, type="transcript", role="assistant", text="Found it: Tuesday at nine."))
    first, second = talk.turns
    assert (first.answer_ms, second.answer_ms) == (500.0, None)
    # The next typed turn is timed from its own send.
    talk.sent(20.0)
    talk.apply(ev(20.75, type="transcript.delta", role="assistant", text="Sure"))
    assert talk.live is not None and talk.live.answer_ms == 750.0


def test_an_agent_transcript_with_nothing_before_it_is_the_agents_timed_answer() -> None:
    talk = Conversation()
    talk.apply(ev(0.0, type="session.created", call_id="c"))
    talk.sent(1.0)
    assert talk.apply(ev(1.25, type="transcript", role="assistant", text="We open at nine.")) == {TURNS, LIVE}
    [turn] = talk.turns
    assert (turn.role, turn.text, turn.answer_ms, turn.cut_off) == ("assistant", "We open at nine.", 250.0, False)
    assert talk.agent_said() == [turn] and talk.agent_turns == 1 and talk.settled_total == 1
    assert talk.live is None
    # That send is used up: the next answer, unprompted, is not timed from it.
    talk.apply(ev(5.0, type="agent_start_talking"))
    assert talk.live is not None and talk.live.answer_ms is None


def test_the_end_of_a_call_cut_mid_answer_names_every_part_it_changed() -> None:
    talk = Conversation()
    talk.apply(ev(0, type="session.created", call_id="c"))
    talk.apply(ev(1, type="agent_start_talking"))
    talk.apply(ev(1.5, type="transcript.delta", role="assistant", text="Half a"))
    assert talk.end(2.0, LineDropped("The line dropped")) == {STATUS, BILLING, SPEAKING, TURNS, LIVE}
    assert not talk.speaking and talk.live is None


def test_every_audio_frame_is_counted() -> None:
    talk = Conversation()
    for at in (1.0, 1.02, 1.04):
        assert talk.apply(ev(at, type="output_audio.delta", audio="AAAAAAAA")) == {AUDIO}
    assert (talk.audio_frames, talk.audio_bytes) == (3, 18)


def test_a_persons_turn_names_the_turns_and_a_goodbye_or_an_error_the_status() -> None:
    talk = Conversation()
    assert talk.apply(ev(1, type="transcript", role="user", text="Hello?")) == {TURNS}
    assert talk.apply(ev(2, type="error", code="invalid_audio", message="Odd bytes.")) == {STATUS}
    assert talk.apply(ev(3, type="session.closed", reason="error")) == {STATUS}
    assert talk.how_it_ended == "The call ended on an error on the service's side."


def test_the_agent_stops_speaking_when_it_says_so() -> None:
    talk = Conversation()
    talk.apply(ev(1, type="agent_start_talking"))
    assert talk.apply(ev(2, type="agent_stop_talking")) == {SPEAKING}
    assert not talk.speaking
