"""The Talk screen's small widgets: the transcript, the speaking indicator, the billed timer, the
call slots and (where the call has sound) muted and microphone. Each redraws only when the
conversation part it shows changes (``api/conversation.py`` names them); all server text goes
through ``tui/untrusted.py``."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.content import Content
from textual.reactive import reactive
from textual.widgets import Static

from vap_console.api.conversation import Conversation, Turn
from vap_console.api.models import AgentLimits
from vap_console.tui import untrusted

SPEAKERS = {"assistant": "Agent", "user": "You"}


def turn_content(turn: Turn, *, arriving: bool = False) -> Content:
    who = SPEAKERS.get(turn.role, turn.role.title() or "?")
    style = "bold $text-accent" if turn.role == "assistant" else "bold $text-success"
    body = untrusted.content(turn.text or "…")
    parts = [Content.styled(f"{who}: ", style), body]
    if arriving:
        parts.append(Content.styled(" ▍", "$accent"))
    if turn.interrupted_at is not None:
        cut = len(turn.interrupted_at.split())
        parts.append(Content.styled(f"  ⟂ interrupted after {cut} word{'s' if cut != 1 else ''}", "italic $warning"))
    elif turn.cut_off:
        parts.append(Content.styled("  ⟂ cut off: the call ended", "italic $warning"))
    return Content("").join(parts)


class TurnLine(Static):
    DEFAULT_CSS = """
    TurnLine { margin-bottom: 1; }
    TurnLine.-user { padding-left: 2; }
    TurnLine.-arriving { color: $text-muted; }
    """


class TranscriptView(VerticalScroll):
    """Settled turns, then the agent's turn still arriving. Follows the newest line unless the
    person has scrolled up to read (then it stays where they are)."""

    DEFAULT_CSS = """
    TranscriptView { height: 1fr; border: round $primary 50%; padding: 0 1; }
    TranscriptView #live { display: none; }
    TranscriptView #live.-shown { display: block; }
    """

    def __init__(self, *, max_lines: int = 500, id: str | None = None) -> None:
        super().__init__(id=id, can_focus=True)
        self.max_lines = max_lines
        self._shown = 0  # settled turns mounted so far (from the conversation's running count)
        self._live = TurnLine(id="live", classes="-arriving")

    def compose(self) -> ComposeResult:
        yield self._live

    def _following(self) -> bool:
        return self.scroll_y >= self.max_scroll_y - 1

    def show_turns(self, talk: Conversation, settled_total: int) -> None:
        """Mount the settled turns not shown yet (``settled_total``: how many have settled in all)."""
        follow = self._following()
        new = settled_total - self._shown
        if new > 0:
            fresh = list(talk.turns)[-new:] if new <= len(talk.turns) else list(talk.turns)
            lines = [TurnLine(turn_content(t), classes=f"-{'user' if t.role == 'user' else 'agent'}") for t in fresh]
            self.mount_all(lines, before=self._live)
            self._shown = settled_total
            extra = len(self.query(TurnLine)) - 1 - self.max_lines
            for old in list(self.query(TurnLine))[:max(0, extra)]:
                old.remove()
        elif talk.turns:
            # An interruption marks a turn already shown: redraw the last settled line.
            lines = [w for w in self.query(TurnLine) if w is not self._live]
            if lines:
                lines[-1].update(turn_content(talk.turns[-1]))
        if follow:
            self.call_after_refresh(self.scroll_end, animate=False)

    def show_live(self, turn: Turn | None) -> None:
        follow = self._following()
        if turn is None:
            self._live.remove_class("-shown")
            return
        self._live.update(turn_content(turn, arriving=True))
        self._live.add_class("-shown")
        if follow:
            self.call_after_refresh(self.scroll_end, animate=False)

    def reset_count(self) -> None:
        """A new call's conversation starts counting its turns from none."""
        self._shown = 0

    def note(self, text: str, style: str = "italic $text-muted") -> None:
        """A line of the console's own (the call started, a problem) in the transcript; any server
        text in it (a call id, an error's message) is shown literally."""
        follow = self._following()
        self.mount(Static(untrusted.content(text, style), classes="talk-note"), before=self._live)
        if follow:
            self.call_after_refresh(self.scroll_end, animate=False)


class SpeakingIndicator(Static):
    """● Agent speaking / ○ Listening / · Connecting / Ended."""

    DEFAULT_CSS = """
    SpeakingIndicator { width: 18; padding: 0 1; }
    SpeakingIndicator.-speaking { color: $success; text-style: bold; }
    """
    state: reactive[str] = reactive("connecting")

    WORDS = {"connecting": "· Connecting", "speaking": "● Agent speaking", "listening": "○ Listening",
             "ended": "■ Call ended"}

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
