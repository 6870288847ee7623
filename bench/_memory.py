"""A process's own memory, read from /proc/self (Linux): for the benchmarks that measure peak RSS."""

from __future__ import annotations

from pathlib import Path


def status_kb(field: str) -> int:
    """A /proc/self/status figure in kB: VmRSS (resident now), VmHWM (the peak since the last reset)."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1])
    raise RuntimeError(f"{field} not in /proc/self/status")


def reset_peak() -> bool:
    """Reset VmHWM (peak RSS) to the current RSS by writing 5 to clear_refs (Linux ≥ 4.0).

    False where that is refused: the peak then still counts what came before.
    """
    try:
        Path("/proc/self/clear_refs").write_text("5")
        return True
    except OSError:
        return False
