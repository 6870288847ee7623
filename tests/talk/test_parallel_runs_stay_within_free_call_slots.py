"""`--parallel N`: conversations held side by side, never more than the account's free call slots
(GET /v1/agent/limits), and a run refused because every slot is taken waits for one instead of
failing."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.talk.gates import HOURS, PRIYA, gate_sandbox, hold_slots, most_at_once, socket_calls, write
from vap_console.sandbox.voice.call_records import COMPLETED, FAILED
from vap_console.scripting.test_runs import UNEXPLAINED_REFUSALS

# Longer calls (each turn a fifth of a second late at speed 20) so that runs held side by side overlap.
SLOWER = "agent_delay_ms=*:4000"


def test_parallel_runs_side_by_side_but_never_beyond_the_free_slots(tmp_path: Path, capsys: Any) -> None:
    with gate_sandbox(tmp_path, capsys, faults=SLOWER) as talker:
        hold_slots(talker.sandbox, 2, seconds=3600)  # 2 of the key's 4 slots taken by someone else
        path = write(tmp_path, {"agent": PRIYA, "conversations": [{**HOURS, "name": f"hours {i}"} for i in range(4)]})
        result = talker("agents", "test", path, "--parallel", "4", "--yes")
        calls = socket_calls(talker.sandbox)
    assert result.code == 0, result.out + result.err
    assert len(calls) == 4 and all(c.status == COMPLETED for c in calls)
    assert most_at_once(calls) == 2


def test_a_run_refused_for_want_of_a_slot_waits_for_one_and_passes(tmp_path: Path, capsys: Any) -> None:
    with gate_sandbox(tmp_path, capsys) as talker:
        # Every slot is taken for 40 s of the sandbox clock (2 s of wall time at speed 20).
        hold_slots(talker.sandbox, 4, seconds=40)
        path = write(tmp_path, {"agent": PRIYA, "conversations": [HOURS]})
        result = talker("agents", "test", path, "--parallel", "2", "--yes")
        calls = socket_calls(talker.sandbox)
    assert result.code == 0, result.out + result.err
    refused = [c for c in calls if c.status == FAILED]
    assert refused and all(c.end_reason == "concurrency_limit_exceeded" for c in refused)
    assert [c.status for c in calls if c not in refused] == [COMPLETED]
    assert "PASS  hours › answer 1 ('What are your support hours?') contains '9 am'" in result.out


def test_refusals_the_limits_do_not_explain_are_not_retried_for_ever(tmp_path: Path, capsys: Any) -> None:
    # Every start refused as concurrency_limit_exceeded while the limits show every slot free.
    with gate_sandbox(tmp_path, capsys, faults="socket_start_error=concurrency_limit_exceeded") as talker:
        path = write(tmp_path, {"agent": PRIYA, "conversations": [HOURS]})
        result = talker("agents", "test", path, "--yes")
        calls = socket_calls(talker.sandbox)
    assert result.code == 1
    assert len(calls) == UNEXPLAINED_REFUSALS and all(c.status == FAILED for c in calls)
    assert "concurrency_limit_exceeded" in result.out
