"""The Talk screen's small widgets: the transcript, the speaking indicator, the billed timer, the
call slots and (where the call has sound) muted and microphone. Each redraws only when the
conversation part it shows changes (``api/conversation.py`` names them); all server text goes
through ``tui/untrusted.py``."""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from itertools import count
from typing import TYPE_CHECKING, Any, Self, cast

from rich.segment import Segment
from textual.cache import LRUCache
from textual.containers import Vertical
from textual.content import Content
from textual.geometry import Region, Size
from textual.message import Message
from textual.reactive import Reactive, reactive
from textual.scroll_view import ScrollView
from textual.strip import Strip
from textual.visual import Visual
from textual.widgets import Input, Static
from textual.widgets.input import Selection

from vap_console.api.conversation import Conversation, Turn
from vap_console.api.figures import Times
from vap_console.api.models import AgentLimits
from vap_console.tui import untrusted

if TYPE_CHECKING:
    from rich.style import Style
    from textual.css.styles import RulesMap

SPEAKERS = {"assistant": "Agent", "user": "You"}
# After a line of the person's heard while the agent's turn still arrives: it is answered next.
WAITING = "  ⧗ waiting for the agent to finish…"


def seconds(ms: float | None) -> str:
    """An answer time as the screen shows it: ``0.84 s``; ``—`` when there is none."""
    return "—" if ms is None else f"{ms / 1000:.2f} s"


def turn_content(turn: Turn, *, arriving: bool = False) -> Content:
    who = SPEAKERS.get(turn.role, turn.role.title() or "?")
    style = "bold $text-accent" if turn.role == "assistant" else "bold $text-success"
    body = untrusted.content(turn.text or "…")
    # An unknown role is the server's word: shown literally, like what was said.
    parts = [untrusted.content(f"{who}", style, multiline=False)]
    if turn.answer_ms is not None:
        # Beside the label, muted: how long the person waited for this answer.
        parts.append(Content.styled(f" {seconds(turn.answer_ms)}", "dim"))
    parts += [Content.styled(": ", style), body]
    if arriving:
        parts.append(Content.styled(" ▍", "$accent"))
    if turn.interrupted_at is not None:
        cut = len(turn.interrupted_at.split())
        parts.append(Content.styled(f"  ⟂ interrupted after {cut} word{'s' if cut != 1 else ''}", "italic $warning"))
    elif turn.cut_off:
        parts.append(Content.styled("  ⟂ cut off: the call ended", "italic $warning"))
    return Content("").join(parts)


@dataclass(eq=False)
class _Block:
    """One paragraph of the transcript: a turn, the turn arriving, or a note of the console's."""

    content: Content
    indent: int = 0
    gap: bool = True  # a blank line after it (turns have one, notes do not)
    note: bool = False
    arriving: bool = False
    turn: Turn | None = None  # the person's turn a held line shows
    height: int = 0  # lines at the width last laid out, the gap included
    measured: tuple[int, int] = (-1, -1)  # the (version, width) ``height`` was measured for
    # Names the content drawn: a new one for each change, so the lines drawn of the old are not reused.
    version: int = field(default_factory=lambda: next(_VERSIONS))

    def change(self, content: Content) -> None:
        self.content = content
        self.version = next(_VERSIONS)


_VERSIONS: Iterator[int] = count()


