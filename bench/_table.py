"""Shared table printing for benchmarks: one row per measure, with the goal and whether it holds."""

from __future__ import annotations


def print_table(title: str, rows: list[tuple[str, str, str, bool | None]]) -> bool:
    """rows: (measure, value, goal, met). Returns True when every goal with a verdict is met."""
    print(title)
    texts = [(m, v, g) for m, v, g, _ in rows] + [("measure", "value", "goal")]
    widths = [max(len(t[i]) for t in texts) for i in range(3)]
    header = ("measure", "value", "goal")
    print("  ".join(h.ljust(w) for h, w in zip(header, widths)) + "  ok")
    for measure, value, goal, met in rows:
        mark = "" if met is None else ("yes" if met else "NO")
        print("  ".join(c.ljust(w) for c, w in zip((measure, value, goal), widths)) + f"  {mark}")
    return all(m for *_, m in rows if m is not None)
