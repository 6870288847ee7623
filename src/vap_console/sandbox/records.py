"""The sandbox's records: what one account holds (tools, variables, agents, rentals, the ledger).

The bottom of the sandbox's layers (a contract in pyproject.toml keeps it there): the modules that
act on an account (tools, catalog, rentals, seed, the endpoints) import it; it imports none of them.
Nothing here is random: seed ids are uuid5 of fixed names, and ids made later come from a
per-account counter, so two sandboxes given the same requests answer with the same bytes.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Protocol

from vap_console.sandbox.clock import iso
from vap_console.sandbox.keys import SandboxKey

_NAMESPACE = uuid.UUID("6f1c3a52-0b7e-4d61-9a3f-5c8e2d4b7a10")


def stable_id(*parts: str) -> str:
    return str(uuid.uuid5(_NAMESPACE, ":".join(parts)))


@dataclass
class ToolRecord:
    id: str
    name: str
    description: str
    kind: str
    config: dict[str, Any]  # as returned: defaults applied, credentials removed
    is_default: bool
    created_at: datetime
    updated_at: datetime
    # Write-only credentials, kept only so hasSecret is truthful; never serialised.
    secret: dict[str, str] = field(default_factory=dict, repr=False)

    def to_wire(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "name": self.name,
            "description": self.description,
            "kind": self.kind,
            "config": self.config,
            "isDefault": self.is_default,
            "createdAt": iso(self.created_at),
            "updatedAt": iso(self.updated_at),
        }


@dataclass
class VariableRecord:
    id: str
    name: str
    default_value: str
    tool_id: str | None
    tool_output: str | None
    created_at: datetime
    updated_at: datetime

    def to_wire(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "name": self.name,
            "defaultValue": self.default_value,
            "toolId": self.tool_id,
            "toolOutput": self.tool_output,
            "createdAt": iso(self.created_at),
            "updatedAt": iso(self.updated_at),
        }


@dataclass
class AgentRecord:
    id: str
    handle: str
    name: str
    system_instruction: str
    greeting: str
    tts_config: dict[str, Any]
    source: str
    template_slug: str | None
    deployed: bool
    created_at: datetime
    updated_at: datetime

    def to_wire(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "handle": self.handle,
            "name": self.name,
            "systemInstruction": self.system_instruction,
            "greeting": self.greeting,
            "ttsConfig": self.tts_config,
            "source": self.source,
            "templateSlug": self.template_slug,
            "deployed": self.deployed,
            "createdAt": iso(self.created_at),
            "updatedAt": iso(self.updated_at),
        }


@dataclass(frozen=True)
class LedgerEntry:
    at: datetime
    nanos: int
    memo: str


class HeldRental(Protocol):
    """A rental as an account holds it (rentals.RentalRecord): typed here, not imported, so that
    the records stay below the module that plays a rental's life out."""

    id: str
    created_at: datetime
    user_agent_id: str | None
    later_events: list[tuple[datetime, dict[str, Any]]]

    def holds(self, now: datetime) -> set[str]: ...

    def render(self, now: datetime, account: Account | None) -> dict[str, Any]: ...


@dataclass
class Account:
    """Everything one key sees. Money moves as dated ledger entries, so a top-up due in six
    seconds is already written down and the balance at any instant is a sum."""

    key: SandboxKey
    tools: dict[str, ToolRecord] = field(default_factory=dict)
    variables: dict[str, VariableRecord] = field(default_factory=dict)
    agents: dict[str, AgentRecord] = field(default_factory=dict)
    rentals: dict[str, HeldRental] = field(default_factory=dict)
    ledger: list[LedgerEntry] = field(default_factory=list)
    webcalls: list[dict[str, Any]] = field(default_factory=list)
    # Call records by id (sandbox/voice/call_records.py CallRecord), for GET /v1/calls/{id}.
    calls: dict[str, Any] = field(default_factory=dict)
    # SIP trunks by id (sandbox/voice/trunks.py SipTrunk), seeded on first use.
    trunks: dict[str, Any] = field(default_factory=dict)
    # Speech requests being synthesised or streamed now (sandbox/voice/tts.py holding_slot): each
    # holds one of the concurrent slots, as TTS requests do on the real service.
    live_speech: set[str] = field(default_factory=set)
    # Agents whose first web call already failed to start (keys with start_fails_first).
    failed_starts: set[str] = field(default_factory=set)
    counter: int = 0
    # This start's own part of every call id ("": the ids every sandbox gives, for tests and
    # screenshots): the sandbox forgets its calls when it stops, and ids that repeat on the next
    # start took over the rows of older calls in a console's ledger.
    run_seed: str = ""

    def next_id(self, kind: str) -> str:
        self.counter += 1
        return stable_id(self.key.id_seed, kind, str(self.counter))

    def next_call_id(self) -> str:
        """A call's id: unique to this start of the sandbox unless it was started with a fixed seed."""
        if not self.run_seed:
            return self.next_id("call")
        self.counter += 1
        return stable_id(self.key.id_seed, "call", self.run_seed, str(self.counter))

    def balance(self, at: datetime | None = None) -> int:
        """Wallet balance at ``at``; without it, after every entry already committed."""
        return sum(e.nanos for e in self.ledger if at is None or e.at <= at)

    def find_agent(self, ref: str) -> AgentRecord | None:
        if ref in self.agents:
            return self.agents[ref]
        return next((a for a in self.agents.values() if a.handle == ref), None)

    def tool_by_name(self, name: str) -> ToolRecord | None:
        return next((t for t in self.tools.values() if t.name == name), None)
