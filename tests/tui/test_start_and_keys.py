"""How the console's first screen appears, its key bar, and the detail panes' label/value lines."""

from __future__ import annotations

import asyncio
import io

import httpx
from rich.console import Console as RichConsole
from rich.text import Text
from textual.binding import Binding

from tests.tui.console_scenes import build_console, quiet, settle, until
from vap_console.tui.pairs import Pairs
from vap_console.tui.screens import base
from vap_console.tui.settings import Settings
from vap_console.tui.widgets import list_state
from vap_console.tui.widgets.key_bar import KeyBar
from vap_console.tui.widgets.list_state import ListState
from vap_console.tui.widgets.rows import RowTable

SIZE = (120, 36)


class Slow(httpx.AsyncBaseTransport):
    """Holds every answer back until ``release`` is set, as a distant server would: however slow
    the machine, the answer cannot come before the test has seen what shows meanwhile."""

    def __init__(self, inner: httpx.AsyncBaseTransport) -> None:
        self.inner = inner
        self.release = asyncio.Event()

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        await self.release.wait()
        return await self.inner.handle_async_request(request)


def record_frames(app) -> list[str]:
    """Each frame the app draws, as the screen it shows: the loading state, or the rows."""
    frames: list[str] = []
    display = app._display

    def recorded(screen, renderable) -> None:  # Textual's private signature
        display(screen, renderable)
        if renderable is not None and screen.is_mounted:
            states = screen.query(ListState)
            loading = bool(states) and states.first().display and screen.query_one("#list-switch").current == "state"
            frames.append("loading" if loading else "rows" if screen.query(RowTable).first().row_count else "other")

    app._display = recorded
    return frames


async def test_a_quick_server_the_first_screen_appears_with_its_rows_not_a_loading_flash(monkeypatch) -> None:
    # "Quick" is whatever comes within the waits; long waits keep a loaded test machine quick enough.
    monkeypatch.setattr(base, "FIRST_PAINT_WAIT", 10.0)
    monkeypatch.setattr(list_state, "SPINNER_DELAY", 10.0)
    console = build_console()
    frames = record_frames(console.app)
    async with console.app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert frames, "nothing was drawn"
        assert frames[0] == "rows", f"first frames: {frames[:3]}"
        # Nothing was built for states that never showed: no spinner, no Retry buttons.
        assert not console.app.screen.query("LoadingIndicator, Button")


async def test_a_slow_server_the_loading_state_shows_after_the_short_wait() -> None:
    slow: list[Slow] = []
    console = build_console(transport_wrapper=lambda inner: slow.append(Slow(inner)) or slow[-1])
    frames = record_frames(console.app)
    async with console.app.run_test(size=SIZE) as pilot:
        # Painting waits FIRST_PAINT_WAIT for the first answer, then shows the loading state.
        await until(pilot, lambda: "loading" in frames)
        await until(pilot, lambda: bool(console.app.screen.query("#state-spinner")))
        assert console.app.screen.query_one("#state-spinner").display, "a slow load shows the spinner"
        assert console.app.screen.query_one(RowTable).row_count == 0
        slow[0].release.set()  # the answer comes
        await settle(pilot)
        assert frames[-1] == "rows"
        # Gone with the loading, not hidden: a hidden spinner still redraws itself 16 times a
        # second under the rows, and under every screen opened over them, for as long as they live.
        assert not console.app.screen.query("LoadingIndicator")


def bar_text(app) -> str:
    bar = app.screen.query_one(KeyBar)
    return bar.render().plain


async def test_the_key_bar_lists_the_screen_keys_and_follows_the_keymap() -> None:
    console = build_console(settings=Settings(keymap={"numbers.rent": "ctrl+r"}))
    async with console.app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        text = bar_text(console.app)
        for shown in ("/ Filter", "r Refresh", "a Add by id", "^r Rent a number", "? Keys", "q Quit", "^p palette"):
            assert shown in text, f"{shown!r} not in the key bar: {text!r}"
        assert " n Rent a number" not in text
        assert text.rstrip().endswith("^p palette")


async def test_clicking_a_key_in_the_key_bar_presses_it() -> None:
    console = build_console()
    async with console.app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        text = bar_text(console.app)
        await pilot.click(KeyBar, offset=(text.index("? Keys") + 1, 0))
        await settle(pilot)
        assert type(console.app.screen).__name__ == "KeysHelpScreen"


async def test_the_key_bar_changes_with_focus() -> None:
    console = build_console()
    async with console.app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert "r Refresh" in bar_text(console.app)
        await pilot.press("slash")  # the filter box takes printable keys: their bindings step back
        await settle(pilot)
        assert "r Refresh" not in bar_text(console.app)
        await pilot.press("escape")
        await settle(pilot)
        assert "r Refresh" in bar_text(console.app)


