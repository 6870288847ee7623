"""The agent socket's parser never raises, whatever a frame's depth or size (issue 32, point 1:
'[' * 100000 raised RecursionError out of it and stopped `vap agents test` without its JUnit), and
a call keeps only bounded lists however many frames a server sends."""

from __future__ import annotations

import json

import pytest
from websockets.exceptions import ConnectionClosed
from websockets.frames import Close

from tests.talk.test_how_a_call_ends_is_told import CREATED, GOODBYE, Scripted, call_over
from vap_console.api.conversation import MAX_ERRORS, MAX_HELD, MAX_TEXT, Conversation
from vap_console.api.realtime import MAX_DEPTH, LineDropped, ServerEvent, UnknownEvent, parse_event


def nested(depth: int) -> str:
    """A transcript frame whose lists and objects nest ``depth`` levels deep."""
    extra = json.loads("[" * (depth - 1) + "]" * (depth - 1))
    return json.dumps({"type": "transcript", "text": "hi", "extra": extra})


@pytest.mark.parametrize(("raw", "problem"), [
    ("[" * 100_000, f"nested deeper than {MAX_DEPTH} levels"),
    ('{"a":' * 100_000, f"nested deeper than {MAX_DEPTH} levels"),
    (nested(MAX_DEPTH + 1), f"nested deeper than {MAX_DEPTH} levels"),
    ("x" * 5_000_000, "not JSON"),
    (b"\xff\xfe{", "not JSON"),
    ("[1, 2]", 'not a JSON object with a "type"'),
    ('{"type": 5}', 'not a JSON object with a "type"'),
], ids=["deep-list", "deep-object", "deep-field", "5-MB-not-json", "not-utf8", "a-list", "type-not-a-string"])
def test_a_malformed_frame_is_an_unknown_event_saying_why(raw: str | bytes, problem: str) -> None:
    event = parse_event(raw, received_at=1.0)
    assert isinstance(event, UnknownEvent) and event.type == "?"
    assert event.problem == problem and len(event.frame) <= 200


def test_nesting_up_to_the_limit_is_a_frame_like_any_other() -> None:
    event = parse_event(nested(MAX_DEPTH))
    assert event.type == "transcript" and event.text == "hi"


async def test_the_call_goes_on_after_a_malformed_frame() -> None:
    said = json.dumps({"type": "transcript", "role": "assistant", "text": "Hello."})
    _, seen, failure = await call_over(Scripted(CREATED, "[" * 100_000, said, GOODBYE, close=1000))
    assert failure is None and seen == ["session.created", "?", "transcript", "session.closed"]


async def test_a_frame_over_the_cap_is_told_as_such() -> None:
    class TooBig(Scripted):
        def _closed(self) -> ConnectionClosed:  # as websockets ends it: this client sent 1009
            self.ended = True
            return ConnectionClosed(None, Close(1009, "over size limit"))

    _, _, failure = await call_over(TooBig(CREATED, close=1009))
    assert isinstance(failure, LineDropped) and failure.close_code == 1009
    assert str(failure).startswith("The line dropped during the call: the server sent a frame larger than 4 MiB "
                                   "(the console's limit)")


def frame(**fields: object) -> ServerEvent:
    """A typed event, as the socket hands it over."""
    return parse_event(json.dumps(fields), received_at=0.0)


def test_every_per_call_list_is_bounded() -> None:
    talk = Conversation()
    talk.apply(frame(type="session.created", call_id="c"))
    talk.apply(frame(type="transcript.delta", role="assistant", text="Let me"))
    for n in range(5_000):
        talk.apply(frame(type="error", code="bad", message=str(n)))
        talk.apply(frame(type="transcript", role="user", text=f"hello {n}"))
        talk.apply(parse_event("[" * 50))
    assert talk.errors_total == 5_000 and len(talk.errors_seen) == MAX_ERRORS
    assert talk.errors_seen[-1].message == "4999"
    assert len(talk.held) == MAX_HELD and talk.held[-1].text == "hello 4999"
    # What no longer fits is settled, in the order it was said, not lost.
    assert talk.turns[-1].text == f"hello {4999 - MAX_HELD}" and len(talk.turns) == talk.max_turns
    assert talk.settled_total == 5_000 - MAX_HELD and talk.malformed == 5_000
    talk.apply(frame(type="transcript", role="assistant", text="x" * (MAX_TEXT * 10)))
    settled = [t for t in talk.turns if t.role == "assistant"][-1]
    assert len(settled.text) == MAX_TEXT and settled.text.endswith("…")
    assert [t.text for t in list(talk.turns)[-MAX_HELD:]] == [f"hello {n}" for n in range(5_000 - MAX_HELD, 5_000)]


def test_a_second_session_created_changes_nothing() -> None:
    talk = Conversation(call_id="from_register")
    talk.apply(parse_event(json.dumps({"type": "session.created"}), received_at=1.0))
    assert talk.call_id == "from_register" and talk.started_at == 1.0
    talk.apply(parse_event(json.dumps({"type": "session.created", "call_id": "other"}), received_at=9.0))
    assert talk.call_id == "from_register" and talk.started_at == 1.0 and talk.created_again == 1
    assert talk.billed_seconds(11.0) == 10.0
