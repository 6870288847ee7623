"""Per-agent settings of the sandbox's agent socket, given in ``--faults`` (docs/sandbox-voice.md):
a deterministic answer delay and price, so that answer-time budgets, ``vap agents test --compare``
and cost figures see real differences without luck.

* ``agent_delay_ms=REF:MS``: every turn of agent REF (its greeting and each answer) starts MS
  milliseconds of the sandbox clock after the caller's turn arrived (after the call started, for
  the greeting). On the sandbox's clock, so ``--speed 10`` makes 900 ms take 90. An agent no
  setting names waits ``DEFAULT_DELAY_MS`` (400 ms): the real service's greeting and answers start
  some hundreds of milliseconds after the caller's turn, never in zero time, and a client written
  against it (the vendor's Node bridge, cookbook 04) may rely on that gap, forwarding
  ``agent_start_talking`` before ``session.created`` when there is none. ``agent_delay_ms=*:0``
  gives every agent the old instant answer.
* ``agent_credits_per_minute=REF:N``: agent REF's calls cost N credits a started minute instead of
  the sandbox's price (call_records.py ``PRICE_CREDITS_PER_MINUTE``), on the call record and in the
  wallet.

REF is the agent's id or ``ua_`` handle, or ``*`` for every agent; repeat a setting for more agents
(a named agent's setting wins over ``*``).
"""

from __future__ import annotations

from dataclasses import dataclass

SETTINGS = ("agent_delay_ms", "agent_credits_per_minute")
# Milliseconds of the sandbox clock before each turn of an agent no agent_delay_ms names (see above;
# listed in /openapi.json as info.x-sandbox-agent-pace).
DEFAULT_DELAY_MS = 400.0
_MOST = {"agent_delay_ms": 60_000.0, "agent_credits_per_minute": 1_000.0}
_RULE = {"agent_delay_ms": "milliseconds from 0 to 60000", "agent_credits_per_minute": "credits from 0 to 1000"}


class AgentSettingError(ValueError):
    pass


@dataclass(frozen=True)
class AgentSettings:
    """(ref, value) pairs of each setting, in the order given."""

    delay_ms: tuple[tuple[str, float], ...] = ()
    credits_per_minute: tuple[tuple[str, float], ...] = ()

    def __bool__(self) -> bool:
        return bool(self.delay_ms or self.credits_per_minute)

    def __str__(self) -> str:
        return ",".join([f"agent_delay_ms={ref}:{v:g}" for ref, v in self.delay_ms]
                        + [f"agent_credits_per_minute={ref}:{v:g}" for ref, v in self.credits_per_minute])

    def add(self, name: str, raw: str) -> AgentSettings:
        """These settings with ``name=raw`` (``REF:VALUE``) added; AgentSettingError naming the rule."""
        ref, sep, number = raw.rpartition(":")
        ref = ref.strip()
        try:
            value = float(number)
            if not sep or not ref or not 0 <= value <= _MOST[name]:
                raise ValueError
        except ValueError:
            raise AgentSettingError(f"--faults: {name} must be REF:VALUE (REF an agent's id, ua_ handle or *; "
                                    f"VALUE {_RULE[name]}), not {raw!r}") from None
        if name == "agent_delay_ms":
            return AgentSettings((*self.delay_ms, (ref, value)), self.credits_per_minute)
        return AgentSettings(self.delay_ms, (*self.credits_per_minute, (ref, value)))

    @staticmethod
    def _for(pairs: tuple[tuple[str, float], ...], agent_id: str, handle: str) -> float | None:
        named = [v for ref, v in pairs if ref in (agent_id, handle)]
        if named:
            return named[-1]
        every = [v for ref, v in pairs if ref == "*"]
        return every[-1] if every else None

    def delay_for(self, agent_id: str, handle: str) -> float:
        """Milliseconds of the sandbox clock before each of this agent's turns (DEFAULT_DELAY_MS
        unless a setting names it or ``*``; 0: none)."""
        delay = self._for(self.delay_ms, agent_id, handle)
        return DEFAULT_DELAY_MS if delay is None else delay

    def price_for(self, agent_id: str, handle: str, default: float) -> float:
        """Credits a started minute of this agent's calls."""
        price = self._for(self.credits_per_minute, agent_id, handle)
        return default if price is None else price


def described() -> dict[str, object]:
    """The agent socket's pacing as /openapi.json lists it (info.x-sandbox-agent-pace)."""
    return {
        "defaultAnswerDelayMs": DEFAULT_DELAY_MS,
        "description": (f"Every agent's greeting and each answer start {DEFAULT_DELAY_MS:g} ms of the sandbox "
                        "clock after the call started or the caller's turn arrived (divided by --speed in wall "
                        "time), as the real service's start some hundreds of milliseconds later; "
                        "--faults agent_delay_ms=REF:MS sets an agent's own (REF an id, a ua_ handle or *; "
                        "*:0 answers at once)."),
    }
