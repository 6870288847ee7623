"""The one untrusted-text path: nothing parsed as markup, no control character left raw."""

from __future__ import annotations

import re

from hypothesis import given
from hypothesis import strategies as st
from rich.text import Text

from vap_console.tui import untrusted

RAW_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\u2028\u2029\u200b\u2060\ufeff]"
                         # a joiner beside ASCII joins nothing it could draw differently
                         "|[\u200c\u200d](?=[\x00-\x7e])|(?<=[\x00-\x7e])[\u200c\u200d]")


@given(st.text())
def test_cleaned_text_holds_no_raw_control_and_leaves_safe_text_alone(value: str) -> None:
    cleaned = untrusted.clean(value)
    assert not RAW_CONTROL.search(cleaned)
    one_line = untrusted.clean(value, multiline=False)
    assert "\n" not in one_line and "\t" not in one_line and not RAW_CONTROL.search(one_line)
    if not RAW_CONTROL.search(value) and not {"\u200c", "\u200d"} & set(value):
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


# Characters that draw as nothing, or only reorder what is around them.
INVISIBLE = "\u200b\u200c\u200d\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2060\u2066\u2067\u2068\u2069\ufeff"
NAME_PARTS = st.text(alphabet=st.sampled_from("sport" + INVISIBLE), max_size=12)


@given(NAME_PARTS, NAME_PARTS)
def test_names_differing_only_in_invisible_characters_look_different(one: str, other: str) -> None:
    for multiline in (True, False):
        shown_one, shown_other = untrusted.clean(one, multiline=multiline), untrusted.clean(other, multiline=multiline)
        assert not any(char in INVISIBLE for char in shown_one)
        assert (shown_one == shown_other) == (one == other)


def test_zero_width_characters_show_as_escapes_like_bidi_ones() -> None:
    assert untrusted.clean("sup\u200bport") == "sup\\u200bport"
    assert untrusted.clean("\ufeffname\u2060", multiline=False) == "\\ufeffname\\u2060"
    assert untrusted.clean("a\u200cb\u200db") == "a\\u200cb\\u200db"


def test_joiners_that_change_the_drawing_are_kept() -> None:
    # Emoji sequences and shaped scripts draw differently with their joiner: nothing is hidden.
    for name in ("👩\u200d⚕️ doctor", "👩🏽\u200d💻", "🏳️\u200d🌈", "दंत\u200cचिकित्सा", "می\u200cخواهم"):
        assert untrusted.clean(name) == name and untrusted.clean(name, multiline=False) == name
    # A joiner anywhere else draws as nothing: shown.
    assert untrusted.clean("sup\u200dport 👩\u200d") == "sup\\u200dport 👩\\u200d"