def test_a_key_the_screen_disables_is_drawn_dim() -> None:
    from textual.app import App, ComposeResult

    class Host(App[None]):
        BINDINGS = [Binding("x", "nothing", "Cannot"), Binding("y", "other", "Can")]

        def compose(self) -> ComposeResult:
            yield KeyBar()

        def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
            return None if action == "nothing" else True

    async def run() -> Text:
        app = Host()
        async with app.run_test(size=(60, 3)) as pilot:
            await quiet(pilot)
            return app.query_one(KeyBar).render()

    line = asyncio.run(run())
    start = line.plain.index(" x Cannot")
    dim_at = [span for span in line.spans if span.start <= start < span.end and "dim" in str(span.style)]
    assert dim_at, line.spans
    other = line.plain.index(" y Can")
    assert not [span for span in line.spans if span.start <= other < span.end and "dim" in str(span.style)]


def render(pairs: Pairs, width: int) -> list[str]:
    out = RichConsole(width=width, file=io.StringIO(), color_system=None)
    return ["".join(segment.text for segment in line).rstrip()
            for line in out.render_lines(pairs, out.options.update_width(width))]


def test_pairs_keep_values_beside_their_labels_and_fold_long_words_under_the_value() -> None:
    lines = render(Pairs([("id", "0b6c1f7e3d2a4c5b9e8f1a2b3c4d5e6f"), ("monthly rent", "₹1,000.00")]), 30)
    assert lines == [
        "id            0b6c1f7e3d2a4c5b",
        "              9e8f1a2b3c4d5e6f",
        "monthly rent  ₹1,000.00",
    ]


def test_pairs_wrap_words_and_keep_styles() -> None:
    pairs = Pairs([("when", Text("kyc_rejected · the document was unreadable", style="red"))], label_style="dim", gap=1)
    lines = render(pairs, 30)
    assert lines == ["when kyc_rejected · the", "     document was unreadable"]
    out = RichConsole(width=30, file=io.StringIO(), color_system=None)
    styles = {str(segment.style) for line in out.render_lines(pairs, out.options.update_width(30)) for segment in line if segment.text.strip()}
    assert "dim" in styles and "red" in styles


def test_pairs_style_the_label_not_the_value() -> None:
    out = RichConsole(width=40, file=io.StringIO(), color_system=None)
    (line,) = out.render_lines(Pairs([("city", "Mumbai")]), out.options.update_width(40))
    styles = {segment.text.strip(): str(segment.style) for segment in line if segment.text.strip()}
    assert "bold" in styles["city"]
    assert "bold" not in styles["Mumbai"]


async def test_a_client_that_cannot_open_shows_in_the_list_and_retry_opens_it() -> None:
    # The embedded sandbox's process may fail to start: the console stays up, says why, and r tries again.
    from tests.tui.console_scenes import BASE_URL
    from vap_console.api import VapClient
    from vap_console.sandbox.app import create_app
    from vap_console.sandbox.clock import VirtualClock
    from vap_console.sandbox.keys import DEFAULT_KEY
    from vap_console.tui.app import make_app

    attempts: list[int] = []
    transport = httpx.ASGITransport(app=create_app(clock=VirtualClock()))

    def client() -> VapClient:
        attempts.append(1)
        if len(attempts) == 1:
            raise RuntimeError("the sandbox did not start: its process exited with status 1")
        return VapClient(BASE_URL, DEFAULT_KEY, transport=transport)

    app = make_app(client_factory=client, profile_name="sandbox", base_url=BASE_URL, settings=Settings())
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        state = app.screen.query_one(ListState)
        assert state.kind == "error"
        assert "the sandbox did not start" in str(state.query_one("#state-text").content)
        await pilot.press("r")
        await settle(pilot)
        assert app.screen.query_one(RowTable).row_count == 5
    assert app.return_code in (None, 0)


async def test_hovering_a_key_in_the_key_bar_shows_what_it_does() -> None:
    console = build_console()
    async with console.app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        bar = console.app.screen.query_one(KeyBar)
        text = bar_text(console.app)
        await pilot.hover(KeyBar, offset=(text.index("n Rent a number") + 1, 0))
        await until(pilot, lambda: "KYC rental wizard" in str(bar.tooltip))
        await pilot.hover(KeyBar, offset=(text.index("a Add by id") + 1, 0))
        await until(pilot, lambda: str(bar.tooltip) == "Track a rental by its id")
