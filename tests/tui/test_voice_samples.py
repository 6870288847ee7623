"""Voices: `p` plays a sample of the highlighted engine's voice (issue 26).

The first sample of a run that needs a request is confirmed in words about money; the same sample
again comes from the disk cache and sends nothing; the engine's rules are checked as the line is
typed; without sound the sample's path is shown.
"""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest
from textual.widgets import Button, Input, Select

from tests.tui.console_scenes import build_console, settle, until
from vap_console.api.speech import wav_info, wav_problem
from vap_console.tui.screens.dialog import Confirm
from vap_console.tui.screens.sample_dialog import SampleDialog
from vap_console.tui.screens.voices import SampleConfirm, VoicesScreen
from vap_console.tui.widgets.field_error import FieldError
from vap_console.tui.widgets.rows import RowTable

SIZE = (120, 36)

pytestmark = pytest.mark.usefixtures("xdg_dirs")


class Spy(httpx.AsyncBaseTransport):
    """Counts the POST /v1/tts requests that reach the sandbox."""

    def __init__(self, inner: httpx.AsyncBaseTransport) -> None:
        self.inner = inner
        self.tts: list[dict] = []

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        if request.url.path == "/v1/tts":
            import json

            self.tts.append(json.loads(await request.aread()))
        return await self.inner.handle_async_request(request)


def _console():
    spies: list[Spy] = []

    def wrap(inner: httpx.AsyncBaseTransport) -> Spy:
        spies.append(Spy(inner))
        return spies[0]

    console = build_console(start_screen="voices", transport_wrapper=wrap)
    return console, spies[0]


def _toasts(app) -> list[str]:
    return [str(n.message) for n in app._notifications]


async def _to_engine(pilot, engine: str) -> VoicesScreen:
    screen = pilot.app.screen
    assert isinstance(screen, VoicesScreen)
    table = screen.query_one(RowTable)
    await until(pilot, lambda: table.row_count > 0)
    for _ in range(table.row_count):
        if screen.current is not None and screen.current.id == engine:
            return screen
        await pilot.press("down")
    raise AssertionError(f"no {engine} row")


async def _open_sample(pilot) -> SampleDialog:
    """p on the engine highlighted: its sample dialog, once open."""
    await pilot.press("p")
    await until(pilot, lambda: isinstance(pilot.app.screen, SampleDialog))
    return pilot.app.screen


async def test_first_sample_is_confirmed_then_the_same_sample_again_sends_nothing(xdg_dirs) -> None:
    console, spy = _console()
    async with console.app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await _to_engine(pilot, "mulberry")
        await _open_sample(pilot)
        await pilot.press("enter")
        await until(pilot, lambda: isinstance(pilot.app.screen, SampleConfirm))
        question = str(pilot.app.screen.query_one("#confirm-text").content)
        assert "costs money" in question and "sandbox" in question and "free" in question
        assert spy.tts == []  # nothing sent before the yes
        await pilot.press("y")
        await until(pilot, lambda: any("Saved" in t for t in _toasts(pilot.app)))
        assert len(spy.tts) == 1 and spy.tts[0]["model"] == "mulberry" and spy.tts[0]["speaker"] == "speaker_1"
        (saved,) = [t for t in _toasts(pilot.app) if "Saved" in t]
        path = Path(saved.removeprefix("Saved ").split(" (")[0])
        assert str(path).startswith(str(xdg_dirs["cache"]))  # the user's cache dir, redirected
        data = path.read_bytes()
        assert wav_problem(data) is None and wav_info(data).seconds > 1
        assert "no audio output device" in saved or "audio extra" in saved  # why it was not played

        pilot.app.clear_notifications()
        await _open_sample(pilot)
        await pilot.press("enter")
        await until(pilot, lambda: any("nothing sent" in t for t in _toasts(pilot.app)))
        assert not isinstance(pilot.app.screen, Confirm)
        assert len(spy.tts) == 1  # the second `p` sent nothing


async def test_no_to_the_confirm_sends_nothing() -> None:
    console, spy = _console()
    async with console.app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await _to_engine(pilot, "muga")
        await _open_sample(pilot)
        await pilot.press("enter")
        await until(pilot, lambda: isinstance(pilot.app.screen, SampleConfirm))
        await pilot.press("n")
        await settle(pilot)
        assert spy.tts == []


