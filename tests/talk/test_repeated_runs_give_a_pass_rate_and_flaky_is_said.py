"""`vap agents test --repeat N` / `repeat`: each conversation N times, a pass rate, and a conversation
that passed some runs reported as flaky, held or not by `min_pass_rate` (default 1.0)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.talk.gates import HOURS, gate_sandbox, socket_calls, write


def test_a_conversation_passing_two_runs_of_three_is_flaky_and_fails_the_default_rate(tmp_path: Path,
                                                                                       capsys: Any) -> None:
    # The "flaky" key: each agent's first call fails to start (agent_start_failed); the next ones start.
    with gate_sandbox(tmp_path, capsys) as talker:
        path = write(tmp_path, {"agent": talker.ref(key="flaky"), "conversations": [HOURS]})
        result = talker("agents", "test", path, "--repeat", "3", "--yes", "--json", key="flaky")
        assert len(socket_calls(talker.sandbox, "flaky")) == 3
    assert result.code == 1, result.err
    assert "FLAKY  hours › pass rate: flaky: 2 of 3 runs passed (67 %, at least 100 % needed)" in result.err
    assert "FAIL  hours [run 1/3] › answer 1 ('What are your support hours?') contains '9 am'" in result.err
    [conversation] = json.loads(result.out)["conversations"]
    assert (conversation["runs"], conversation["passed"], conversation["outcome"], conversation["held"]) == (
        3, 2, "flaky", False)
    assert "conversations 0 passed, 1 flaky, 0 failed" in result.said


@pytest.mark.parametrize(("in_file", "flags"), [({"min_pass_rate": 0.6}, ()), ({"min_pass_rate": 1}, ("--min-pass-rate", "0.6"))])
def test_a_flaky_conversation_at_or_above_min_pass_rate_holds_and_is_still_said_flaky(
        tmp_path: Path, capsys: Any, in_file: dict[str, float], flags: tuple[str, ...]) -> None:
    with gate_sandbox(tmp_path, capsys) as talker:
        path = write(tmp_path, {"agent": talker.ref(key="flaky"), "repeat": 3, "conversations": [{**HOURS, **in_file}]})
        result = talker("agents", "test", path, "--yes", *flags, key="flaky")
    assert result.code == 0, result.out + result.err
    assert "FLAKY  hours › pass rate: flaky: 2 of 3 runs passed (67 %, at least 60 % needed)" in result.out
    assert "0 gates not held" in result.said


def test_every_run_passing_is_a_plain_pass(tmp_path: Path, capsys: Any) -> None:
    with gate_sandbox(tmp_path, capsys) as talker:
        path = write(tmp_path, {"agent": talker.ref(), "conversations": [HOURS]})
        result = talker("agents", "test", path, "--repeat", "2", "--yes")
        assert len(socket_calls(talker.sandbox)) == 2
    assert result.code == 0, result.out + result.err
    assert "PASS  hours › pass rate" in result.out and "FLAKY" not in result.out
    assert "2 expectations in 1 conversation (2 runs): 2 held, 0 failed" in result.said
