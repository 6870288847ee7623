"""Helpers for the release-gate tests of `vap agents test`: a sandbox at a speed where a short
call is well inside its 120 s max_duration (6 s of wall time) on a loaded machine, per-agent
settings given as --faults, and test files written to the test's folder."""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from tests.talk.cli import Talker
from vap_console.sandbox.keys import by_name
from vap_console.sandbox.server import RunningSandbox, start_in_thread
from vap_console.sandbox.voice.call_records import CallRecord

SPEED = 20
PRIYA = "ua_4152f853c72d"   # clinic-receptionist (sandbox/seed.py: ids are stable)
ARJUN = "ua_4f353ac418fc"   # lead-qualifier
HOURS = {"name": "hours", "turns": [{"say": "What are your support hours?", "expect": {"contains": "9 am"}}]}


@contextmanager
def gate_sandbox(tmp_path: Path, capsys: Any, faults: str = "") -> Iterator[Talker]:
    with start_in_thread(speed=SPEED, faults=faults) as sandbox:
        yield Talker(sandbox, tmp_path, capsys)


def write(tmp_path: Path, data: object, name: str = "suite.json") -> str:
    path = tmp_path / name
    path.write_text(json.dumps(data), encoding="utf-8")
    return str(path)


def socket_calls(sandbox: RunningSandbox, key: str = "agent") -> list[CallRecord]:
    account = sandbox.state.account(by_name(key))
    return [c for c in account.calls.values() if isinstance(c, CallRecord) and c.kind == "socket"]


def most_at_once(calls: list[CallRecord]) -> int:
    """The most socket calls in progress at one instant of the sandbox clock."""
    marks = sorted([(c.started_at, 1) for c in calls if c.started_at and c.ended_at]
                   + [(c.ended_at, -1) for c in calls if c.started_at and c.ended_at])
    most = now = 0
    for _, step in marks:
        now += step
        most = max(most, now)
    return most


def hold_slots(sandbox: RunningSandbox, count: int, seconds: float, key: str = "agent") -> datetime:
    """Take ``count`` call slots with web calls that end ``seconds`` of the sandbox clock from now."""
    account = sandbox.state.account(by_name(key))
    ends = sandbox.state.clock.now() + timedelta(seconds=seconds)
    for _ in range(count):
        account.webcalls.append({"agentId": "held", "endsAt": ends})
    return ends
