"""Where a problem is shown: server errors marked on the fields they name, and the first marked
field of a step found and described for the banner. The wizard decides when; this says where."""

from __future__ import annotations

from textual.widget import Widget
from textual.widgets import Input, Static

from vap_console.tui.screens.wizard.documents import entry_of
from vap_console.tui.screens.wizard.fields import mark_field
from vap_console.tui.screens.wizard.rules import Landing, first_step


def mark_landings(root: Widget, landings: list[Landing]) -> str:
    """Mark each landing's field under ``root``; the step to show (the first one named)."""
    for landing in landings:
        if landing.input_id and "-field-" in landing.input_id and not root.query(f"#{landing.input_id}"):
            # Documents typed by hand keep their data fields in one key=value input.
            landing = Landing(landing.step, landing.input_id.split("-field-")[0] + "-data",
                              f"{landing.input_id.split('-field-')[1]}: {landing.message}")
        if landing.input_id and root.query(f"#{landing.input_id}"):
            if landing.input_id.endswith("-path"):
                entry = entry_of(root.query_one(f"#{landing.input_id}"))
                if entry is not None:
                    entry.show_file([landing.message])
            else:
                mark_field(root, landing.input_id, landing.message)
    return first_step(landings)


def marked_inputs(step: Widget) -> list[Input]:
    return [w for w in step.query(Input) if w.has_class("-invalid")]


def first_problem(step: Widget) -> tuple[Input, Static | None, str, int] | None:
    """The step's first marked input, the line saying its problem, that problem as the banner
    names it (a document's title first), and how many inputs are marked; None when none is."""
    marked = marked_inputs(step)
    if not marked:
        return None
    widget = marked[0]
    entry = entry_of(widget)
    found = step.query(f"#{widget.id}-error")
    status = found.first(Static) if found else None
    problem = str(status.content).removeprefix("✖ ").strip() if status is not None else ""
    if entry is not None:
        if widget.id and widget.id.endswith("-path"):
            problem = f"file: {problem}"
        problem = f"{entry.title} — {problem}"
    return widget, status, problem, len(marked)
