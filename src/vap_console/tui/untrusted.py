"""The one way untrusted text reaches the screen: literally, with its control characters visible.

Anything from the server, a file, the environment or the keyboard may hold markup (``[b]``,
``[@click=app.quit]``) or terminal control (ESC sequences that set the title, clear the screen or,
with OSC 52, write the clipboard). Nothing here parses markup, and every character that could
steer the terminal or reorder what is shown is replaced by a visible stand-in:

* C0 controls and DEL as their control pictures (ESC → ␛, NUL → ␀, DEL → ␡);
* C1 controls (U+0080–U+009F) as ``\\x9b``-style escapes;
* bidirectional overrides and isolates (U+202A–U+202E, U+2066–U+2069, LRM, RLM, ALM) as
  ``\\u202e``-style escapes, so a name cannot display reversed;
* line and paragraph separators (U+2028, U+2029) like newlines.

Tabs and newlines are kept where the text wraps (``multiline=True``); on one line they become
spaces. Widgets take ``content()`` (Textual) or ``text()`` (Rich); ``safe()`` cleans a Rich
renderable built elsewhere (a detail pane's Group of Texts) and ``markup()`` fills a template the
console wrote with values that stay literal.
"""

from __future__ import annotations

import re
from typing import Any, TypeVar

from rich.console import Group, RenderableType
from rich.text import Span, Text
from textual import events
from textual.app import App
from textual.content import Content
from textual.notifications import SeverityLevel
from textual.widgets import Static

_BIDI = "\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"
_SEPARATORS = "\u2028\u2029"
# Everything that is shown as something else; \t and \n are only replaced on one line.
_UNSAFE = re.compile(f"[\x00-\x08\x0b-\x1f\x7f-\x9f{_BIDI}{_SEPARATORS}]")
_UNSAFE_ONE_LINE = re.compile(f"[\x00-\x1f\x7f-\x9f{_BIDI}{_SEPARATORS}]")


def _stand_in(char: str, multiline: bool) -> str:
    code = ord(char)
    if char in "\t\n" or char in _SEPARATORS:
        return "\n" if multiline and char != "\t" else ("\t" if multiline else " ")
    if code < 0x20:
        return chr(0x2400 + code)  # the Unicode control pictures: ␀ … ␟
    if code == 0x7F:
        return "\u2421"  # ␡
    if code <= 0x9F:
        return f"\\x{code:02x}"
    return f"\\u{code:04x}"


_CODES = [*range(0x20), *range(0x7F, 0xA0), *map(ord, _BIDI + _SEPARATORS)]
_MULTI = {c: _stand_in(chr(c), True) for c in _CODES if chr(c) not in "\t\n"}
_SINGLE = {c: _stand_in(chr(c), False) for c in _CODES}


def clean(value: object, *, multiline: bool = True) -> str:
    """``value`` as a string that shows literally: control characters made visible."""
    if value is None:
        return ""
    string = value if isinstance(value, str) else str(value)
    if multiline:
        return string.translate(_MULTI) if _UNSAFE.search(string) else string
    return string.translate(_SINGLE) if _UNSAFE_ONE_LINE.search(string) else string


def has_unsafe(value: str) -> bool:
    """Whether ``clean`` would change ``value`` (on one line)."""
    return _UNSAFE_ONE_LINE.search(value) is not None


def text(value: object, style: str = "", *, multiline: bool = True) -> Text:
    """A Rich Text that shows ``value`` literally (Rich Text never parses markup itself)."""
    return Text(clean(value, multiline=multiline), style=style)


def content(value: object, style: str = "", *, multiline: bool = True) -> Content:
    """A Textual Content that shows ``value`` literally: for Static, Label, Button and friends."""
    return Content.styled(clean(value, multiline=multiline), style) if style else Content(
        clean(value, multiline=multiline)
    )


def markup(template: str, **values: object) -> Content:
    """The console's own markup (``"[b]Number[/] $n"``) with untrusted values substituted as
    plain text: a ``[`` in a value is a bracket, not a tag."""
    return Content.from_markup(template, **{name: clean(v) for name, v in values.items()})


def clean_text(value: Text, *, multiline: bool = True) -> Text:
    """A Rich Text with its control characters made visible, its styles kept."""
    pattern = _UNSAFE if multiline else _UNSAFE_ONE_LINE
    plain = value.plain
    if not pattern.search(plain):
        return value
    offsets: list[int] = []
    for match in pattern.finditer(plain):
        offsets += [match.start(), match.end()]
    pieces = value.divide(offsets)
    out = Text(style=value.style, justify=value.justify, overflow=value.overflow,
               no_wrap=value.no_wrap, end=value.end)
    for piece in pieces:
        if len(piece) == 1 and pattern.match(piece.plain):
            stand_in = _stand_in(piece.plain, multiline)
            spans = [Span(0, len(stand_in), span.style) for span in piece.spans]
            out.append_text(Text(stand_in, style=piece.style, spans=spans))
        else:
            out.append_text(piece)
    return out


def safe(renderable: Any) -> RenderableType:
    """A renderable whose text shows literally: strings and Texts cleaned, Groups walked.

    Widgets that draw a renderable built from server data (detail panes) pass it through here, so
    a part built without ``text()`` still cannot reach the terminal as control.
    """
    if renderable is None:
        return Text()
    if isinstance(renderable, str):
        return text(renderable)
    if isinstance(renderable, Text):
        return clean_text(renderable)
    if isinstance(renderable, Content):
        return renderable if not _UNSAFE.search(renderable.plain) else Content(clean(renderable.plain))
    if isinstance(renderable, Group):
        return Group(*(safe(part) for part in renderable.renderables))
    return renderable  # our own renderables (Pairs, Timeline lines) clean their text themselves


ReturnType = TypeVar("ReturnType")


class LiteralApp(App[ReturnType]):
    """The console's apps: toasts and pastes go through the untrusted path, whoever sends them.

    A toast quotes names and server errors, so it never parses markup; a paste may carry a
    terminal's control sequences, which are made visible before any field takes them.
    """

    def notify(
        self,
        message: str,
        *,
        title: str = "",
        severity: SeverityLevel = "information",
        timeout: float | None = None,
        markup: bool = True,  # noqa: ARG002 - accepted for Textual's signature, never honoured
    ) -> None:
        super().notify(clean(message), title=clean(title, multiline=False), severity=severity,
                       timeout=timeout, markup=False)

    async def on_event(self, event: events.Event) -> None:
        if isinstance(event, events.Paste) and not event.is_forwarded:
            event.text = clean(event.text.replace("\r\n", "\n").replace("\r", "\n"))
        await super().on_event(event)


def _literal(value: Any) -> Any:
    if isinstance(value, str):
        return content(value)
    if isinstance(value, Content):
        # Content built by markup() is clean already; anything else is cleaned as plain text.
        return value if not _UNSAFE.search(value.plain) else Content(clean(value.plain))
    return safe(value)


class Literal(Static):
    """A Static for text that is not the console's own: whatever it is given shows literally."""

    def __init__(self, value: Any = "", **options: Any) -> None:
        super().__init__(_literal(value), markup=False, **options)

    def update(self, value: Any = "", *, layout: bool = True) -> None:
        super().update(_literal(value), layout=layout)
