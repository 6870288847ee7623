"""What a conversation test must hold beyond its expectations (docs/testing.md): how many times it
runs, the pass rate that decides it, its answer-time and cost budgets, and the thresholds of
``--compare``. Read from the test file (per conversation and per suite) and checked whole before
any call, like the rest of the file; the command line's flags override the file's values.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

from vap_console.api.figures import LatencyBudget

# Keys a conversation and a file may carry; the file alone carries the compare thresholds.
GATE_KEYS = {"repeat", "min_pass_rate", "latency", "max_credits"}
COMPARE_KEYS = {"max_p95_regression", "max_cost_increase", "max_pass_rate_drop"}
LATENCY_KEYS = {"p50_ms", "p95_ms"}
# More runs than this of one conversation is a typo, not a test (each is a billed call).
MAX_REPEAT = 100


class GateError(ValueError):
    """A gate field that breaks its rule: ``at`` the field, ``rule`` in words."""

    def __init__(self, at: str, rule: str) -> None:
        super().__init__(f"{at}: {rule}")
        self.at = at
        self.rule = rule


@dataclass(frozen=True)
class Gates:
    """A conversation's (or a suite's) gates; None: not set here (the suite's, then the default)."""

    repeat: int | None = None
    min_pass_rate: float | None = None
    latency: LatencyBudget | None = None
    max_credits: float | None = None

    def under(self, suite: Gates) -> Gates:
        """These gates, with what they leave unset taken from the suite's (budgets are not
        inherited: a suite's latency and cost budgets are over the whole suite)."""
        return replace(self, repeat=self.repeat if self.repeat is not None else suite.repeat,
                       min_pass_rate=self.min_pass_rate if self.min_pass_rate is not None else suite.min_pass_rate)

    @property
    def runs(self) -> int:
        return self.repeat or 1

    @property
    def least_rate(self) -> float:
        return 1.0 if self.min_pass_rate is None else self.min_pass_rate


@dataclass(frozen=True)
class Thresholds:
    """How much worse B may be than A before ``--compare`` exits 1 (None: not checked).

    ``max_p95_regression`` and ``max_cost_increase`` are shares (0.2: 20 % more);
    ``max_pass_rate_drop`` is in pass-rate points (0.1: from 100 % to 90 % is still allowed)."""

    max_p95_regression: float | None = None
    max_cost_increase: float | None = None
    max_pass_rate_drop: float = 0.0


@dataclass(frozen=True)
class SuiteGates:
    gates: Gates = field(default_factory=Gates)
    thresholds: Thresholds = field(default_factory=Thresholds)


def _share(at: str, value: Any, *, most: float | None = None) -> float:
    number = not isinstance(value, bool) and isinstance(value, (int, float))
    if not number or value < 0 or (most is not None and value > most):
        span = f"from 0 to {most:g}" if most is not None else "0 or more"
        raise GateError(at, f"must be a number {span} (a share: 0.2 is 20 %)")
    return float(value)


def _whole(at: str, value: Any, *, least: int, most: int, unit: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not least <= value <= most:
        raise GateError(at, f"must be a whole number of {unit} from {least} to {most}")
    return value


def read_gates(data: dict[str, Any], at: str) -> Gates:
    """The gate fields of a conversation's or a file's object (``at``: where it is, "" at the top)."""

    def where(name: str) -> str:
        return f"{at}.{name}" if at else name

    repeat = (_whole(where("repeat"), data["repeat"], least=1, most=MAX_REPEAT, unit="runs")
              if "repeat" in data else None)
    rate = _share(where("min_pass_rate"), data["min_pass_rate"], most=1) if "min_pass_rate" in data else None
    latency = None
    if "latency" in data:
        raw = data["latency"]
        if not isinstance(raw, dict) or not raw:
            raise GateError(where("latency"), 'must be an object such as {"p50_ms": 800, "p95_ms": 1500}')
        unknown = sorted(set(raw) - LATENCY_KEYS)
        if unknown:
            raise GateError(where(f"latency.{unknown[0]}"), f"unknown field (known: {', '.join(sorted(LATENCY_KEYS))})")
        bounds = {name: _whole(where(f"latency.{name}"), raw[name], least=1, most=600_000, unit="milliseconds")
                  for name in sorted(LATENCY_KEYS) if name in raw}
        latency = LatencyBudget(**bounds)
    most = None
    if "max_credits" in data:
        value = data["max_credits"]
        if isinstance(value, bool) or not isinstance(value, (int, float)) or value < 0:
            raise GateError(where("max_credits"), "must be a number of credits, 0 or more")
        most = float(value)
    return Gates(repeat, rate, latency, most)


def read_thresholds(data: dict[str, Any]) -> Thresholds:
    values: dict[str, float] = {}
    for name in sorted(COMPARE_KEYS):
        if name in data:
            values[name] = _share(name, data[name], most=1 if name == "max_pass_rate_drop" else None)
    return Thresholds(**values)


def with_flags(suite: SuiteGates, *, repeat: int | None, min_pass_rate: float | None,
               max_p95_regression: float | None, max_cost_increase: float | None) -> SuiteGates:
    """The command line's values over the file's: ``--repeat`` and ``--min-pass-rate`` for every
    conversation (a conversation's own value gives way to them too), the thresholds for compare."""
    gates = replace(suite.gates, repeat=repeat if repeat is not None else suite.gates.repeat,
                    min_pass_rate=min_pass_rate if min_pass_rate is not None else suite.gates.min_pass_rate)
    old = suite.thresholds
    thresholds = replace(
        old, max_p95_regression=max_p95_regression if max_p95_regression is not None else old.max_p95_regression,
        max_cost_increase=max_cost_increase if max_cost_increase is not None else old.max_cost_increase)
    return SuiteGates(gates, thresholds)


def flagged(gates: Gates, *, repeat: int | None, min_pass_rate: float | None) -> Gates:
    """A conversation's gates with the command line's ``--repeat``/``--min-pass-rate`` over them."""
    return replace(gates, repeat=repeat if repeat is not None else gates.repeat,
                   min_pass_rate=min_pass_rate if min_pass_rate is not None else gates.min_pass_rate)
