"""From the runs of a conversation test to its verdicts: per conversation its pass rate (passed,
flaky or failed, held or not against ``min_pass_rate``), its answer times and credits against its
budgets; per suite (a file) the budgets over all its answers and the cost of one pass through it.

Figures come from api/figures.py. Credits of a conversation are the mean over its runs (what one
call of it costs); a suite's are the sum of its conversations' (what one pass through the suite
costs), so neither grows with ``--repeat``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from vap_console.api import figures
from vap_console.api.figures import Times
from vap_console.scripting.agent_tests import Check, Script, TestFile
from vap_console.scripting.test_gates import Gates
from vap_console.scripting.test_runs import RunResult

ALL = "all conversations"


@dataclass
class Verdict:
    """One conversation's (or, with ``script`` None, one suite's) figures and what they decide."""

    test_file: TestFile
    script: Script | None
    gates: Gates
    runs: int
    passed: int
    times: Times
    credits: float | None
    reasons: list[str]
    checks: list[Check]

    @property
    def name(self) -> str:
        return self.script.name if self.script is not None else ALL

    @property
    def rate(self) -> float | None:
        return figures.pass_rate(self.passed, self.runs)

    @property
    def outcome(self) -> str:
        return figures.outcome(self.rate)

    @property
    def held(self) -> bool:
        return not self.reasons

    def as_dict(self) -> dict[str, Any]:
        return {"file": str(self.test_file.path), "conversation": self.name, "runs": self.runs,
                "passed": self.passed, "pass_rate": self.rate, "outcome": self.outcome,
                "min_pass_rate": self.gates.least_rate if self.script is not None else None,
                "answer_ms": self.times.as_dict(), "credits": self.credits, "held": self.held,
                "reasons": list(self.reasons)}

    def properties(self) -> dict[str, str]:
        """The figures as JUnit properties (strings; an unknown figure is left out)."""
        values: dict[str, object] = {"runs": self.runs, "passed": self.passed, "outcome": self.outcome,
                                     "answers": self.times.count}
        for key, value in (("pass_rate", self.rate), ("answer_p50_ms", self.times.p50),
                           ("answer_p95_ms", self.times.p95), ("answer_max_ms", self.times.max),
                           ("credits", self.credits)):
            if value is not None:
                values[key] = f"{value:.3f}".rstrip("0").rstrip(".")
        return {f"{self.name}.{k}" if self.script is not None else k: str(v) for k, v in values.items()}


def _mean_credits(results: list[RunResult]) -> float | None:
    charged = [r.credits for r in results]
    if not charged or any(c is None for c in charged):
        return None
    return figures.mean([c for c in charged if c is not None])


def conversation_verdict(test_file: TestFile, script: Script, gates: Gates, results: list[RunResult]) -> Verdict:
    runs, passed = len(results), sum(r.passed for r in results)
    times = Times.of([ms for r in results for ms in r.answer_ms])
    charged = _mean_credits(results)
    checks: list[Check] = []
    reasons: list[str] = []
    rate = figures.pass_rate(passed, runs)
    rate_held = figures.holds_rate(rate, gates.least_rate)
    if runs > 1 or gates.min_pass_rate is not None:
        outcome = figures.outcome(rate)
        said = (f"{passed} of {runs} runs passed ({figures.percent(rate)}, at least "
                f"{figures.percent(gates.least_rate)} needed)")
        if outcome == figures.FLAKY:
            said = f"flaky: {said}"
        checks.append(Check(script.name, "pass rate", rate_held, said))
    if not rate_held:
        reasons.append(f"{passed} of {runs} runs passed, below the {figures.percent(gates.least_rate)} needed")
    if gates.latency is not None:
        over = gates.latency.over(times)
        checks.append(Check(script.name, gates.latency.in_words(), not over, "; ".join(over) or times.in_words()))
        reasons += over
    if gates.max_credits is not None:
        over = figures.credits_over(charged, gates.max_credits, what="credits per call")
        checks.append(Check(script.name, f"at most {gates.max_credits:g} credits a call", not over,
                            "; ".join(over) or f"{charged:g} credits a call"))
        reasons += over
    return Verdict(test_file, script, gates, runs, passed, times, charged, reasons, checks)


def suite_verdict(test_file: TestFile, verdicts: list[Verdict], results: list[RunResult]) -> Verdict:
    gates = test_file.suite.gates
    times = Times.of([ms for r in results for ms in r.answer_ms])
    costs = [v.credits for v in verdicts]
    total = None if any(c is None for c in costs) else sum(c for c in costs if c is not None)
    checks: list[Check] = []
    reasons: list[str] = []
    if gates.latency is not None:
        over = gates.latency.over(times)
        checks.append(Check(ALL, gates.latency.in_words(), not over, "; ".join(over) or times.in_words()))
        reasons += over
    if gates.max_credits is not None:
        over = figures.credits_over(total, gates.max_credits, what="credits for one pass through the suite")
        checks.append(Check(ALL, f"at most {gates.max_credits:g} credits for one pass", not over,
                            "; ".join(over) or f"{total:g} credits for one pass"))
        reasons += over
    runs, passed = sum(v.runs for v in verdicts), sum(v.passed for v in verdicts)
    return Verdict(test_file, None, gates, runs, passed, times, total, reasons, checks)


def verdicts_of(test_file: TestFile, gates_of: dict[int, Gates],
                results: list[RunResult]) -> tuple[list[Verdict], Verdict]:
    """Each conversation's verdict (in the file's order) and the suite's, from this file's runs."""
    per = []
    for i, script in enumerate(test_file.conversations):
        mine = [r for r in results if r.job.script is script]
        per.append(conversation_verdict(test_file, script, gates_of[i], mine))
    return per, suite_verdict(test_file, per, results)
