"""The one untrusted-text path: nothing parsed as markup, no control character left raw."""

from __future__ import annotations

import re

from hypothesis import given
from hypothesis import strategies as st
from rich.text import Text

from vap_console.tui import untrusted

RAW_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\u2028\u2029]")


@given(st.text())
def test_cleaned_text_holds_no_raw_control_and_leaves_safe_text_alone(value: str) -> None:
    cleaned = untrusted.clean(value)
    assert not RAW_CONTROL.search(cleaned)
    one_line = untrusted.clean(value, multiline=False)
    assert "\n" not in one_line and "\t" not in one_line and not RAW_CONTROL.search(one_line)
    if not RAW_CONTROL.search(value):
        assert cleaned == value


def test_control_characters_show_as_visible_stand_ins() -> None:
    osc52 = "run \x1b]52;c;cm0gLXJmIH4=\x07 now"
    assert untrusted.clean(osc52) == "run ␛]52;c;cm0gLXJmIH4=␇ now"
    assert untrusted.clean("a\x9bb\x7fc") == "a\\x9bb␡c"
    assert untrusted.clean("invoice\u202efdp.exe") == "invoice\\u202efdp.exe"
    assert untrusted.clean("two\nlines\tand", multiline=False) == "two lines and"


def test_text_shows_what_rich_would_drop() -> None:
    assert untrusted.text("bell\x07 back\x08").plain == "bell␇ back␈"


def test_markup_in_values_stays_literal() -> None:
    hostile = "Ops [/] desk [@click=app.quit]x[/] [b]bold?"
    assert untrusted.content(hostile).plain == hostile
    assert untrusted.markup("[b]Agent[/] $name", name=hostile).plain == f"Agent {hostile}"
    assert not untrusted.markup("$name", name="[@click=app.quit]q[/]").spans


@given(st.text(), st.integers(0, 20), st.integers(0, 20))
def test_a_cleaned_rich_text_keeps_its_styles(value: str, start: int, end: int) -> None:
    rich = Text(value)
    rich.stylize("bold", start, end)
    cleaned = untrusted.clean_text(rich)
    # (Rich's Text drops BEL, BS, VT, FF and CR itself; text() cleans before Rich sees them.)
    assert cleaned.plain == untrusted.clean(rich.plain)
    assert not RAW_CONTROL.search(cleaned.plain)
    stretch = rich.plain[start:end]
    if stretch and not RAW_CONTROL.search(stretch):
        # A styled stretch with no control in it is still styled after cleaning.
        at = len(untrusted.clean(rich.plain[:start]))  # where the stretch begins once cleaned
        assert cleaned.plain[at:at + len(stretch)] == stretch
        assert cleaned.get_style_at_offset(untrusted_console(), at).bold


def untrusted_console():
    from rich.console import Console

    return Console()
