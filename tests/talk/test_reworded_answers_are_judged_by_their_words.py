"""A test file's `resembles` expectation: an answer holds when it says at least `min_share` of the
recorded answer's distinct words (any case, punctuation aside), so a reworded answer passes and one
about something else fails, saying the share it reached; a bad value is refused before any call."""

from __future__ import annotations

from pathlib import Path

from tests.talk.cli import Talker
from tests.talk.gates import PRIYA, write


def _suite(text: str, share: float | str = 0.6) -> dict[str, object]:
    return {"agent": PRIYA, "conversations": [{"name": "hours", "turns": [
        {"say": "What are your support hours?", "expect": {"resembles": {"text": text, "min_share": share}}}]}]}


def test_a_reworded_answer_holds_and_another_answer_fails_with_its_share(talker: Talker, tmp_path: Path) -> None:
    # The sandbox says "The support hours is 9 am to 7 pm, Monday to Saturday."
    reworded = write(tmp_path, _suite("Support hours: Monday to Saturday, from 9 am until 7 pm"), "reworded.json")
    held = talker("agents", "test", reworded, "--yes")
    assert held.code == 0, held.out + held.err
    assert "PASS  hours › answer 1 ('What are your support hours?') resembles the recorded answer" in held.out
    other = write(tmp_path, _suite("We close early on Sundays and public holidays"), "other.json")
    failed = talker("agents", "test", other, "--yes")
    assert failed.code == 1
    assert "(at least 60 % of its words): got 'The support hours is 9 am to 7 pm, Monday to Saturday.' (0 % of " \
           "its words)" in failed.out


def test_a_bad_resembles_value_is_refused_naming_the_field_before_any_call(talker: Talker, tmp_path: Path) -> None:
    for suite, field, rule in (
        (_suite("open at 9", 1.5), "conversations[0].turns[0].expect.resembles.min_share", "above 0 and at most 1"),
        (_suite("open at 9", 0), "conversations[0].turns[0].expect.resembles.min_share", "above 0 and at most 1"),
        (_suite("...", 0.5), "conversations[0].turns[0].expect.resembles.text", "at least one word"),
    ):
        result = talker("agents", "test", write(tmp_path, suite), "--yes")
        assert result.code == 2, result.err
        assert f"{field}: " in result.said and rule in result.said and "nothing was sent" in result.said
    assert talker.started == []
