"""A billed call can always be hung up, whatever the server sends (issue 32, point 1), on the Talk
screen against a hostile agent socket (tests/talk/hostile_socket.py): a flood of error frames and
of the person's transcripts while an agent turn arrives, a server that ignores the hang-up, frames
malformed at any depth, a frame over the size cap, and session.created without a call id or twice.
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from textual import events
from textual.widgets import Static

from tests.talk.hostile_socket import CREATED, GREETING, Peer, client_kind, frame, hostile, polite
from tests.tui.console_scenes import until
from tests.tui.talk_console import LiveClient, talk_console
from vap_console.api.conversation import MAX_ERRORS, MAX_HELD
from vap_console.tui.screens.talk import TalkScreen
from vap_console.tui.widgets.talk import SpeakingIndicator

ERROR = frame(type="error", code="bad_frame", message="Could not parse that.")
HEARD = frame(type="transcript", role="user", text="hello?")


async def dialled(console: Any, pilot: Any) -> TalkScreen:
    """From Agents: t, yes to the confirm; once the call has started (or ended)."""
    from tests.tui.talk_console import TalkConfirm
    from vap_console.tui.widgets.rows import RowTable

    app = console.app
    await until(pilot, lambda: app.screen.query(RowTable) and app.screen.query_one(RowTable).row_count)
    await pilot.press("t")
    await until(pilot, lambda: isinstance(app.screen, TalkConfirm))
    await pilot.press("y")
    await until(pilot, lambda: isinstance(app.screen, TalkScreen))
    screen = console.screen
    await until(pilot, lambda: screen.talk.started or screen.ended)
    return screen


def end_text(screen: TalkScreen) -> str:
    return str(screen.query_one("#talk-end-text", Static).content)


def flooding(*, answer_hangup: bool = True):
    """session.created, the agent's turn starting to arrive, then error frames and the person's
    transcripts as fast as the socket takes them, until the hang-up arrives; then the goodbye (or,
    not ``answer_hangup``, nothing more: the hang-up ignored, the socket left open)."""

    async def behave(peer: Peer) -> None:
        listening = asyncio.create_task(peer.listen())
        await peer.ws.send(CREATED)
        await peer.ws.send(frame(type="agent_start_talking"))
        await peer.ws.send(frame(type="transcript.delta", role="assistant", text="Let me tell you"))
        while not peer.hung_up.is_set():
            await peer.ws.send(ERROR)
            await peer.ws.send(HEARD)
            peer.server.sent += 2
            if peer.server.sent % 64 == 0:
                await asyncio.sleep(0)  # a send that need not wait does not yield: let it read
        if answer_hangup:
            await peer.goodbye()
        await listening  # until the client goes

    return behave


def on_esc(screen: TalkScreen) -> dict[str, Any]:
    """Records how many frames the screen had folded when Esc's hang-up was handled."""
    seen: dict[str, Any] = {}
    hang_up = screen.action_hang_up

    def recorded() -> None:
        seen["heard"] = screen.talk.heard
        hang_up()

    screen.action_hang_up = recorded  # type: ignore[method-assign]
    return seen


@pytest.mark.slow
async def test_esc_is_answered_and_the_call_ends_under_a_flood() -> None:
    with hostile(flooding()) as server, talk_console(client_kind=client_kind(server, LiveClient)) as console:
        async with console.app.run_test(size=(120, 36)) as pilot:
            screen = await dialled(console, pilot)
            screen.hangup_grace = 2.0  # what is still in flight after the goodbye may outlast it
            await until(pilot, lambda: screen.talk.errors_total > 3000)
            seen = on_esc(screen)
            pressed_at = screen.talk.heard
            console.app.post_message(events.Key("escape", None))  # as a terminal's key arrives
            await until(pilot, lambda: "heard" in seen)
            # Answered at once: a few milliseconds of frames folded between the key and its handling
            # (about 500 here; under 5,000 is a quarter of a second of the flood, which kept
            # the key behind every frame before: never handled).
            assert seen["heard"] - pressed_at < 5000, seen["heard"] - pressed_at
            assert screen.query_one(SpeakingIndicator).state in ("hanging up", "ended")
            await until(pilot, lambda: server.peers[0].hung_up.is_set())
            await until(pilot, lambda: screen.ended)
            assert end_text(screen).startswith("You hung up.")
            talk = screen.talk
            # Every per-call list bounded, however many frames came.
            assert talk.errors_total > 3000 and len(talk.errors_seen) <= MAX_ERRORS
            assert len(talk.held) <= MAX_HELD and len(talk.turns) <= talk.max_turns
            notes = screen.transcript.notes
            assert len(notes) <= 8, notes  # three errors told, then one line counting the rest
            assert any("more error frames from the service; the last: The service reported bad_frame" in n
                       for n in notes), notes


