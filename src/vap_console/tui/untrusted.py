"""The one way untrusted text reaches the screen: literally, with its control characters visible.

The rule itself (which characters, their stand-ins) is ``vap_console.literal``; this module fits
it to Textual and Rich. Nothing here parses markup (``[b]``, ``[@click=app.quit]``). Widgets take
``content()`` (Textual) or ``text()`` (Rich); ``safe()`` cleans a Rich renderable built elsewhere
(a detail pane's Group of Texts), ``markup()`` fills a template the console wrote with values that
stay literal, ``Literal`` is a Static that cleans whatever it is given, ``LiteralInput`` an Input
that does the same with its value and placeholder, ``refused`` says why a value that no keyboard
could have typed is kept out of a field, and ``LiteralApp`` cleans every toast and paste.
"""

from __future__ import annotations

from typing import Any, TypeVar

from rich.console import Group, RenderableType
from rich.text import Span, Text
from textual import events
from textual.binding import Binding
from textual.content import Content
from textual.notifications import SeverityLevel
from textual.widget import Widget
from textual.widgets import Input, Static

from vap_console.literal import UNSAFE, UNSAFE_ONE_LINE, clean, stand_in, typeable
from vap_console.tui.css_refresh import CssRefreshedOnChange


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
    pattern = UNSAFE if multiline else UNSAFE_ONE_LINE
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
            visible = stand_in(piece.plain, multiline)
            spans = [Span(0, len(visible), span.style) for span in piece.spans]
            out.append_text(Text(visible, style=piece.style, spans=spans))
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
        return renderable if not UNSAFE.search(renderable.plain) else Content(clean(renderable.plain))
    if isinstance(renderable, Group):
        return Group(*(safe(part) for part in renderable.renderables))
    return renderable  # our own renderables (Pairs, Timeline lines) clean their text themselves


ReturnType = TypeVar("ReturnType")


class LiteralApp(CssRefreshedOnChange[ReturnType]):
    """The console's apps: toasts and pastes go through the untrusted path, whoever sends them.

    A toast quotes names and server errors, so it never parses markup; a paste may carry a
    terminal's control sequences, which are made visible before any field takes them.
    """

    # Tab moves the focus as the key arrives, not when the field that had it gets round to it:
    # a key is handed to whatever has the focus on arrival, so without priority the text typed
    # right after Tab went on queueing into the field Tab was leaving ("12 FC RoadShivajinagar").
    BINDINGS = [
        Binding("tab", "focus_next", "Next field", show=False, priority=True, id="app.focus_next",
                tooltip="Move to the next field or button"),
        Binding("shift+tab", "focus_previous", "Previous field", show=False, priority=True,
                id="app.focus_previous", tooltip="Move to the previous field or button"),
    ]

    def notify(
        self,
        message: str,
        *,
        title: str = "",
        severity: SeverityLevel = "information",
        timeout: float | None = None,
        markup: bool = True,  # accepted for Textual's signature, never honoured
    ) -> None:
        super().notify(clean(message), title=clean(title, multiline=False), severity=severity,
                       timeout=timeout, markup=False)

    def on_descendant_focus(self, event: events.DescendantFocus) -> None:
        # Textual scrolls a newly focused widget into view before the next layout; when the same
        # change shows it (a wizard step, a section unfolding) its place is not known yet and the
        # view stays where it was, the focus off screen. Once laid out, it is brought into view.
        self.call_after_refresh(self._reveal_focus, event.widget)

    def _reveal_focus(self, widget: Widget) -> None:
        if widget is self.focused and widget.is_attached:
            # Textual's own scroll to a newly focused widget is animated. Finished first, the view
            # ends in the same place whether this runs before or after that animation; a scroll
            # cut short at a moment that depends on the machine's speed left it half a line apart.
            for ancestor in widget.ancestors:
                self.animator.force_stop_animation(ancestor, "scroll_x")
                self.animator.force_stop_animation(ancestor, "scroll_y")
            widget.scroll_visible(animate=False, immediate=True)

    async def on_event(self, event: events.Event) -> None:
        if isinstance(event, events.Paste) and not event.is_forwarded:
            event.text = clean(event.text.replace("\r\n", "\n").replace("\r", "\n"))
        if isinstance(event, events.MouseEvent) and not event.is_forwarded and self._lands_on_removed(event):
            # Between a widget's removal and the next layout, the screen's map still has it there;
            # Textual's text selection then looks up its parent (gone) and stops the console. The
            # press is on something no longer shown: dropping it loses nothing (found by make soak).
            return
        await super().on_event(event)

    def _lands_on_removed(self, event: events.MouseEvent) -> bool:
        try:
            widget, _ = self.screen.get_widget_and_offset_at(event.x, event.y)
        except Exception:  # noqa: BLE001 - no screen yet, or none any more: nothing to protect
            return False
        return widget is not None and widget.parent is None and widget is not self.screen


def _literal(value: Any) -> Any:
    if isinstance(value, str):
        return content(value)
    if isinstance(value, Content):
        # Content built by markup() is clean already; anything else is cleaned as plain text.
        return value if not UNSAFE.search(value.plain) else Content(clean(value.plain))
    return safe(value)


class Literal(Static):
    """A Static for text that is not the console's own: whatever it is given shows literally."""

    def __init__(self, value: Any = "", **options: Any) -> None:
        super().__init__(_literal(value), markup=False, **options)

    def update(self, value: Any = "", *, layout: bool = True) -> None:
        super().update(_literal(value), layout=layout)


class LiteralInput(Input):
    """An Input whose value and placeholder show literally, whoever sets them.

    Textual draws an Input's text as it is: an ESC in it reaches the terminal as an ESC. The
    keyboard gives none and LiteralApp cleans every paste, so this catches what a screen puts in
    itself (a search result, a file name, a URL from the config) where that screen has not already
    refused the value or kept the real one aside: it is then shown, and sent, with its stand-ins.
    """

    def validate_value(self, value: str) -> str:
        return clean(value, multiline=False)

    def validate_placeholder(self, value: str) -> str:
        return clean(value, multiline=False)


# How much of a refused value is quoted: enough to recognise it, never a screenful.
QUOTED = 60


def refused(field: str, value: str, source: str = "the server's value") -> str | None:
    """Why ``value`` is kept out of the field labelled ``field``, or None when a person could have
    typed it: the message names the field and shows the value with its stand-ins."""
    if typeable(value):
        return None
    shown = clean(value, multiline=False)
    shown = shown if len(shown) <= QUOTED else shown[:QUOTED - 1] + "…"
    return f"{field}: {source} “{shown}” holds characters that cannot be typed"
