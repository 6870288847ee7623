"""What `vap calls to-test` writes from a call's transcript, tools, end and answer times
(scripting/call_to_test.py), read back by the test runner's own reader as `vap agents test` does."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from vap_console.scripting import agent_tests
from vap_console.scripting.call_to_test import CallToTestError, Recorded, file_of


def _read_back(tmp_path: Path, text: str) -> agent_tests.TestFile:
    path = tmp_path / "call.test.json"
    path.write_text(text, encoding="utf-8")
    return agent_tests.load(path)


def test_turns_become_says_and_answers_resemble_what_was_said(tmp_path: Path) -> None:
    call = Recorded("c1", "ua_front", [
        ("assistant", "Hello, this is Priya."), ("assistant", "How can I help?"),
        ("user", "I need"), ("user", "an appointment"),          # spoken in two pieces: one turn
        ("assistant", "Done: I used book appointment."),
        ("user", "Thanks"), ("assistant", "You are welcome."),
        ("user", "One more thing"),                             # the call ended before an answer
    ], tools=["book_appointment", "book_appointment", "end_call"], end_reason="ended")
    written = file_of(call, min_share=0.75)
    loaded = _read_back(tmp_path, written.text)
    (script,) = loaded.conversations
    assert loaded.agent == "ua_front"
    assert [t.say for t in script.turns] == ["I need an appointment", "Thanks"]
    assert script.greeting.resembles is not None and script.greeting.resembles.text == "Hello, this is Priya. How can I help?"
    first = script.turns[0].expect.resembles
    assert first is not None and first.text == "Done: I used book appointment." and first.min_share == 0.75
    assert [tool.name for tool in script.tools_called] == ["book_appointment", "end_call"]
    assert script.agent_ends_call is True
    assert any("last turn had no answer" in note for note in written.notes)
    assert script.gates.latency is None and any("no latency budget" in note for note in written.notes)


def test_kept_answer_times_become_a_latency_budget_with_the_stated_margin(tmp_path: Path) -> None:
    times = [400.0, 500.0, 600.0, 1200.0]
    call = Recorded("c2", "ua_front", [("user", "Hi"), ("assistant", "Hello")], tools=[], answer_ms=times)
    written = file_of(call, margin=0.5)
    script = _read_back(tmp_path, written.text).conversations[0]
    assert script.gates.latency is not None
    # nearest-rank p50 of 4 answers is the 2nd (500 ms), p95 the slowest; × 1.5, + 100 ms
    assert (script.gates.latency.p50_ms, script.gates.latency.p95_ms) == (850, 1900)
    assert "tools_called" not in json.loads(written.text)["conversations"][0]  # none were called
    assert any("× 1.5 + 100 ms" in note for note in written.notes)


def test_a_record_that_does_not_say_its_tools_leaves_them_out_and_says_so() -> None:
    written = file_of(Recorded("c3", "a", [("user", "Hi"), ("assistant", "Hello")], tools=None))
    assert "tools_called" not in written.data["conversations"][0]
    assert any("does not say which tools" in note for note in written.notes)


def test_terminal_control_in_a_transcript_is_escaped_in_the_file_and_reads_back_the_same(tmp_path: Path) -> None:
    said = "Hi \x1b]52;c;aGk=\x07 there \u202e"
    written = file_of(Recorded("c4", "a", [("user", "hello"), ("assistant", said)], tools=[]))
    assert "\x1b" not in written.text and "\u202e" not in written.text
    answer = _read_back(tmp_path, written.text).conversations[0].turns[0].expect.resembles
    assert answer is not None and answer.text == " ".join(said.split())


@pytest.mark.parametrize(("transcript", "why"), [
    ([], "has no transcript"),
    ([("assistant", "Hello")], "the caller said nothing the agent answered"),
    ([("assistant", "Hello"), ("user", "Hi?")], "the caller said nothing the agent answered"),
])
def test_a_call_with_nothing_to_test_is_refused_in_words(transcript: list[tuple[str, str]], why: str) -> None:
    with pytest.raises(CallToTestError, match=why):
        file_of(Recorded("c5", "a", transcript))


def test_the_answer_times_the_ledger_kept_for_the_call_are_read_with_its_record() -> None:
    from datetime import UTC, datetime
    from types import SimpleNamespace

    from vap_console.api.models.calls import CallRecord
    from vap_console.api.realtime import CallTools
    from vap_console.scripting.call_to_test import recorded_of

    record = CallRecord.model_validate({"id": "c6", "agentId": "agent-uuid", "endReason": "client_requested",
                                        "createdAt": datetime(2026, 11, 2, 9, tzinfo=UTC).isoformat(),
                                        "transcript": [{"role": "user", "content": "Hi"},
                                                       {"role": "assistant", "content": "Hello"}]})
    kept = SimpleNamespace(agent="ua_front", answer_times=(410.0, 380.0), transcript=(), end_reason=None,
                           created_at=None, noted_at="2026-11-02T09:00:00Z")
    recorded = recorded_of("c6", record, kept, CallTools(id="c6", toolsCalled=["lookup"]))  # type: ignore[arg-type]
    assert (recorded.agent, recorded.answer_ms, recorded.tools, recorded.when) == (
        "ua_front", [410.0, 380.0], ["lookup"], "2026-11-02")
    written = file_of(recorded)
    assert written.data["conversations"][0]["latency"] == {"p50_ms": 670, "p95_ms": 715}
    assert written.data["conversations"][0]["name"] == "call c6 of 2026-11-02"
