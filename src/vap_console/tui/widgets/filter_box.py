"""The filter box above a list: a Textual Input that types without laying out the whole screen."""

from __future__ import annotations

from textual.geometry import Size
from textual.reactive import Reactive
from textual.widgets import Input


class FilterBox(Input):
    # Input sets its virtual width to its text's on every keystroke, and Widget.virtual_size asks
    # for a layout of the whole screen each time it changes: with a list of 10,000 rows and a
    # detail pane, a third of a keystroke's time. This box has a fixed size and no scrollbar, so
    # the new width needs a repaint of the box, not a layout.
    virtual_size: Reactive[Size] = Reactive(Size(0, 0), layout=False)