async def test_a_server_that_ignores_the_hang_up_is_cut_off_and_it_is_said() -> None:
    with hostile(flooding(answer_hangup=False)) as server, \
            talk_console(client_kind=client_kind(server, LiveClient)) as console:
        async with console.app.run_test(size=(120, 36)) as pilot:
            screen = await dialled(console, pilot)
            screen.hangup_grace = 0.5
            await until(pilot, lambda: screen.talk.errors_total > 10)
            await pilot.press("escape")
            await until(pilot, lambda: screen.ended)
            assert server.peers[0].hung_up.is_set()
            said = " ".join(end_text(screen).split())
            assert said.startswith("You hung up. The service did not confirm it within 0.5 s, so the console "
                                   "closed the connection itself: billing stops there."), said
            # The connection is closed from here: the server's side of it ends.
            await until(pilot, lambda: server.peers[0].ws.state.name == "CLOSED")
            assert not screen.query_one("#talk-end").has_class("-problem")


async def test_malformed_frames_of_any_depth_are_told_and_the_call_goes_on() -> None:
    frames = ["[" * 100_000, "{" * 100_000, '{"type": "x", "a": ' + "[" * 500 + "]" * 500 + "}", "not json",
              '{"no": "type"}']
    with hostile(polite(before=frames)) as server, \
            talk_console(client_kind=client_kind(server, LiveClient)) as console:
        async with console.app.run_test(size=(120, 36)) as pilot:
            screen = await dialled(console, pilot)
            await until(pilot, lambda: screen.talk.agent_turns >= 1)
            assert screen.talk.malformed == 5 and not screen.ended
            await until(pilot, lambda: any("more unreadable frames" in n for n in screen.transcript.notes))
            notes = " ".join(screen.transcript.notes)
            assert "The service sent a frame the console cannot read (nested deeper than 32 levels)" in notes
            assert "2 more unreadable frames from the service" in notes
            await pilot.press(*"still there?", "enter")
            await until(pilot, lambda: screen.talk.agent_turns >= 2)
            assert [t.text for t in screen.talk.turns][-1] == "You said: still there?"
            await pilot.press("escape")
            await until(pilot, lambda: screen.ended)
            assert end_text(screen).startswith("You hung up. Call again")


async def test_a_frame_over_the_cap_ends_the_call_in_words() -> None:
    huge = frame(type="transcript", role="assistant", text="a" * (5 * 2**20))
    with hostile(polite(before=[huge])) as server, \
            talk_console(client_kind=client_kind(server, LiveClient)) as console:
        async with console.app.run_test(size=(120, 36)) as pilot:
            screen = await dialled(console, pilot)
            await until(pilot, lambda: screen.ended)
            said = " ".join(end_text(screen).split())
            assert ("The line dropped during the call: the server sent a frame larger than 4 MiB (the console's "
                    "limit)") in said, said
            assert screen.query_one("#talk-end").has_class("-problem")


@pytest.mark.slow
async def test_a_call_without_an_id_or_started_twice_goes_on_and_is_kept_once(tmp_path) -> None:
    from vap_console.ledger import Ledger
    from vap_console.tui.call_book import CallBook

    no_id = frame(type="session.created", session_id="s")
    again = frame(type="session.created", session_id="s2", call_id="call_other")
    with hostile(polite(created=no_id, before=[again])) as server, \
            talk_console(client_kind=client_kind(server, LiveClient)) as console:
        book = console.app.calls = CallBook(Ledger("sandbox", data_dir=tmp_path), print, console.app.now)
        async with console.app.run_test(size=(120, 36)) as pilot:
            screen = await dialled(console, pilot)
            await until(pilot, lambda: screen.talk.agent_turns >= 1)
            started = screen.talk.started_at
            # The id register-call gave (the sandbox's), not the second session.created's.
            assert screen.talk.call_id and screen.talk.call_id != "call_other"
            assert screen.talk.created_again == 1 and screen.talk.started_at == started
            await until(pilot, lambda: any("started a second time" in n for n in screen.transcript.notes))
            await pilot.press(*"hi", "enter")
            await until(pilot, lambda: screen.talk.agent_turns >= 2)
            await book.flushed()
            assert [e.call_id for e in book.ledger.entries()] == [screen.talk.call_id]
            assert GREETING in [t.text for t in screen.talk.turns]
