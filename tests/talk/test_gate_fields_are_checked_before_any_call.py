"""The gate fields of a test file and the new options are checked with the rest, before any call:
a mistake exits 2 naming the field and the rule, and nothing is started."""

from __future__ import annotations

from pathlib import Path

from tests.talk.cli import Talker
from tests.talk.gates import write


def test_a_wrong_gate_field_or_option_is_a_usage_error_and_nothing_is_started(talker: Talker, tmp_path: Path) -> None:
    ref = talker.ref()
    cases = {
        "repeat.json": ({"agent": ref, "repeat": 0, "conversations": [{}]},
                        "repeat: must be a whole number of runs from 1 to 100"),
        "rate.json": ({"agent": ref, "conversations": [{"min_pass_rate": 1.5}]},
                      "conversations[0].min_pass_rate: must be a number from 0 to 1"),
        "p99.json": ({"agent": ref, "latency": {"p99_ms": 900}, "conversations": [{}]},
                     "latency.p99_ms: unknown field (known: p50_ms, p95_ms)"),
        "ms.json": ({"agent": ref, "conversations": [{"latency": {"p95_ms": "fast"}}]},
                    "conversations[0].latency.p95_ms: must be a whole number of milliseconds from 1 to 600000"),
        "credits.json": ({"agent": ref, "conversations": [{"max_credits": -1}]},
                         "conversations[0].max_credits: must be a number of credits, 0 or more"),
        "regression.json": ({"agent": ref, "max_p95_regression": "20%", "conversations": [{}]},
                            "max_p95_regression: must be a number 0 or more (a share: 0.2 is 20 %)"),
    }
    good = write(tmp_path, {"agent": ref, "conversations": [{}]}, "good.json")
    for name, (data, words) in cases.items():
        result = talker("agents", "test", good, write(tmp_path, data, name), "--yes")
        assert result.code == 2, name
        assert words in result.said and "nothing was sent" in result.said, (name, result.said)
    both = talker("agents", "test", good, "--agent", ref, "--compare", ref, "ua_other", "--yes")
    assert both.code == 2 and "--agent and --compare" in both.said
    same = talker("agents", "test", good, "--compare", ref, ref, "--yes")
    assert same.code == 2 and "must be two agents" in same.said
    assert talker("agents", "test", good, "--repeat", "0", "--yes").code == 2
    assert talker("agents", "test", good, "--parallel", "0", "--yes").code == 2
    assert talker.started == []