class TranscriptView(ScrollView, can_focus=True):
    """Settled turns, then the agent's turn still arriving, then what the person said meanwhile
    (they settle after it, as they were said). Follows the newest line unless the
    person has scrolled up to read (then it stays where they are).

    Drawn line by line (Textual's line API), not as a widget per turn: a widget costs about 40 KiB
    however short its text, so a 10-minute call grew the console by megabytes (bench/talk_memory.py).
    Here a turn costs its text; the lines drawn are kept for the last ``CACHED`` paragraphs only,
    and only the paragraphs on screen are drawn."""

    # No mouse selection: it needs every line tagged with its place, a style per line number that
    # Rich and Textual cache, which grows with the call again.
    ALLOW_SELECT = False
    COMPONENT_CLASSES = {"transcript--arriving"}
    DEFAULT_CSS = """
    TranscriptView { height: 1fr; border: round $primary 50%; padding: 0 1; overflow-x: hidden; }
    TranscriptView > .transcript--arriving { color: $text-muted; }
    """
    # Its size is its parent's (1fr of the screen): a longer transcript only scrolls further, so a
    # new virtual size needs no layout of the whole screen. Textual's reactive asked for one each
    # time a line was added (bench/talk.py: ~40 ms of CPU each); the scroll bars are told here.
    virtual_size: Reactive[Size] = Reactive(Size(0, 0), layout=False, repaint=False)
    CACHED = 32  # more than the paragraphs a screen shows at 120×36 (two lines each, at least)
    MAX_NOTES = 200  # the console's own lines kept, as ``max_lines`` turns: the oldest go

    def __init__(self, *, max_lines: int = 500, id: str | None = None) -> None:
        super().__init__(id=id)
        self.max_lines = max_lines
        self._shown = 0  # settled turns shown so far (from the conversation's running count)
        self._blocks: list[_Block] = []
        self._live: _Block | None = None
        self._held: list[_Block] = []  # the person's lines heard while the agent's turn arrives
        self._turns = 0  # blocks that are turns (the rest are notes)
        self._notes = 0
        self._keyed: dict[str, _Block] = {}  # notes updated in place (a running count), by key
        self._batching = 0
        self._starts: list[int] = []  # the first line of each block, the live one last
        self._width = 0
        self._strips: LRUCache[tuple[int, int], list[Strip]] = LRUCache(self.CACHED)
        # Recent paragraphs by what they say, so one said again is wrapped once (_turn_block).
        self._said: LRUCache[tuple[object, ...], tuple[Content, int]] = LRUCache(8)
        self._line_style: Style | None = None  # while a pass draws lines (render_lines)
        # The lines render_lines last handed out: for which crop and line filters, and the styles
        # cache's own line each came from (the same object there: the line is still good).
        self._kept: tuple[Region, tuple[object, ...], list[Strip], list[Strip | None]] | None = None
        # What the last refresh drew: each paragraph (id, version), where each starts, the size.
        self._drawn: tuple[list[tuple[int, int]], list[int], Size] = ([], [], Size(0, 0))

    # --- what the screen calls ---

    def show_turns(self, talk: Conversation, settled_total: int) -> None:
        """Show the settled turns not shown yet (``settled_total``: how many have settled in all)."""
        follow = self._following()
        new = settled_total - self._shown
        if new > 0:
            fresh = list(talk.turns)[-new:] if new <= len(talk.turns) else list(talk.turns)
            for turn in fresh:
                self._blocks.append(self._turn_block(turn))
                self._turns += 1
            self._shown = settled_total
            self._trim()
        elif talk.turns:
            # An interruption marks a turn already shown: redraw the last settled turn.
            last = next((b for b in reversed(self._blocks) if not b.note), None)
            if last is not None:
                last.change(turn_content(talk.turns[-1]))
        self._laid_out(follow)

    def show_live(self, turn: Turn | None, held: list[Turn] | None = None) -> None:
        follow = self._following()
        held = held or []
        if len(held) != len(self._held) or any(b.turn is not t for b, t in zip(self._held, held, strict=True)):
            # A held turn is settled text: its block is made once and kept while it is held.
            known = {id(b.turn): b for b in self._held}
            self._held = [known.get(id(t)) or self._turn_block(t, held=True) for t in held]
        if turn is None:
            if self._live is None:
                self._laid_out(follow)
                return
            self._live = None
        else:
            content = turn_content(turn, arriving=True)
            if self._live is None:
                self._live = _Block(content, arriving=True)
            else:
                self._live.change(content)
        self._laid_out(follow)

    def reset_count(self) -> None:
        """A new call's conversation starts counting its turns from none."""
        self._shown = 0

    def note(self, text: str, style: str = "italic $text-muted", *, key: str | None = None) -> None:
        """A line of the console's own (the call started, a problem) in the transcript; any server
        text in it (a call id, an error's message) is shown literally. A ``key`` already noted (and
        still kept) is updated and moved to the end instead of adding a line (a running count)."""
        follow = self._following()
        content = untrusted.content(text, style)
        block = self._keyed.get(key) if key is not None else None
        if block is not None:
            block.change(content)
            if self._blocks[-1] is not block:
                self._blocks.remove(block)
                self._blocks.append(block)
        else:
            block = _Block(content, gap=False, note=True)
            self._blocks.append(block)
            self._notes += 1
            if key is not None:
                self._keyed[key] = block
            self._trim()
        self._laid_out(follow)

    def _turn_block(self, turn: Turn, *, held: bool = False) -> _Block:
        """A settled turn's paragraph, or (``held``) a line the person said while the agent's turn
        arrives. A turn that says what a recent one said shares its content and version, so its
        lines are wrapped once: a server flooding the person's words brought about 150 new turns
        and 20 held lines to each redraw, each wrapped anew (~50 ms of CPU a redraw, ten a
        second), and Esc waited behind them."""
        key = (held, turn.role, turn.text, turn.answer_ms, turn.interrupted_at, turn.cut_off)
        indent = 2 if held or turn.role == "user" else 0
        made = self._said.get(key)
        if made is None:
            block = _Block(self._waiting(turn) if held else turn_content(turn), indent=indent,
                           turn=turn if held else None)
            self._said[key] = (block.content, block.version)
            return block
        content, version = made
        return _Block(content, indent=indent, turn=turn if held else None, version=version)

    @staticmethod
    def _waiting(turn: Turn) -> Content:
        return Content("").join([turn_content(turn), Content.styled(WAITING, "italic $text-muted")])

    @property
    def notes(self) -> list[str]:
        """The console's own lines, as text, oldest first."""
        return [b.content.plain for b in self._blocks if b.note]

    @property
    def lines(self) -> list[str]:
        """Every paragraph as text, the turn arriving last (for tests and copying)."""
        return [b.content.plain for b in self._all()]

    # --- laying out ---

    def _all(self) -> list[_Block]:
        if self._live is None and not self._held:
            return self._blocks
        return [*self._blocks, *([self._live] if self._live is not None else []), *self._held]

    def _trim(self) -> None:
        """At most ``max_lines`` turns and ``MAX_NOTES`` notes: the oldest go (a turn's notes
        before it with it)."""
        if self._turns > self.max_lines:
            drop = 0
            while self._turns > self.max_lines:
                if self._blocks[drop].note:
                    self._notes -= 1
                else:
                    self._turns -= 1
                drop += 1
            self._forget(self._blocks[:drop])
            del self._blocks[:drop]
        if self._notes > self.MAX_NOTES:
            gone = [b for b in self._blocks if b.note][:self._notes - self.MAX_NOTES]
            self._forget(gone)
            dropped = set(map(id, gone))
            self._blocks = [b for b in self._blocks if id(b) not in dropped]
            self._notes = self.MAX_NOTES

    def _forget(self, blocks: list[_Block]) -> None:
        if self._keyed:
            gone = set(map(id, blocks))
            self._keyed = {k: b for k, b in self._keyed.items() if id(b) not in gone}

    def _following(self) -> bool:
        return self.scroll_y >= self.max_scroll_y - 1

    @contextmanager
    def in_one_layout(self) -> Iterator[None]:
        """Several changes laid out once, at the end (a redraw after many frames)."""
        follow = self._following()
        self._batching += 1
        try:
            yield
        finally:
            self._batching -= 1
            self._laid_out(follow)

    def _laid_out(self, follow: bool) -> None:
        if self._batching:
            return
        self._measure(self._width)
        drawn = [(id(b), b.version) for b in self._all()]
        before, self._drawn = self._drawn, (drawn, self._starts, self.virtual_size)
        if before[1:] == self._drawn[1:] and [i for i, _ in before[0]] == [i for i, _ in drawn]:
            # The same paragraphs in the same places (a delta that did not add a line, a count
            # noted again): only the lines of those that changed are drawn again, not the view.
            for at, (was, now) in enumerate(zip(before[0], drawn, strict=True)):
                if was != now:
                    self.refresh_lines(self._starts[at], self._all()[at].height)
        else:
            self.refresh()
        if follow and self._drawn[2].height != before[2].height:
            # Only when lines were added: a delta that filled the last line moved nothing.
            self.call_after_refresh(self.scroll_end, animate=False)

    def _measure(self, width: int) -> None:
        """Each block's height at ``width`` and the line each starts on; the virtual size."""
        self._width = width
        starts, y = [], 0
        rules = cast("RulesMap", self.styles)  # what Static hands it too: the rules are read, not typed
        for block in self._all():
            # Measured once per content and width: a redraw lays out what changed, not every line.
            if block.measured != (block.version, width):
                if not width:
                    text = 1
                elif block.measured[0] != block.version:
                    # New content (a delta, a new turn) is at the end, drawn at once: wrapped once,
                    # its lines both measured and kept for drawing (wrapping twice was half its cost).
                    text = len(self._block_strips(block, width))
                else:
                    # Only the width changed (a resize): many paragraphs, most never drawn again.
                    text = block.content.get_height(rules, max(1, width - block.indent))
                block.height = text + block.gap
                block.measured = (block.version, width)
            starts.append(y)
            y += block.height
        self._starts = starts
        size = Size(width, y)
        if size != self.virtual_size:
            self.virtual_size = size
            # What the layout would have done for a scroll view: the bars' sizes, and showing the
            # vertical bar once the lines overflow (that change lays the screen out, once).
            self._scroll_update(size)

    def _rewrap(self, width: int) -> None:
        """The width changed (a resize, or the scroll bar came or went): the text wraps anew, and a
        view that showed the newest line still does (more lines than it was told of a moment ago)."""
        follow = self._following()
        self._measure(width)
        if follow:
            self.call_after_refresh(self.scroll_end, animate=False)

    def on_resize(self) -> None:
        self._rewrap(self.scrollable_content_region.width)

    def notify_style_update(self) -> None:
        super().notify_style_update()
        # A theme chosen (ctrl+p) or a style changed: the lines kept were drawn in the old colours
        # (every paragraph on screen stayed in the theme it was first drawn in).
        self._strips.clear()
        self.refresh()

    def render_lines(self, crop: Region) -> list[Strip]:
        """The lines in ``crop``. Textual asks for all of them at every repaint, however few
        changed, and passes each through its styles cache (the cached ones too: 1.3 ms a repaint
        for the one line a word changed). The lines handed out last time are handed out again where
        the styles cache still holds the very line they came from; only the span of lines it has
        dropped or marked for drawing goes through it."""
        cache = self._styles_cache
        filters = tuple(self.get_line_filters())
        kept = self._kept
        if kept is None or kept[0] != crop or kept[1] != filters:
            lines = self._through_cache(crop)
        else:
            lines = list(kept[2])
            held, dirty = cache._cache, cache._dirty_lines  # Textual 8.2's StylesCache
            stale = [at for at, (y, source) in enumerate(zip(crop.line_range, kept[3], strict=True))
                     if y in dirty or held.get(y) is not source]
            if stale:
                first, last = stale[0], stale[-1]
                lines[first:last + 1] = self._through_cache(
                    Region(crop.x, crop.y + first, crop.width, last - first + 1))
        self._kept = (crop, filters, list(lines), [cache._cache.get(y) for y in crop.line_range])
        return lines

    def _through_cache(self, crop: Region) -> list[Strip]:
        # The lines drawn in one pass share the widget's style: worked out once, not per line (it
        # walks every ancestor's styles; a new paragraph redraws all thirty lines in view).
        self._line_style = self.rich_style
        try:
            return super().render_lines(crop)
        finally:
            self._line_style = None

    def render_line(self, y: int) -> Strip:
        width = self.scrollable_content_region.width
        if width != self._width:
            self._rewrap(width)
        line = self.scroll_offset.y + y
        blocks = self._all()
        rich_style = self._line_style or self.rich_style
        at = bisect_right(self._starts, line) - 1
        if at < 0 or at >= len(blocks):
            return Strip.blank(width, rich_style)
        block = blocks[at]
        row = line - self._starts[at]
        strips = self._block_strips(block, width)
        if row >= len(strips):
            return Strip.blank(width, rich_style)
        strip = strips[row]
        if block.indent:
            strip = Strip.join([Strip.blank(block.indent, rich_style), strip])
        return strip.extend_cell_length(width, rich_style).crop(0, width)

    def _block_strips(self, block: _Block, width: int) -> list[Strip]:
        key = (block.version, width)
        strips = self._strips.get(key)
        if strips is None:
            style = self.get_visual_style("transcript--arriving") if block.arriving else self.visual_style
            strips = Visual.to_strips(self, block.content, max(1, width - block.indent), None, style)
            self._strips[key] = strips
        return strips


