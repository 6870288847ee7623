"""The clocks rental progress is read from."""

from __future__ import annotations

import time
from datetime import UTC, timedelta

import pytest

from vap_console.sandbox.clock import EPOCH, SystemClock, VirtualClock, iso


def test_virtual_clock_moves_only_when_advanced() -> None:
    clock = VirtualClock()
    assert clock.now() == EPOCH and clock.now().tzinfo is not None
    time.sleep(0.01)  # real time passes (nothing to wait for: the point is that it does not count)
    assert clock.now() == EPOCH
    assert clock.advance(1.5) == EPOCH + timedelta(seconds=1.5)
    with pytest.raises(ValueError):
        clock.advance(-1)


def test_system_clock_runs_speed_times_faster() -> None:
    before = time.monotonic()
    fast = SystemClock(speed=50)
    real = SystemClock()
    time.sleep(0.1)
    fast_run = (fast.now() - fast.start).total_seconds()
    real_run = (real.now() - real.start).total_seconds()
    elapsed = time.monotonic() - before
    # Measured against the real time that passed, however slowly the machine ran the test.
    # (A microsecond either way: timedelta rounds.)
    assert 50 * 0.1 - 1e-6 <= fast_run <= 50 * elapsed + 1e-6
    assert 0.1 - 1e-6 <= real_run <= elapsed + 1e-6
    assert fast.now().tzinfo == UTC
    with pytest.raises(ValueError):
        SystemClock(speed=0)


def test_wire_timestamps_are_utc_with_z() -> None:
    assert iso(EPOCH) == "2026-11-02T09:00:00.000Z"
    assert iso(None) is None
