"""`vap agents test --compare REF_A REF_B`: one suite held with two agents, then one table — per
conversation and in all: pass rate, answer p50/p95 and credits for A and for B, and the change —
and whether B is worse than the thresholds allow (scripting/test_gates.py ``Thresholds``).

B is worse when its pass rate is lower than A's by more than ``max_pass_rate_drop`` (default: any
drop), its answer p95 higher by more than the share ``max_p95_regression``, or its credits higher by
more than the share ``max_cost_increase`` (each checked only when set), per conversation and in all.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from vap_console.api import figures
from vap_console.scripting.test_gates import Thresholds
from vap_console.scripting.test_verdicts import ALL, Verdict

HEADERS = ["CONVERSATION", "PASS A", "PASS B", "Δ PASS", "P50 A", "P50 B", "P95 A", "P95 B", "Δ P95",
           "CREDITS A", "CREDITS B", "Δ CREDITS"]


@dataclass
class Pair:
    """One conversation (or the whole suite) on A and on B."""

    name: str
    file: str
    a: Verdict
    b: Verdict

    @property
    def rate_change(self) -> float | None:
        if self.a.rate is None or self.b.rate is None:
            return None
        return self.b.rate - self.a.rate

    @property
    def p95_change(self) -> float | None:
        return figures.change(self.a.times.p95, self.b.times.p95)

    @property
    def credits_change(self) -> float | None:
        return figures.change(self.a.credits, self.b.credits)

    def worse(self, thresholds: Thresholds) -> list[str]:
        """Why B is worse than A here beyond the thresholds, in words; [] when it is not."""
        where = f"{self.name}: " if self.name != ALL else "in all: "
        reasons = []
        drop = self.rate_change
        if drop is not None and -drop > thresholds.max_pass_rate_drop + 1e-9:
            reasons.append(f"{where}B's pass rate {figures.percent(self.b.rate)} is below A's "
                           f"{figures.percent(self.a.rate)} (at most {thresholds.max_pass_rate_drop * 100:.0f} "
                           "points lower allowed)")
        p95 = self.p95_change
        if thresholds.max_p95_regression is not None and p95 is not None and p95 > thresholds.max_p95_regression:
            reasons.append(f"{where}B's answer p95 {self.b.times.p95:.0f} ms is {figures.signed_percent(p95)} on A's "
                           f"{self.a.times.p95:.0f} ms (at most +{thresholds.max_p95_regression * 100:.0f} % allowed)")
        cost = self.credits_change
        if thresholds.max_cost_increase is not None and cost is not None and cost > thresholds.max_cost_increase:
            reasons.append(f"{where}B's credits {self.b.credits:g} are {figures.signed_percent(cost)} on A's "
                           f"{self.a.credits:g} (at most +{thresholds.max_cost_increase * 100:.0f} % allowed)")
        return reasons

    def row(self) -> list[object]:
        return [self.name, figures.percent(self.a.rate), figures.percent(self.b.rate), _points(self.rate_change),
                _ms(self.a.times.p50), _ms(self.b.times.p50), _ms(self.a.times.p95), _ms(self.b.times.p95),
                figures.signed_percent(self.p95_change), _credits(self.a.credits), _credits(self.b.credits),
                figures.signed_percent(self.credits_change)]

    def as_dict(self) -> dict[str, Any]:
        def side(v: Verdict) -> dict[str, Any]:
            return {"pass_rate": v.rate, "outcome": v.outcome, "runs": v.runs, "answer_ms": v.times.as_dict(),
                    "credits": v.credits, "held": v.held}

        p95, cost = self.p95_change, self.credits_change
        return {"file": self.file, "conversation": self.name, "a": side(self.a), "b": side(self.b),
                "change": {"pass_rate": self.rate_change,
                           "answer_p95": None if p95 is None or math.isinf(p95) else round(p95, 4),
                           "credits": None if cost is None or math.isinf(cost) else round(cost, 4)}}

    def properties(self) -> dict[str, str]:
        out: dict[str, str] = {}
        for key, value in (("a.pass_rate", self.a.rate), ("b.pass_rate", self.b.rate),
                           ("a.answer_p50_ms", self.a.times.p50), ("b.answer_p50_ms", self.b.times.p50),
                           ("a.answer_p95_ms", self.a.times.p95), ("b.answer_p95_ms", self.b.times.p95),
                           ("a.credits", self.a.credits), ("b.credits", self.b.credits),
                           ("change.pass_rate", self.rate_change), ("change.answer_p95", self.p95_change),
                           ("change.credits", self.credits_change)):
            if value is not None and not math.isinf(value):
                out[f"{self.name}.{key}"] = f"{value:.3f}".rstrip("0").rstrip(".")
        return out


def _ms(value: float | None) -> str:
    return "—" if value is None else f"{value:.0f} ms"


def _credits(value: float | None) -> str:
    return "—" if value is None else f"{value:g}"


def _points(change: float | None) -> str:
    return "—" if change is None else f"{change * 100:+.0f} pt"


def pairs_of(a: list[tuple[list[Verdict], Verdict]], b: list[tuple[list[Verdict], Verdict]]) -> list[Pair]:
    """Per file: each conversation on A and B, then the file's whole ("all conversations")."""
    pairs: list[Pair] = []
    for (a_each, a_all), (b_each, b_all) in zip(a, b, strict=True):
        path = str(a_all.test_file.path)
        pairs += [Pair(x.name, path, x, y) for x, y in zip(a_each, b_each, strict=True)]
        pairs.append(Pair(ALL, path, a_all, b_all))
    return pairs