class ScreenPart(Vertical):
    """A part of the Talk screen in a blank box of its own: the head and transcript, the status
    line, the typing row, the key bar. Textual repaints a region by drawing every widget whose
    container overlaps it, each of its lines: with them all straight on the screen, each key typed
    drew the transcript's thirty lines, the status line and the key bar again (from cache, but one
    by one). In boxes of their own, a repaint draws only the part it is in, and the other boxes as
    their background alone."""

    BLANK = True


class SayBox(Input):
    """The typing box. Textual's Input sets its virtual size to its text's width on every change,
    and that reactive lays the whole screen out again: each key typed during a call cost a layout
    of the Talk screen (bench/talk.py: 4 key presses a second were most of the screen's CPU). The
    box's size is its parent's (1fr of the row, 3 high), so its text's width only scrolls it:
    set without a layout (the repaint that shows the key is the value's own)."""

    virtual_size: Reactive[Size] = Reactive(Size(0, 0), layout=False, repaint=False)
    # A key typed changes the text and the cursor, both on the box's one line of text: that line is
    # drawn again, not the box's borders too (a whole-box repaint drew three lines a key).
    value: Reactive[str] = Reactive("", init=False, repaint=False)
    selection: Reactive[Selection] = Reactive(Selection.cursor(0), repaint=False)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        # A steady cursor: while a person listens to the agent, a blinking one was the screen's
        # only change between words, a wake and a repaint twice a second for the whole call.
        self.cursor_blink = False
        self._styled: tuple[Style, Style] | None = None

    def watch_value(self) -> None:
        self._repaint_text()

    def watch_selection(self) -> None:
        self._repaint_text()

    def _repaint_text(self) -> None:
        gutter = self.content_offset.x
        self.refresh(Region(-gutter, 0, self.outer_size.width, 1))

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self._styled = None  # a theme, focus or class changed: the styles are worked out anew

    def refresh(self, *regions: Region, repaint: bool = True, layout: bool = False,
                recompose: bool = False) -> Self:
        if not regions:
            self._styled = None  # a repaint of the whole box (an inline style set): worked out anew
        return super().refresh(*regions, repaint=repaint, layout=layout, recompose=recompose)

    def render_line(self, y: int) -> Strip:
        """The line of text as Input draws it, without building a Rich Text and rendering it
        through a console for every key: the text, the cursor's cell, the rest. Anything else (a
        selection, a placeholder, a character that is not plainly printable) is Input's own."""
        value, at = self.value, self.cursor_position
        if (y != 0 or not value or not self.selection.is_empty or self.password or self.highlighter is not None
                or self._suggestion or not value.isprintable()):
            return super().render_line(y)
        base, cursor = self._styles()
        width = self.scrollable_content_region.width
        if self.has_focus and self._cursor_visible:
            segments = [Segment(value[:at]), Segment(value[at:at + 1] or " ", cursor), Segment(value[at + 1:])]
        else:
            segments = [Segment(value)]
        scroll_x = self.scroll_offset.x
        strip = Strip(segments).crop(scroll_x, scroll_x + width + 1).extend_cell_length(width + 1)
        return strip.apply_style(base)

    def _styles(self) -> tuple[Style, Style]:
        # The box's style walks every ancestor's styles: the same until a style update says not.
        if self._styled is None:
            self._styled = (self.rich_style, self.get_component_rich_style("input--cursor"))
        return self._styled

    def post_message(self, message: Message) -> bool:
        # Nothing reads the box's every change (the Talk screen reads it on Enter): Input.Changed is
        # not sent at all. Bubbling, it woke the row, the screen and the app in turn; stopped at
        # the box, it still cost the box's own message loop a turn for every key.
        if isinstance(message, Input.Changed):
            return False
        return super().post_message(message)