async def test_the_engines_rules_are_checked_as_the_line_is_typed() -> None:
    console, spy = _console()
    async with console.app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await _to_engine(pilot, "muga")
        dialog = await _open_sample(pilot)
        line = dialog.query_one("#sample-text", Input)
        assert line.value.startswith("[neutral] ")
        line.value = "[cheerful] Hello"
        await until(pilot, lambda: "tone tag" in dialog.query_one("#sample-error", FieldError).message)
        assert dialog.query_one("#sample-error", FieldError).message.startswith("text:")
        assert dialog.query_one("#sample-play", Button).disabled
        await pilot.press("enter")
        assert pilot.app.screen is dialog  # refused: still asking
        line.value = "[happy] Hello [sad] there"
        await until(pilot, lambda: "at most one tone tag" in dialog.query_one("#sample-error", FieldError).message)
        line.value = "[happy] Hello there"
        await until(pilot, lambda: dialog.query_one("#sample-error", FieldError).message == "")
        assert not dialog.query_one("#sample-play", Button).disabled
        await pilot.press("escape")
        assert spy.tts == []


async def test_a_mulberry_description_is_sent_as_the_description() -> None:
    console, spy = _console()
    async with console.app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen = await _to_engine(pilot, "mulberry")
        engine = screen.current
        assert engine is not None and engine.descriptions
        dialog = await _open_sample(pilot)
        dialog.query_one("#sample-voice", Select).value = "description:" + engine.descriptions[0].id
        await pilot.pause()
        dialog.query_one("#sample-text", Input).focus()
        await pilot.press("enter", "y")
        await until(pilot, lambda: len(spy.tts) == 1)
        assert spy.tts[0]["description"] == engine.descriptions[0].description and "speaker" not in spy.tts[0]


async def test_the_default_line_follows_the_language_chosen() -> None:
    console, spy = _console()
    async with console.app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await _to_engine(pilot, "mulberry")
        dialog = await _open_sample(pilot)
        line = dialog.query_one("#sample-text", Input)
        assert line.value.startswith("Namaste!")  # mulberry's default language: Hinglish
        dialog.query_one("#sample-language", Select).value = "hindi"
        await until(pilot, lambda: line.value.startswith("नमस्ते"))
        line.value = "My own words."
        dialog.query_one("#sample-language", Select).value = "english"
        await pilot.pause()
        assert line.value == "My own words."  # what the person typed is kept
        line.focus()
        await pilot.press("enter", "y")
        await until(pilot, lambda: len(spy.tts) == 1)
        assert spy.tts[0]["text"] == "My own words."


async def test_p_is_offered_only_on_an_engine_row() -> None:
    console = build_console(start_screen="voices", empty={"/v1/voices"})
    async with console.app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen = pilot.app.screen
        assert isinstance(screen, VoicesScreen) and screen.current is None
        assert "sample" not in {b.binding.action for b in screen.active_bindings.values()}
        await pilot.press("p")
        await settle(pilot)
        assert pilot.app.screen is screen  # nothing opened


async def test_under_vap_web_the_sample_is_saved_and_offered_as_a_download(monkeypatch) -> None:
    console, spy = _console()
    console.app.in_browser = True
    delivered: list[tuple[Path, dict]] = []
    monkeypatch.setattr(console.app, "deliver_binary", lambda path, **kw: delivered.append((path, kw)))
    async with console.app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await _to_engine(pilot, "mulberry-1.6")
        await _open_sample(pilot)
        await pilot.press("enter", "y")
        await until(pilot, lambda: delivered)
        (path, options), = delivered
        assert wav_problem(path.read_bytes()) is None and options["mime_type"] == "audio/wav"
        assert any("under `vap web`" in t and str(path) in t for t in _toasts(pilot.app))
        assert spy.tts[0]["speaker"] == "ira"


class FakeSpeaker:
    audible = True

    def __init__(self) -> None:
        self.calls: list[str] = []
        self.played: list[bytes] = []

    def play_wav(self, wav) -> None:
        self.calls.append("play")
        self.played.append(wav)

    def stop(self) -> None:
        self.calls.append("stop")


async def test_with_a_device_the_sample_plays_and_leaving_the_screen_stops_it(monkeypatch) -> None:
    from vap_console import audio

    speaker = FakeSpeaker()
    monkeypatch.setattr(audio, "open_player", lambda env=None: (speaker, None))
    console, _spy = _console()
    async with console.app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await _to_engine(pilot, "muga")
        await _open_sample(pilot)
        await pilot.press("enter", "y")
        await until(pilot, lambda: any(t.startswith("Playing muga") for t in _toasts(pilot.app)))
        assert speaker.calls == ["play"] and wav_problem(speaker.played[0]) is None
        await pilot.press("2")  # to Tools
        await until(pilot, lambda: speaker.calls == ["play", "stop"])
