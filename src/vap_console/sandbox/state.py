"""The sandbox's state: one account per key, each seeded identically on first use.

The top of the sandbox's state layers: it seeds accounts (seed), which fill them with tools,
templates and rentals (tools, catalog, rentals), all made of records (records). The records are
re-exported here for the endpoints that import them from this module.
"""

from __future__ import annotations

from datetime import datetime

from vap_console.sandbox.clock import Clock, clock_origin
from vap_console.sandbox.keys import SandboxKey
from vap_console.sandbox.records import (
    Account,
    AgentRecord,
    HeldRental,
    LedgerEntry,
    ToolRecord,
    VariableRecord,
    stable_id,
)
from vap_console.sandbox.seed import seed_account

__all__ = [
    "Account",
    "AgentRecord",
    "HeldRental",
    "LedgerEntry",
    "SandboxState",
    "ToolRecord",
    "VariableRecord",
    "stable_id",
]


class SandboxState:
    """All accounts of one sandbox instance, reachable as ``app.state.sandbox``."""

    def __init__(self, clock: Clock, run_seed: str = "") -> None:
        self.clock = clock
        self.origin = clock_origin(clock)
        self.accounts: dict[str, Account] = {}
        # Makes this start's call ids its own (Account.next_call_id); "" keeps them fixed.
        self.run_seed = run_seed

    def now(self) -> datetime:
        return self.clock.now()

    def account(self, key: SandboxKey) -> Account:
        account = self.accounts.get(key.key)
        if account is None:
            account = self.accounts[key.key] = seed_account(key, self.origin)
            account.run_seed = self.run_seed
        return account
