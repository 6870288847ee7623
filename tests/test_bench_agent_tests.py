"""`make bench`'s `vap agents test` bench keeps working: a short run of it (3 conversations once,
serially and 2 side by side, on a sandbox child at its speed with its answer delay) measures both
wall times and the answer times its table compares with the configured delay."""

from __future__ import annotations

from pathlib import Path

from bench import agent_tests


def test_the_agent_tests_bench_holds_a_short_suite_both_ways(tmp_path: Path) -> None:
    proc, url = agent_tests.start_sandbox()
    try:
        got = agent_tests.measure(url, tmp_path, conversations=3, repeat=1, parallel=2)
    finally:
        assert proc.stdin is not None
        proc.stdin.close()
        proc.wait(10)
    assert got["serial"] > 0 and got["parallel"] > 0
    for name in ("serial", "parallel"):
        figures = got[f"{name}_report"]["suites"][0]["answer_ms"]
        assert figures["count"] == 6  # 1 + 2 + 3 turns, each answered
        # No answer comes before the delay the sandbox was told (60 ms of wall time at speed 10).
        assert figures["p50_ms"] >= agent_tests.DELAY_MS / agent_tests.SPEED
    assert isinstance(agent_tests.report(got, conversations=3, repeat=1), bool)
