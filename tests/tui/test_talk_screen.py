"""The Talk screen (t on Agents): a live conversation over the sandbox's agent socket, as a person
sees it: asked first, the words arriving and settling, typing a turn, hanging up, every end said
in words, nothing re-dialled by itself, typing never lost."""

from __future__ import annotations

from textual.widgets import Input, Static

from tests.tui.console_scenes import click, click_again, run_from_palette, until
from tests.tui.talk_console import PRIYA_GREETING, speaking_seconds, talk_console
from vap_console.tui.screens.talk import TalkConfirm, TalkScreen
from vap_console.tui.widgets.talk import BilledTimer, SpeakingIndicator


def end_text(screen: TalkScreen) -> str:
    return str(screen.query_one("#talk-end-text", Static).content)


async def test_a_conversation_streams_settles_and_hangs_up(tmp_path) -> None:
    from vap_console.ledger import Ledger
    from vap_console.tui.call_book import CallBook

    with talk_console() as console:
        book = console.app.calls = CallBook(Ledger("sandbox", data_dir=tmp_path), print, console.app.now)
        async with console.app.run_test(size=(120, 36)) as pilot:
            screen = await console.talking(pilot)
            assert screen.query_one(SpeakingIndicator).state == "speaking"
            assert screen.query_one(BilledTimer).seconds == 0
            first = console.live_words()
            await console.advance(pilot, 1.0, lambda: console.live_words() > first)
            assert PRIYA_GREETING.startswith(screen.talk.live.text)
            await console.greeted(pilot)
            assert [t.text for t in screen.talk.turns] == [PRIYA_GREETING]
            assert screen.query_one(SpeakingIndicator).state == "listening"
            assert screen.query_one(BilledTimer).seconds >= 4
            # Billed from session.created: in the calls ledger as a Talk call, under its agent.
            await book.flushed()
            kept = book.ledger.get(screen.talk.call_id)
            assert kept is not None and (kept.kind, kept.agent) == ("talk", screen.agent.ref)
            await console.say(pilot, "hello")
            assert screen.query_one("#say", Input).value == ""
            assert [t.text for t in screen.talk.turns][-1] == "hello"
            await pilot.press("escape")
            await until(pilot, lambda: screen.ended)
            assert end_text(screen).startswith("You hung up. Call again starts a new billed call, after asking.")
            assert str(screen.query_one("#hang-up").label) == "Close"
            await pilot.press("escape")
            await until(pilot, lambda: not isinstance(console.app.screen, TalkScreen))


async def test_talk_is_in_the_palette_and_asks_first_in_words_of_money() -> None:
    with talk_console() as console:
        async with console.app.run_test(size=(120, 36)) as pilot:
            from tests.tui.console_scenes import quiet

            await quiet(pilot)
            await run_from_palette(pilot, "Agents: Talk")
            await until(pilot, lambda: isinstance(console.app.screen, TalkConfirm))
            text = " ".join(str(w.content) for w in console.app.screen.query(Static))
            assert "billed from the moment the agent answers" in text and "Call slots: 0/4 in use" in text
            await pilot.press("escape")
            await quiet(pilot)
            assert not isinstance(console.app.screen, TalkScreen)
            assert console.sandbox.state.account  # nothing dialled: no call record
            from vap_console.sandbox.keys import by_name

            assert not console.sandbox.state.account(by_name("agent")).calls


async def test_a_dropped_call_is_told_never_redialled_and_keeps_the_typing() -> None:
    with talk_console("socket_drop_after=2") as console:
        async with console.app.run_test(size=(120, 36)) as pilot:
            screen = await console.talking(pilot)
            say = screen.query_one("#say", Input)
            await pilot.press(*"half typed")
            await console.advance(pilot, 3, lambda: screen.ended)
            assert "The line dropped during the call: socket closed with 1011" in end_text(screen)
            assert "Your typing is kept" in end_text(screen)
            assert say.value == "half typed"
            await pilot.press("enter")
            assert say.value == "half typed"
            from vap_console.sandbox.keys import by_name

            calls = console.sandbox.state.account(by_name("agent")).calls
            assert len(calls) == 1  # never dialled again by itself
            await click(pilot, "#call-again")
            await until(pilot, lambda: isinstance(console.app.screen, TalkConfirm))
            await pilot.press("escape")
            await until(pilot, lambda: console.app.screen is screen)
            assert len(calls) == 1 and say.value == "half typed"


