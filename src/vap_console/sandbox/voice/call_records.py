"""Call records: every web call, socket session and outbound call the sandbox places, as
``GET /v1/calls/{id}`` shows it (reference voice.md §4). Kept per account in ``Account.calls``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

# Terminal statuses (voice.md §4: a client polls until one of these).
CALLING = "calling"
IN_PROGRESS = "in_progress"
COMPLETED = "completed"
FAILED = "failed"
EXPIRED = "expired"
TERMINAL = frozenset({COMPLETED, FAILED, EXPIRED})


@dataclass
class CallRecord:
    id: str
    agent_id: str
    kind: str  # "web", "socket" or "outbound"
    status: str
    created_at: datetime
    started_at: datetime | None = None
    ended_at: datetime | None = None
    end_reason: str | None = None
    credits_charged: float = 0.0
    to_number: str | None = None
    from_trunk_id: str | None = None
    # [{"role": "user"|"assistant", "content": "..."}], in order
    transcript: list[dict[str, str]] = field(default_factory=list)
    tools_called: list[str] = field(default_factory=list)
    # The call's audio, both sides mixed in time order (PCM s16le 24 kHz mono), for the recording.
    audio: bytearray = field(default_factory=bytearray, repr=False)
    summary: str | None = None
    extra: dict[str, Any] = field(default_factory=dict)
