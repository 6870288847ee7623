"""Where the console's layout changes with the terminal's size.

Textual gives every screen the class of the band its width (and height) falls in; console.tcss
and the dialogs' CSS lay out by these classes.

- ``-narrow`` (under 100 columns): side by side, a 46-column detail pane left the list about 30
  columns (numbers cut, City and Rent gone), so the detail stacks below the list; forms put fewer
  fields on a row.
- ``-wide`` (180 columns and more): every list column whole with room to spare, so the detail
  pane takes two fifths instead of a third.
- ``-short`` (under 30 rows): dialogs spend fewer rows on padding and one-line buttons.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from textual.screen import Screen

HORIZONTAL: list[tuple[int, str]] = [(0, "-narrow"), (100, "-medium"), (180, "-wide")]
VERTICAL: list[tuple[int, str]] = [(0, "-short"), (30, "-tall")]


def band(value: int, bands: list[tuple[int, str]]) -> str:
    """The class of the band ``value`` falls in."""
    name = ""
    for start, candidate in sorted(bands):
        if value >= start:
            name = candidate
    return name


def apply_now(screen: Screen[Any], width: int, height: int) -> None:
    """Give ``screen`` its bands' classes now. Textual does it on the screen's first Resize, after
    a first layout in the other bands: a dialog drew one frame wrong, and a click aimed from that
    frame landed elsewhere."""
    classes: dict[str, bool] = {}
    for bands, value in ((HORIZONTAL, width), (VERTICAL, height)):
        chosen = band(value, bands)
        classes.update({name: name == chosen for _, name in bands})
    screen.update_classes(classes, animate=False)