class SpeakingIndicator(Static):
    """● Agent speaking / ○ Listening / · Connecting / ◌ Hanging up… / Ended."""

    DEFAULT_CSS = """
    SpeakingIndicator { width: 18; padding: 0 1; }
    SpeakingIndicator.-speaking { color: $success; text-style: bold; }
    """
    state: reactive[str] = reactive("connecting")

    WORDS = {"connecting": "· Connecting", "speaking": "● Agent speaking", "listening": "○ Listening",
             "hanging up": "◌ Hanging up…", "ended": "■ Call ended"}

    def render(self) -> Content:
        return Content(self.WORDS.get(self.state, self.state))

    def watch_state(self, state: str) -> None:
        self.set_class(state == "speaking", "-speaking")


class BilledTimer(Static):
    """Billed time, from session.created ("billing starts here")."""

    DEFAULT_CSS = "BilledTimer { width: 16; padding: 0 1; }"
    seconds: reactive[int | None] = reactive(None)
    ended: reactive[bool] = reactive(False)

    def render(self) -> Content:
        if self.seconds is None:
            return Content("not billed" if self.ended else "not billed yet")
        minutes, secs = divmod(self.seconds, 60)
        return Content(f"billed {minutes}:{secs:02d}")


class AnswerTimes(Static):
    """The call's answer times so far, nearest-rank p50 and p95 (``api/figures.py``)."""

    DEFAULT_CSS = "AnswerTimes { width: auto; padding: 0 1; color: $text-muted; }"
    times: reactive[Times] = reactive(Times.of([]))

    def render(self) -> Content:
        return Content(self._words(self.times))

    @staticmethod
    def _words(times: Times) -> str:
        return f"p50 {seconds(times.p50)} · p95 {seconds(times.p95)}"

    def watch_times(self, old: Times, new: Times) -> None:
        # Its width is its text's: the head is laid out again only when that changes ("—" grows to
        # "0.84 s"), not at every answer (a layout of the whole screen, 15-25 ms as a delta waited).
        if len(self._words(old)) != len(self._words(new)):
            self.refresh(layout=True)


class SlotsLine(Static):
    """The account's call slots, as GET /v1/agent/limits last said."""

    DEFAULT_CSS = "SlotsLine { width: 18; padding: 0 1; color: $text-muted; }"
    limits: reactive[AgentLimits | None] = reactive(None)

    def render(self) -> Content:
        return Content(f"slots {self.limits.in_use}" if self.limits else "")


class SoundLine(Static):
    """Where the call has sound: whether the agent is muted and the microphone on ("" for none)."""

    DEFAULT_CSS = """
    SoundLine { width: 20; padding: 0 1; color: $text-muted; }
    SoundLine.-live { color: $success; text-style: bold; }
    """
    muted: reactive[bool] = reactive(False)
    mic: reactive[str] = reactive("")

    def render(self) -> Content:
        sound = "muted" if self.muted else "sound"
        return Content(f"{sound} · mic {self.mic}" if self.mic else sound)

    def watch_mic(self, mic: str) -> None:
        self.set_class(mic == "on", "-live")
