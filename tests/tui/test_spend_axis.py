"""The Spend charts' count axis: whole numbers only, ending at the first tick at or over the
tallest bar, so a quiet month's one call a day fills the chart instead of a quarter of it."""

from __future__ import annotations

import re

import pytest
from textual.geometry import Size

from vap_console.tui.widgets.bar_chart import draw


def axis_labels(values: list[float]) -> list[int]:
    labels = tuple(f"11-{d:02d}" for d in range(1, len(values) + 1))
    lines = draw("Calls a day", ((labels, tuple(values)), Size(60, 16), "textual-dark"))
    text = [strip.text for strip in lines]
    return sorted({int(m.group(1)) for line in text if (m := re.match(r"\s*(\d+)\s*┤", line))})


@pytest.mark.parametrize("values, ticks", [
    ([0, 1, 0, 1], [0, 1]),
    ([0, 0, 0], [0, 1]),
    ([3, 1], [0, 1, 2, 3]),
    ([10, 2], [0, 3, 6, 9, 12]),
])
def test_the_count_axis_ends_at_the_tallest_bar(values: list[float], ticks: list[int]) -> None:
    assert axis_labels(values) == ticks
