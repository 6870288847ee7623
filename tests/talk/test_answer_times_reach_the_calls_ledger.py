"""The answer time of each turn of a call `vap agents talk` and `vap agents test` held is kept on
that call in the calls ledger (issue 34 point 1), in order, as the console measured it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.talk.cli import Talker
from tests.talk.gates import HOURS, PRIYA, SPEED, gate_sandbox, write
from vap_console.ledger import CallEntry

DELAY_MS = 4_000  # on the sandbox clock: each of Priya's turns starts 200 ms late at SPEED 20


def _kept(talker: Talker) -> list[CallEntry]:
    from vap_console.ledger.accounts import files_for

    # With what a call's detail reads (a plain listing reads no answer times).
    return files_for(talker.store(), None, data_dir=talker.tmp / "data").ledger.entries(transcripts=True)


def test_talk_keeps_each_answer_time_of_its_call(tmp_path: Path, capsys: Any) -> None:
    with gate_sandbox(tmp_path, capsys, faults=f"agent_delay_ms={PRIYA}:{DELAY_MS}") as talker:
        result = talker("agents", "talk", PRIYA, "--say", "What are your support hours?", "--say", "And Sunday?",
                        "--yes")
    assert result.code == 0, result.err
    [call] = _kept(talker)
    assert call.kind == "talk" and len(call.answer_times) == 2  # the greeting is no answer: not timed
    assert all(ms >= DELAY_MS / SPEED for ms in call.answer_times), call.answer_times


def test_each_run_of_a_test_keeps_its_answer_times(tmp_path: Path, capsys: Any) -> None:
    with gate_sandbox(tmp_path, capsys, faults=f"agent_delay_ms={PRIYA}:{DELAY_MS}") as talker:
        suite = write(tmp_path, {"agent": PRIYA, "repeat": 2, "conversations": [HOURS]})
        result = talker("agents", "test", suite, "--yes")
    assert result.code == 0, result.out + result.err
    calls = _kept(talker)
    assert len(calls) == 2
    for call in calls:
        assert len(call.answer_times) == 1 and call.answer_times[0] >= DELAY_MS / SPEED, call.answer_times
