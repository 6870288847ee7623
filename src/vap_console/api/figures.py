"""Figures of conversations: answer-time percentiles, pass rates and budgets (Textual-free).

Plain functions on the figures the conversation model already keeps (``Turn.answer_ms``,
api/conversation.py) and on what call records say (credits). The test runner's verdicts and its
``--compare`` table use them; so can Talk's top line, the ledger and ``vap calls stats``.

Percentiles are **nearest-rank**: the p-th percentile of n values is the value at rank
ceil(p/100 × n) of them sorted (rank 1 the smallest). It is always a time that was measured, never
an interpolation between two, so "p95 ≤ 1500 ms" means at least 95 % of the answers came within
1500 ms. With few values the high percentiles are the slowest answer (p95 of 19 or fewer is the max).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from vap_console.api.conversation import Turn

PASSED, FLAKY, FAILED = "passed", "flaky", "failed"


def percentile(values: Sequence[float], p: float) -> float | None:
    """The nearest-rank ``p``-th percentile (0 < p ≤ 100) of ``values``; None when there are none."""
    if not 0 < p <= 100:
        raise ValueError(f"a percentile is above 0 and at most 100, not {p}")
    if not values:
        return None
    ordered = sorted(values)
    rank = math.ceil(p / 100 * len(ordered))
    return ordered[max(rank, 1) - 1]


def answer_times(turns: Iterable[Turn]) -> list[float]:
    """Every answer time measured in ``turns`` (the greeting and turns not timed have none)."""
    return [t.answer_ms for t in turns if t.role == "assistant" and t.answer_ms is not None]


@dataclass(frozen=True)
class Times:
    """Answer times in milliseconds: how many, and their p50, p95 and max (None: none measured)."""

    count: int
    p50: float | None
    p95: float | None
    max: float | None

    @classmethod
    def of(cls, values: Sequence[float]) -> Times:
        return cls(len(values), percentile(values, 50), percentile(values, 95), max(values) if values else None)

    def as_dict(self) -> dict[str, float | int | None]:
        return {"count": self.count, "p50_ms": _ms(self.p50), "p95_ms": _ms(self.p95), "max_ms": _ms(self.max)}

    def in_words(self) -> str:
        if not self.count:
            return "no answer time measured"
        return (f"answer p50 {self.p50:.0f} ms, p95 {self.p95:.0f} ms, max {self.max:.0f} ms "
                f"({self.count} answer{'s' if self.count != 1 else ''})")


def _ms(value: float | None) -> float | None:
    return round(value, 1) if value is not None else None


def pass_rate(passed: int, runs: int) -> float | None:
    """The share of runs that passed; None when nothing ran."""
    if runs < 0 or not 0 <= passed <= runs:
        raise ValueError(f"{passed} passed of {runs} runs")
    return passed / runs if runs else None


def outcome(rate: float | None) -> str:
    """``passed`` (every run), ``failed`` (none, or nothing ran) or ``flaky`` (some but not all)."""
    if rate is None or rate <= 0:
        return FAILED
    return PASSED if rate >= 1 else FLAKY


def holds_rate(rate: float | None, min_pass_rate: float) -> bool:
    """Whether a pass rate meets the least rate asked for (nothing ran never does)."""
    return rate is not None and rate > 0 and rate >= min_pass_rate


def percent(share: float | None) -> str:
    return "—" if share is None else f"{share * 100:.0f} %"


@dataclass(frozen=True)
class LatencyBudget:
    """The most an answer may take at p50 and p95, in milliseconds (None: not bounded)."""

    p50_ms: int | None = None
    p95_ms: int | None = None

    def over(self, times: Times) -> list[str]:
        """Why ``times`` break this budget, in words; [] when they keep it."""
        reasons = []
        for name, limit, value in (("p50", self.p50_ms, times.p50), ("p95", self.p95_ms, times.p95)):
            if limit is None:
                continue
            if value is None:
                reasons.append(f"no answer time was measured, so {name} ≤ {limit} ms cannot be shown")
            elif value > limit:
                reasons.append(f"answer {name} {value:.0f} ms is over the budget of {limit} ms")
        return reasons

    def in_words(self) -> str:
        parts = [f"{name} ≤ {limit} ms" for name, limit in (("p50", self.p50_ms), ("p95", self.p95_ms))
                 if limit is not None]
        return "answer " + ", ".join(parts)


def credits_over(charged: float | None, max_credits: float | None, *, what: str = "credits") -> list[str]:
    """Why ``charged`` credits break a cost budget of ``max_credits``, in words; [] when kept or unbounded."""
    if max_credits is None:
        return []
    if charged is None:
        return [f"the call records did not say what was charged, so {what} ≤ {max_credits:g} cannot be shown"]
    if charged > max_credits:
        return [f"{what} {charged:g} is over the budget of {max_credits:g}"]
    return []


def mean(values: Sequence[float]) -> float | None:
    return sum(values) / len(values) if values else None


def change(before: float | None, after: float | None) -> float | None:
    """The relative change from ``before`` to ``after`` (0.2: 20 % more); None where it has no meaning."""
    if before is None or after is None:
        return None
    if before == 0:
        return 0.0 if after == 0 else math.inf
    return (after - before) / before


def signed_percent(share: float | None) -> str:
    if share is None:
        return "—"
    if math.isinf(share):
        return "+∞"
    return f"{share * 100:+.0f} %"
