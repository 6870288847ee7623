"""The untrusted-text rule, without Textual: text shown literally, control characters visible.

Anything from the server, a file, the environment or the keyboard may hold terminal control
(ESC sequences that set the window title, clear the screen or, with OSC 52, write the clipboard).
Every character that could steer a terminal or reorder what is shown is replaced by a visible
stand-in:

* C0 controls and DEL as their control pictures (ESC → ␛, NUL → ␀, DEL → ␡);
* C1 controls (U+0080–U+009F) as ``\\x9b``-style escapes;
* bidirectional overrides and isolates (U+202A–U+202E, U+2066–U+2069, LRM, RLM, ALM) as
  ``\\u202e``-style escapes, so a name cannot display reversed;
* zero-width characters (U+200B–U+200D, U+2060, U+FEFF) the same way, so two names that look
  alike (``support`` and ``sup\\u200bport``) can be told apart; but for a joiner doing the work
  it is there for, which changes what is drawn: ZWJ inside an emoji sequence (👩‍⚕️), ZWJ and
  ZWNJ between letters of a script that shapes with them (Devanagari to Sinhala, Arabic);
* lone surrogates as escapes: a file name's undecodable byte (a raw 0x9B, read by Python as
  U+DC9B) as ``\\x9b``, so it is neither sent to the terminal nor fails to encode there;
* line and paragraph separators (U+2028, U+2029) like newlines.

Tabs and newlines are kept where the text wraps (``multiline=True``); on one line they become
spaces. The console's widgets use it through ``tui/untrusted.py``; the command line cleans its
table cells and labels with ``clean`` directly.

Two narrower rules serve what must stay exact data: ``defuse`` makes visible only what could
steer a terminal (controls, C1, bidi, separators, lone surrogates; zero-width characters steer
nothing and stay), and ``json_dumps`` writes those same characters as ``\\uXXXX`` escapes, so a
JSON document is equal to its data and still harmless when it lands on a terminal. The command
line's one writer (``scripting/output.py`` ``Defused``) passes everything it prints through
``defuse``.
"""

from __future__ import annotations

import functools
import json
import re
from typing import Any

_BIDI = "\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"
_SEPARATORS = "\u2028\u2029"
# Invisible, so a name holding one looks like a name without.
ZERO_WIDTH = "\u200b\u200c\u200d\u2060\ufeff"
_JOINERS = "\u200c\u200d"
# Where a joiner shows as a different drawing rather than as nothing: emoji (with their skin tones,
# variation selector and keycap) and the scripts that shape with ZWJ/ZWNJ.
_EMOJI = "\u2600-\u27bf\u2b00-\u2bff\u20e3\ufe0f\U0001f000-\U0001faff"
_SHAPED = "\u0600-\u061b\u061d-\u06ff\u0900-\u0dff"
_JOIN_KEPT = f"(?<=[{_EMOJI}])\u200d(?=[{_EMOJI}])|(?<=[{_SHAPED}])[{_JOINERS}](?=[{_SHAPED}])"
_OTHERS = "\u200b\u2060\ufeff"
_SHOWN = f"[{_BIDI}{_OTHERS}{_SEPARATORS}\ud800-\udfff]|(?!{_JOIN_KEPT})[{_JOINERS}]"
# Everything that is shown as something else; \t and \n are only replaced on one line.
UNSAFE = re.compile(f"[\x00-\x08\x0b-\x1f\x7f-\x9f]|{_SHOWN}")
UNSAFE_ONE_LINE = re.compile(f"[\x00-\x1f\x7f-\x9f]|{_SHOWN}")


def stand_in(char: str, multiline: bool) -> str:
    code = ord(char)
    if char in "\t\n" or char in _SEPARATORS:
        return "\n" if multiline and char != "\t" else ("\t" if multiline else " ")
    if code < 0x20:
        return chr(0x2400 + code)  # the Unicode control pictures: ␀ … ␟
    if code == 0x7F:
        return "\u2421"  # ␡
    if code <= 0x9F:
        return f"\\x{code:02x}"
    if 0xDC80 <= code <= 0xDCFF:
        return f"\\x{code - 0xDC00:02x}"  # the byte os.fsdecode could not decode
    return f"\\u{code:04x}"


