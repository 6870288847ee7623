"""The wizard's line of steps: where the person is, what is done, what was skipped."""

from __future__ import annotations

from textual.content import Content
from textual.widgets import Static

from vap_console.tui.screens.wizard.rules import STEP_TITLES, STEPS


class StepIndicator(Static):
    DEFAULT_CSS = """
    StepIndicator { height: 1; margin-bottom: 1; }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._current = ""
        self._skipped: set[str] = set()

    def show(self, current: str, skipped: set[str]) -> None:
        self._current, self._skipped = current, set(skipped)
        self._draw()

    def on_resize(self) -> None:
        self._draw()

    def _draw(self) -> None:
        if not self._current:
            return
        line = self._line(titled=set(STEPS))
        if line.cell_length > self.content_size.width > 0:
            # An 80-column terminal cut the last steps off: only the current one keeps its title.
            line = self._line(titled={self._current})
        self.update(line)

    def _line(self, titled: set[str]) -> Content:
        parts: list[Content | str] = []
        reached = True
        for number, step in enumerate(STEPS, start=1):
            if step == self._current:
                style, reached = "bold reverse $accent", False
            elif step in self._skipped:
                style = "strike $text-muted"
            elif reached:
                style = "$success"
            else:
                style = "$text-muted"
            if parts:
                parts.append(Content.styled(" › ", "$text-muted"))
            label = f" {number} {STEP_TITLES[step]} " if step in titled else f" {number} "
            parts.append(Content.styled(label, style))
        return Content.assemble(*parts)
