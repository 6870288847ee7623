"""Widgets whose size is set by their parent, so a new virtual size needs no second layout.

Textual's Widget.virtual_size is a reactive that lays the screen out again when it changes, and the
layout that resized a widget sets it: every resize cost a second layout of the whole screen, a
frame later (and a key waits for each frame, up to 33 ms apart). The filter box above a list,
shown by `/` and hidden by escape, resized the list's switcher and the row table's scrollbar each
time. These two take their size from their parent (the switcher fills the list pane, the bar the
table's height), so their virtual size changes nothing around them: it is set without a layout or
a repaint (the layout that resized them repaints them in the same frame).
"""

from __future__ import annotations

from typing import Self

from textual.geometry import Region, Size
from textual.reactive import Reactive
from textual.scrollbar import ScrollBar
from textual.widgets import ContentSwitcher


class ListSwitch(ContentSwitcher):
    """The list's switcher between its state ("Loading…", an error) and its rows."""

    virtual_size: Reactive[Size] = Reactive(Size(0, 0), layout=False, repaint=False)


class TableScrollBar(ScrollBar):
    """The row table's vertical scrollbar (RowTable.vertical_scrollbar)."""

    virtual_size: Reactive[Size] = Reactive(Size(0, 0), layout=False, repaint=False)

    def refresh(self, *regions: Region, repaint: bool = True, layout: bool = False,
                recompose: bool = False) -> Self:
        # Where the bar goes and how big it is are the table's to say (Widget._arrange_scrollbars
        # reads the table's styles). Its own styles are set again on every focus change of the
        # table, its size among them, each asking for a layout: `/` laid the screen out twice.
        return super().refresh(*regions, repaint=repaint, layout=False, recompose=recompose)