_CODES = [*range(0x20), *range(0x7F, 0xA0), *map(ord, _BIDI + ZERO_WIDTH + _SEPARATORS), *range(0xD800, 0xE000)]


@functools.cache
def _table(multiline: bool) -> dict[int, str]:
    """Each shown character's stand-in. Made on first need (some 2,200 of them, ~5-15 ms): most
    text holds none, and a command that prints only clean text never pays for them."""
    return {c: stand_in(chr(c), multiline) for c in _CODES if not (multiline and chr(c) in "\t\n")}


def clean(value: object, *, multiline: bool = True) -> str:
    """``value`` as a string that shows literally: control characters made visible."""
    if value is None:
        return ""
    string = value if isinstance(value, str) else str(value)
    pattern = UNSAFE if multiline else UNSAFE_ONE_LINE
    if not pattern.search(string):
        return string
    table = _table(multiline)
    if "\u200c" in string or "\u200d" in string:  # a joiner may be kept: character by character
        return pattern.sub(lambda match: table[ord(match.group())], string)
    return string.translate(table)


def typeable(value: str) -> bool:
    """Whether ``value`` could have been typed into a one-line field: nothing in it that ``clean``
    would show as something else (the keyboard gives no control, bidi or zero-width character)."""
    return not UNSAFE_ONE_LINE.search(value)


# What could steer a terminal or reorder what it shows: ``UNSAFE`` but for zero-width characters.
STEERING = re.compile(f"[\x00-\x08\x0b-\x1f\x7f-\x9f{_BIDI}{_SEPARATORS}\ud800-\udfff]")
_STEERING_ONE_LINE = re.compile(f"[\x00-\x1f\x7f-\x9f{_BIDI}{_SEPARATORS}\ud800-\udfff]")


def defuse(text: str) -> str:
    """``text`` with every character that could steer a terminal made visible (as ``clean`` shows
    it); newlines, tabs and zero-width characters are kept. What the command line writes."""
    if not STEERING.search(text):
        return text
    table = _table(True)
    return STEERING.sub(lambda match: table[ord(match.group())], text)


def json_dumps(value: Any, indent: int | None = 2) -> str:
    """``value`` as JSON whose text holds nothing that could steer a terminal: ``\\uXXXX`` escapes
    instead (C0 controls, DEL, C1, bidi overrides, separators, lone surrogates), so the document
    parses to the very same data. Zero-width characters are written as they are."""
    text = json.dumps(value, ensure_ascii=False, indent=indent)
    # Outside strings JSON has only spaces and newlines, which this leaves alone; inside them
    # json.dumps already escaped C0 controls, and what is left (DEL, C1, bidi...) becomes \uXXXX.
    return _STEERING_ONE_LINE.sub(
        lambda m: m.group() if m.group() == "\n" else f"\\u{ord(m.group()):04x}", text)


# What XML 1.0 cannot hold even as a character reference (outside its Char production: U+FFFE,
# U+FFFF, lone surrogates), and the noncharacters it discourages (U+FDD0-U+FDEF, the last two of
# every plane): a parser stops at the first, so one in a server's answer made a report unreadable.
_NONCHARACTERS = "".join(chr(plane * 0x10000 + 0xFFFE) + chr(plane * 0x10000 + 0xFFFF) for plane in range(17))


@functools.cache
def _not_xml() -> re.Pattern[str]:
    # Compiled on first use: ~20 ms, which every command that writes no report paid at import.
    return re.compile(f"[^\t\n\r\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]|[\ufdd0-\ufdef{_NONCHARACTERS}]")


def xml_text(value: object, *, multiline: bool = True) -> str:
    """Text for an XML report (JUnit) whatever it holds: ``clean`` first (control characters as
    the terminal shows them), then anything XML cannot hold as a ``\\uXXXX`` escape."""
    return _not_xml().sub(lambda m: f"\\u{ord(m.group()):04x}", clean(value, multiline=multiline))
