"""The Calls screen (issue 25 points 2 and 3) on the sandbox: a web call started on Agents is
listed at once and read to its end; an outbound call placed with o (asked, confirmed as billed)
is followed live to its end with its transcript; each test number ends its own way; a record that
cannot be read is said; s saves the recording without the key; / finds words said."""

from __future__ import annotations

import io
import stat
import wave
from pathlib import Path

import httpx
import pytest
from rich.console import Console as RichConsole
from textual.widgets import Input, Static

from tests.lost_call_answer import LoseCallAnswer
from tests.tui.console_scenes import build_console, settle, until, web_call
from vap_console.sandbox.voice.trunks import trunks_of
from vap_console.tui.screens.call_dialog import PlaceCallConfirm, PlaceCallDialog
from vap_console.tui.screens.calls import CallsScreen
from vap_console.tui.widgets.banner import Banner
from vap_console.tui.widgets.rows import RowTable

SIZE = (120, 36)


def plain(widget: Static) -> str:
    out = RichConsole(width=200, record=True, file=io.StringIO())
    out.print(widget.content)
    return out.export_text()


@pytest.fixture(autouse=True)
def quick_polls(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(CallsScreen, "POLL_SECONDS", 0.05)


@pytest.fixture
def here(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    return tmp_path


def active_trunk(console) -> str:
    return next(t.id for t in trunks_of(console.account, console.sandbox.state.sandbox.origin).values()
                if t.status == "active")


def calls_screen(app) -> CallsScreen:
    screen = app.screen
    assert isinstance(screen, CallsScreen), type(screen)
    return screen


def statuses(app) -> list[str]:
    return [e.shown_status for e in calls_screen(app).items.values()]


async def place(pilot, console, number: str) -> None:
    """o on Agents, the number and the caller typed, Next, then yes to the billed confirm."""
    await pilot.press("o")
    await until(pilot, lambda: isinstance(pilot.app.screen, PlaceCallDialog) and pilot.app.screen.query("#call-from"))
    dialog = pilot.app.screen
    dialog.query_one("#call-to", Input).value = number
    dialog.query_one("#call-from", Input).value = active_trunk(console)
    await pilot.press("ctrl+s")
    await until(pilot, lambda: isinstance(pilot.app.screen, PlaceCallConfirm))
    await pilot.press("y")
    await until(pilot, lambda: isinstance(pilot.app.screen, CallsScreen))


async def test_a_web_call_started_on_agents_is_in_calls_and_read_to_its_end(tmp_path: Path) -> None:
    console = build_console(start_screen="agents", index_dir=tmp_path / "index")
    async with console.app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await web_call(pilot)
        await pilot.press("escape")
        await pilot.press("8")
        await until(pilot, lambda: isinstance(pilot.app.screen, CallsScreen) and statuses(pilot.app) == ["calling"])
        [entry] = calls_screen(pilot.app).items.values()
        assert entry.kind == "web" and entry.call_id
        assert plain(pilot.app.screen.query_one("#list-count", Static)).startswith("1 call ·")
        console.clock.advance(130)
        await until(pilot, lambda: statuses(pilot.app) == ["expired"])
        entry = next(iter(calls_screen(pilot.app).items.values()))
        assert entry.end_reason == "no_participant" and entry.credits == 6


async def test_an_outbound_call_is_asked_confirmed_and_followed_live_with_its_transcript(tmp_path: Path) -> None:
    console = build_console(start_screen="agents", index_dir=tmp_path / "index")
    async with console.app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await place(pilot, console, "+919812340001")
        await until(pilot, lambda: statuses(pilot.app) == ["calling"])
        console.clock.advance(60)
        await until(pilot, lambda: statuses(pilot.app) == ["completed"])
        await settle(pilot)
        entry = next(iter(calls_screen(pilot.app).items.values()))
        assert entry.to_number == "+919812340001" and entry.credits == 3
        assert [t.role for t in entry.transcript][:2] == ["assistant", "user"]
        detail = plain(pilot.app.screen.query_one("#detail", Static))
        assert "participant_disconnected" in detail and "s saves it as WAV" in detail
        assert f"Agent: {entry.transcript[0].content[:30]}" in " ".join(detail.split())
        assert f"Caller: {entry.transcript[1].content[:30]}" in " ".join(detail.split())


@pytest.mark.parametrize("ending, status", [("0006", "expired"), ("0007", "failed"), ("0008", "failed")])
async def test_each_test_number_ends_its_own_way_in_the_list(tmp_path: Path, ending: str, status: str) -> None:
    console = build_console(start_screen="agents", index_dir=tmp_path / "index")
    async with console.app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await place(pilot, console, "+91981234" + ending)
        console.clock.advance(60)
        await until(pilot, lambda: statuses(pilot.app) == [status])
        entry = next(iter(calls_screen(pilot.app).items.values()))
        assert entry.credits == 0 and entry.end_reason in ("no_answer", "busy", "carrier_error")


async def test_a_bad_number_is_said_as_typed_and_nothing_is_placed(tmp_path: Path) -> None:
    console = build_console(start_screen="agents", index_dir=tmp_path / "index")
    async with console.app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("o")
        await until(pilot, lambda: isinstance(pilot.app.screen, PlaceCallDialog) and pilot.app.screen.query("#call-to"))
        await pilot.press(*"98123")
        error = pilot.app.screen.query_one("#call-to-error")
        await until(pilot, lambda: "E.164" in str(error.render()))
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert isinstance(pilot.app.screen, PlaceCallDialog)
        assert pilot.app.screen.query_one("#call-to", Input).value == "98123"
        assert not console.account.calls


class Unreadable(httpx.AsyncBaseTransport):
    """GET /v1/calls/{id} fails (500) while ``down``; everything else passes."""

    def __init__(self, inner: httpx.AsyncBaseTransport) -> None:
        self.inner = inner
        self.down = False

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        if self.down and request.method == "GET" and request.url.path.startswith("/v1/calls/"):
            return httpx.Response(500, json={"error": "database unavailable", "code": "server_error"})
        return await self.inner.handle_async_request(request)


async def test_a_call_whose_record_cannot_be_read_is_said_and_read_again(tmp_path: Path) -> None:
    made: list[Unreadable] = []
    console = build_console(start_screen="agents", index_dir=tmp_path / "index",
                            transport_wrapper=lambda inner: made.append(Unreadable(inner)) or made[-1],
                            max_retries=0)
    async with console.app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        made[0].down = True
        await place(pilot, console, "+919812340001")
        banner = pilot.app.screen.query_one(Banner)
        await until(pilot, lambda: "could not be read" in banner.message)
        entry = next(iter(calls_screen(pilot.app).items.values()))
        assert entry.read_error and "database unavailable" in entry.read_error
        made[0].down = False
        console.clock.advance(60)
        await until(pilot, lambda: statuses(pilot.app) == ["completed"])
        await until(pilot, lambda: "could not be read" not in banner.message)


class NoKeyOnRecordings(httpx.AsyncBaseTransport):
    def __init__(self, inner: httpx.AsyncBaseTransport) -> None:
        self.inner = inner
        self.recording_headers: list[httpx.Headers] = []

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        if request.url.path.startswith("/sandbox/recordings/"):
            self.recording_headers.append(request.headers)
        return await self.inner.handle_async_request(request)


async def test_s_saves_the_recording_as_wav_fetched_without_the_key(tmp_path: Path, here: Path) -> None:
    made: list[NoKeyOnRecordings] = []
    console = build_console(start_screen="agents", index_dir=tmp_path / "index",
                            transport_wrapper=lambda inner: made.append(NoKeyOnRecordings(inner)) or made[-1])
    async with console.app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await completed_call(pilot, console)
        await pilot.press("s")
        entry = next(iter(calls_screen(pilot.app).items.values()))
        # Named as Talk's ctrl+s names the agent's audio, and the person's alone.
        saved = here / f"vap-call-{entry.call_id}-recording.wav"
        await until(pilot, saved.exists)
        await settle(pilot)
        assert stat.S_IMODE(saved.stat().st_mode) == 0o600
        with wave.open(str(saved)) as audio:
            assert audio.getframerate() == 24000 and audio.getnframes() > 0
        assert made[0].recording_headers and all("authorization" not in h for h in made[0].recording_headers)


async def test_the_filter_finds_a_call_by_the_words_said(tmp_path: Path) -> None:
    console = build_console(start_screen="agents", index_dir=tmp_path / "index")
    async with console.app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await place(pilot, console, "+919812340001")
        await place_back_and_again(pilot, console, "+919812340007")
        console.clock.advance(60)
        await until(pilot, lambda: sorted(statuses(pilot.app)) == ["completed", "failed"])
        completed = next(e for e in calls_screen(pilot.app).items.values() if e.status == "completed")
        words = completed.transcript[1].content
        await pilot.press("slash")
        await pilot.press(*words.split()[0].lower())
        table = pilot.app.screen.query_one(RowTable)
        await until(pilot, lambda: table.row_count == 1)
        # What the words are stored in is not said: a role name or JSON's quote finds no call.
        for unsaid in (completed.transcript[0].role, '", "'):
            await pilot.press("escape", "slash", *unsaid)
            await until(pilot, lambda: table.row_count == 0)


async def completed_call(pilot, console) -> None:
    """An outbound call to the number that answers, placed and followed to "completed" (a minute on)."""
    await place(pilot, console, "+919812340001")
    console.clock.advance(60)
    await until(pilot, lambda: statuses(pilot.app) == ["completed"])
    await settle(pilot)


async def place_back_and_again(pilot, console, number: str) -> None:
    await pilot.press("6")
    await until(pilot, lambda: pilot.app.screen.__class__.__name__ == "AgentsScreen")
    await place(pilot, console, number)


async def test_a_lost_answer_is_kept_as_outcome_unknown_sent_once_and_a_finds_the_call(tmp_path: Path) -> None:
    made: list[LoseCallAnswer] = []
    console = build_console(start_screen="agents", index_dir=tmp_path / "index",
                            transport_wrapper=lambda inner: made.append(LoseCallAnswer(inner)) or made[-1])
    async with console.app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("o")
        await until(pilot, lambda: isinstance(pilot.app.screen, PlaceCallDialog) and pilot.app.screen.query("#call-from"))
        pilot.app.screen.query_one("#call-to", Input).value = "+919812340001"
        pilot.app.screen.query_one("#call-from", Input).value = active_trunk(console)
        await pilot.press("ctrl+s")
        await until(pilot, lambda: isinstance(pilot.app.screen, PlaceCallConfirm))
        await pilot.press("y")
        await settle(pilot, expect_failed_workers=True)
        banner = pilot.app.screen.query_one(Banner)
        assert "outcome unknown" in banner.message and made[0].posts == 1
        await pilot.press("8")
        await until(pilot, lambda: isinstance(pilot.app.screen, CallsScreen) and statuses(pilot.app) == ["outcome unknown"])
        await settle(pilot)
        assert "--idempotency-key" in " ".join(plain(pilot.app.screen.query_one("#detail", Static)).split())
        # The dashboard shows the call's id: a adds it, and it answers the lost line.
        [placed] = [c.id for c in console.account.calls.values()]
        await pilot.press("a")
        await until(pilot, lambda: pilot.app.screen.query("#id-input"))
        pilot.app.screen.query_one("#id-input", Input).value = placed
        await pilot.press("enter")
        await until(pilot, lambda: isinstance(pilot.app.screen, CallsScreen) and statuses(pilot.app) == ["calling"])
        assert made[0].posts == 1


async def test_e_exports_every_call_with_its_transcript(tmp_path: Path, here: Path) -> None:
    console = build_console(start_screen="agents", index_dir=tmp_path / "index")
    async with console.app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await completed_call(pilot, console)
        await pilot.press("e")
        await until(pilot, lambda: pilot.app.screen.query("#choice-json"))
        await pilot.press("j")
        await until(pilot, lambda: list(here.glob("calls-sandbox-*.json")))
        await settle(pilot)
        import json

        [exported] = json.loads(next(here.glob("calls-sandbox-*.json")).read_text())
        assert stat.S_IMODE(next(here.glob("calls-sandbox-*.json")).stat().st_mode) == 0o600
        assert exported["status"] == "completed" and exported["transcript"][0]["role"] == "assistant"


async def test_spend_without_textual_plotext_says_so_and_shows_the_totals(tmp_path: Path, monkeypatch) -> None:
    import sys

    monkeypatch.setitem(sys.modules, "textual_plotext", None)  # an import of it fails
    console = build_console(start_screen="calls", index_dir=tmp_path / "index")
    async with console.app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("c")
        await until(pilot, lambda: pilot.app.screen.query("#spend-no-chart"))
        await settle(pilot)
        assert "textual-plotext" in plain(pilot.app.screen.query_one("#spend-no-chart", Static))
        assert "no calls yet" in plain(pilot.app.screen.query_one("#totals-agent", Static))


async def test_calls_opens_from_the_palette(tmp_path: Path) -> None:
    from tests.tui.console_scenes import run_from_palette

    console = build_console(start_screen="numbers", index_dir=tmp_path / "index")
    async with console.app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await run_from_palette(pilot, "Go to Calls")
        await until(pilot, lambda: isinstance(pilot.app.screen, CallsScreen))


async def test_what_a_caller_said_is_shown_literally_never_as_markup_or_terminal_control(tmp_path: Path) -> None:
    from vap_console.api.models import CallRecord
    from vap_console.ledger import Ledger

    said = "[bold red]pay now[/] \x1b[2J\u202eevil"
    ledger = Ledger("sandbox", data_dir=tmp_path / "index")
    ledger.cache_record(CallRecord.model_validate({
        "id": "c-hostile", "status": "completed", "agentId": "[link=x]ua_front[/link]", "kind": "outbound",
        "transcript": [{"role": "user", "content": said}]}))
    console = build_console(start_screen="calls", index_dir=tmp_path / "index")
    async with console.app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: isinstance(pilot.app.screen, CallsScreen) and statuses(pilot.app) == ["completed"])
        await settle(pilot)
        detail = plain(pilot.app.screen.query_one("#detail", Static))
        assert "[bold red]pay now[/]" in detail and "[link=x]ua_front[/link]" in detail
        assert "\x1b" not in detail and "\u202e" not in detail


async def test_a_call_whose_id_the_server_gives_to_another_call_is_kept_not_taken_over(tmp_path: Path) -> None:
    """A sandbox started again gives an old id to a new call: the row stays the call it was (a
    Talk call of its agent), marked not found with why, and is not read again."""
    from vap_console.ledger import Ledger
    from vap_console.scripting.calls import SANDBOX_CALL

    Ledger("sandbox", data_dir=tmp_path / "index").record_started(SANDBOX_CALL, "ua_priya", "talk")
    console = build_console(start_screen="calls", index_dir=tmp_path / "index")
    async with console.app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: isinstance(pilot.app.screen, CallsScreen) and statuses(pilot.app) == ["not found"])
        await settle(pilot)
        [entry] = calls_screen(pilot.app).items.values()
        assert (entry.kind, entry.agent) == ("talk", "ua_priya")
        assert entry.read_error and "kept already for another call" in entry.read_error
        assert pilot.app.is_running
