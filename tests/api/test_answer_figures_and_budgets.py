"""api/figures.py: nearest-rank percentiles of answer times, pass rates and budgets said in words,
with no socket and no screen."""

from __future__ import annotations

import math

import pytest

from vap_console.api.conversation import Turn
from vap_console.api.figures import (
    FAILED,
    FLAKY,
    PASSED,
    LatencyBudget,
    Times,
    answer_times,
    change,
    credits_over,
    holds_rate,
    outcome,
    pass_rate,
    percentile,
)


def test_percentiles_are_nearest_rank_and_always_a_measured_time() -> None:
    values = [float(v) for v in range(1, 101)]  # 1..100
    assert percentile(values, 50) == 50 and percentile(values, 95) == 95 and percentile(values, 100) == 100
    # With few answers p95 is the slowest: no interpolation invents a time nobody waited.
    assert percentile([100.0, 900.0], 95) == 900 and percentile([100.0, 900.0], 50) == 100
    assert percentile([300.0, 100.0, 200.0], 50) == 200
    assert percentile([], 95) is None
    with pytest.raises(ValueError):
        percentile([1.0], 0)


def test_answer_times_are_the_timed_agent_turns_only() -> None:
    turns = [Turn("assistant", "hello"), Turn("user", "hi", answer_ms=5.0), Turn("assistant", "a", answer_ms=420.0),
             Turn("assistant", "b", answer_ms=610.5)]
    assert answer_times(turns) == [420.0, 610.5]
    times = Times.of(answer_times(turns))
    assert (times.count, times.p50, times.p95, times.max) == (2, 420.0, 610.5, 610.5)
    assert times.as_dict() == {"count": 2, "p50_ms": 420.0, "p95_ms": 610.5, "max_ms": 610.5}
    assert Times.of([]).in_words() == "no answer time measured"


def test_a_pass_rate_between_none_and_all_is_flaky_and_holds_only_at_the_rate_asked() -> None:
    assert pass_rate(2, 3) == pytest.approx(2 / 3) and pass_rate(0, 0) is None
    assert [outcome(r) for r in (1.0, 2 / 3, 0.0, None)] == [PASSED, FLAKY, FAILED, FAILED]
    assert holds_rate(2 / 3, 0.6) and not holds_rate(2 / 3, 1.0) and not holds_rate(None, 0.0)
    assert not holds_rate(0.0, 0.0)  # a conversation that never passed holds no gate
    with pytest.raises(ValueError):
        pass_rate(4, 3)


def test_a_latency_budget_says_which_percentile_is_over_and_by_how_much() -> None:
    budget = LatencyBudget(p50_ms=800, p95_ms=1500)
    assert budget.over(Times.of([700.0, 750.0, 1400.0])) == []
    assert budget.over(Times.of([700.0, 900.0, 1620.0])) == [
        "answer p50 900 ms is over the budget of 800 ms", "answer p95 1620 ms is over the budget of 1500 ms"]
    assert budget.over(Times.of([])) == [
        "no answer time was measured, so p50 ≤ 800 ms cannot be shown",
        "no answer time was measured, so p95 ≤ 1500 ms cannot be shown"]
    assert LatencyBudget(p95_ms=1500).over(Times.of([5000.0, 1.0] + [1.0] * 30)) == []  # 1 slow of 32: p95 holds


def test_a_cost_budget_says_what_was_charged_and_an_unknown_charge_does_not_pass() -> None:
    assert credits_over(3.0, 5.0) == [] and credits_over(9.0, None) == []
    assert credits_over(6.0, 5.0, what="a call's credits") == ["a call's credits 6 is over the budget of 5"]
    assert credits_over(None, 5.0) == ["the call records did not say what was charged, so credits ≤ 5 cannot be shown"]


def test_change_is_relative_to_the_first() -> None:
    assert change(100.0, 130.0) == pytest.approx(0.3) and change(None, 1.0) is None
    assert change(0.0, 0.0) == 0.0 and math.isinf(change(0.0, 1.0) or 0.0)