async def test_a_draft_is_explained_instead_of_asked_about() -> None:
    from vap_console.tui.widgets.banner import Banner
    from vap_console.tui.widgets.rows import RowTable

    with talk_console() as console:
        async with console.app.run_test(size=(120, 36)) as pilot:
            await until(pilot, lambda: console.app.screen.query(RowTable)
                        and console.app.screen.query_one(RowTable).row_count == 4)
            await pilot.press("down", "down")  # Meera – EMI Reminders, a draft
            await pilot.press("t")
            banner = console.app.screen.query_one(Banner)
            await until(pilot, lambda: banner.message)
            assert "is a draft" in banner.message and "press D to deploy it here (sandbox only), then t" in banner.message
            assert not isinstance(console.app.screen, TalkConfirm)


async def test_ctrl_s_saves_the_agents_audio_as_a_wav(tmp_path) -> None:
    import wave

    with talk_console() as console:
        async with console.app.run_test(size=(120, 36)) as pilot:
            screen = await console.talking(pilot)
            await console.save_audio_to(pilot, tmp_path, 1.01)
            saved = tmp_path / f"vap-call-{screen.talk.call_id}-agent.wav"
            await until(pilot, saved.exists)
            with wave.open(str(saved)) as wav:
                assert (wav.getframerate(), wav.getnchannels(), wav.getsampwidth()) == (24000, 1, 2)
                assert wav.getnframes() == 51 * 480  # the 51 frames of 20 ms heard by 1.01 s
            saved.unlink()
            # In the typing box s is a letter; elsewhere (the transcript focused) it saves too.
            await pilot.press("s")
            assert screen.query_one("#say", Input).value == "s" and not saved.exists()
            screen.transcript.focus()
            await pilot.press("s")
            await until(pilot, saved.exists)


async def test_hanging_up_ends_the_call_on_the_server() -> None:
    from vap_console.sandbox.keys import by_name

    with talk_console() as console:
        async with console.app.run_test(size=(120, 36)) as pilot:
            screen = await console.talking(pilot)
            (record,) = console.sandbox.state.account(by_name("agent")).calls.values()
            await click(pilot, "#hang-up")  # with the mouse
            await until(pilot, lambda: screen.ended)
            assert record.status == "completed" and record.end_reason == "client_requested"
            assert str(screen.query_one("#hang-up").label) == "Close"
            await click_again(pilot, "#hang-up")
            await until(pilot, lambda: not isinstance(console.app.screen, TalkScreen))


async def test_an_error_frame_is_told_and_the_call_goes_on() -> None:
    with talk_console() as console:
        async with console.app.run_test(size=(120, 36)) as pilot:
            screen = await console.talking(pilot)
            await console.greeted(pilot)
            await screen._socket._send({"type": "input_audio_buffer.append", "audio": "not base64!"})
            notes = lambda: " ".join(screen.transcript.notes)  # noqa: E731
            await until(pilot, lambda: "The service reported invalid_audio" in notes())
            assert not screen.ended
            await console.say(pilot, "still there?")
            assert not screen.ended


async def test_a_line_typed_over_the_greeting_is_shown_after_it_marked_as_waiting() -> None:
    from tests.tui.console_scenes import quiet

    with talk_console() as console:
        async with console.app.run_test(size=(80, 24)) as pilot:
            screen = await console.talking(pilot)
            await pilot.press(*"hello", "enter")
            await until(pilot, lambda: screen.talk.held)
            await quiet(pilot, workers=False)
            said = [line for line in screen.transcript.lines if line.startswith(("Agent:", "You:"))]
            # Below the greeting still arriving, and marked as waiting for it (not silently).
            assert said[-2].startswith("Agent: ") and said[-2].endswith("▍")
            assert said[-1] == "You: hello  ⧗ waiting for the agent to finish…"
            # The answer to "hello" starts as the greeting ends: the agent is speaking again.
            await console.advance(pilot, speaking_seconds(PRIYA_GREETING), lambda: screen.talk.agent_turns >= 1)
            await quiet(pilot, workers=False)
            said = [line for line in screen.transcript.lines if line.startswith(("Agent:", "You:"))]
            assert said[:2] == [f"Agent: {PRIYA_GREETING}", "You: hello"]
            assert said.count("You: hello") == 1
