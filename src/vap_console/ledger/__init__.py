"""The local record of calls (issue 25): SQLite per profile, no secrets, no Textual."""

from vap_console.ledger.schema import SCHEMA_VERSION, LedgerTooNew
from vap_console.ledger.store import (
    KINDS,
    OUTCOME_UNKNOWN,
    CallEntry,
    CallIdTaken,
    DaySpend,
    Ledger,
    Total,
    Turn,
    ledger_path,
)

__all__ = [
    "KINDS", "OUTCOME_UNKNOWN", "SCHEMA_VERSION", "CallEntry", "CallIdTaken", "DaySpend", "Ledger", "LedgerTooNew",
    "Total", "Turn", "ledger_path",
]
