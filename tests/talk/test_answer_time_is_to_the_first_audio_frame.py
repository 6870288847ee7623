"""An answer time is what the caller waits through (issue 34, docs/talk.md "How an answer time is
measured"): from the person's turn leaving to the agent's first audio frame of the answer, on one
monotonic clock; where a call carries no audio, to the answer's first sign. Checked on a sandbox
told to answer after a set delay (``--faults agent_delay_ms=REF:MS``): the figure is that delay."""

from __future__ import annotations

import asyncio
from datetime import timedelta

from pytest import approx

from tests.sandbox.socket_calls import PRIYA_GREETING, agent_ref, eventually, sandbox_with, speaking_seconds
from tests.talk.test_each_answer_is_timed_from_its_own_send import ev
from vap_console.api import VapClient
from vap_console.api.conversation import AUDIO, LIVE, Conversation
from vap_console.api.figures import Times
from vap_console.sandbox.clock import VirtualClock
from vap_console.sandbox.keys import DEFAULT_KEY
from vap_console.sandbox.voice.register import sockets_of

SOUND = "AAAAAAAA"


def test_the_answer_is_timed_to_its_first_audio_frame_not_to_agent_start_talking() -> None:
    talk = Conversation()
    talk.apply(ev(0.0, type="session.created", call_id="c"))
    talk.sent(2.0)
    talk.apply(ev(2.5, type="agent_start_talking"))
    talk.apply(ev(2.6, type="transcript.delta", role="assistant", text="We"))
    # The caller hears nothing until here: this is the wait.
    assert talk.apply(ev(2.9, type="output_audio.delta", audio=SOUND)) == {AUDIO, LIVE}
    talk.apply(ev(2.92, type="output_audio.delta", audio=SOUND))
    talk.apply(ev(3.5, type="transcript", role="assistant", text="We open at nine."))
    [answer] = talk.turns
    assert answer.answer_ms == approx(900)
    assert talk.answered == approx([900])


def test_audio_still_coming_of_a_turn_begun_before_the_send_does_not_time_the_answer() -> None:
    talk = Conversation()
    talk.apply(ev(0.0, type="session.created", call_id="c"))
    talk.apply(ev(0.5, type="agent_start_talking"))
    talk.apply(ev(0.5, type="output_audio.delta", audio=SOUND))
    talk.sent(1.0)  # typed over the greeting
    assert talk.apply(ev(1.1, type="output_audio.delta", audio=SOUND)) == {AUDIO}
    talk.apply(ev(2.0, type="transcript", role="assistant", text=PRIYA_GREETING))
    talk.apply(ev(3.0, type="agent_start_talking"))
    talk.apply(ev(3.25, type="output_audio.delta", audio=SOUND))
    talk.apply(ev(4.0, type="transcript", role="assistant", text="Sure."))
    greeting, answer = talk.turns
    assert greeting.answer_ms is None and answer.answer_ms == approx(2250)


def test_audio_with_nothing_before_it_after_a_turn_starts_and_times_the_answer() -> None:
    talk = Conversation()
    talk.apply(ev(0.0, type="session.created", call_id="c"))
    talk.sent(1.0)
    assert talk.apply(ev(1.4, type="output_audio.delta", audio=SOUND)) == {AUDIO, LIVE}
    assert talk.live is not None and talk.live.answer_ms == approx(400)


def test_a_call_without_audio_times_each_answer_to_its_first_sign() -> None:
    talk = Conversation()
    talk.apply(ev(0.0, type="session.created", call_id="c"))
    for sent, sign, kind in ((1.0, 1.3, "agent_start_talking"), (5.0, 5.7, "transcript.delta")):
        talk.sent(sent)
        talk.apply(ev(sign, type=kind, role="assistant", text="a"))
        talk.apply(ev(sign + 1, type="transcript", role="assistant", text="an answer"))
    assert talk.answered == approx([300, 700])
    assert Times.of(talk.answered).p95 == approx(700)


async def test_on_the_sandbox_the_answer_time_is_the_agents_configured_delay() -> None:
    clock = VirtualClock()

    def seconds() -> float:
        return (clock.now() - clock.start).total_seconds()

    with sandbox_with(clock, "agent_delay_ms=*:840") as sandbox:
        pacer = sockets_of(sandbox.app).pacer

        async def delay_runs_out() -> None:
            """The agent's next turn is due 840 ms on: the clock moves on to it (never before the
            sandbox has set it, or the turn would be due later than asked)."""
            due = clock.now() + timedelta(milliseconds=840)
            await eventually(lambda: any(label.startswith("speaker:") and at == due for label, at in pacer.waiting()),
                             what="the agent's turn waiting out its delay")
            clock.advance(0.84)

        client = VapClient(sandbox.base_url, DEFAULT_KEY)
        async with client:
            registered = await client.register_call(agent_ref(sandbox, "Priya"))
            socket = client.agent_socket(registered)
            socket.clock = seconds  # the frames stamped on the sandbox's clock: its delay, exactly
            talk = Conversation()

            async def read() -> None:
                async for event in socket.events():
                    talk.apply(event)

            async with socket:
                reader = asyncio.create_task(read())
                await eventually(lambda: talk.started)
                await delay_runs_out()  # the greeting waits out the delay too
                clock.advance(speaking_seconds(PRIYA_GREETING) + 0.1)
                await eventually(lambda: talk.agent_turns == 1 and not talk.speaking)
                for answers in (2, 3):
                    frames = talk.audio_frames
                    talk.sent(socket.clock())
                    await socket.send_text("What are your opening hours?")
                    await delay_runs_out()
                    # Its first audio frame read before the clock moves on (stamped as it is read).
                    await eventually(lambda f=frames: talk.audio_frames > f)  # type: ignore[misc]
                    clock.advance(30)
                    await eventually(lambda n=answers: talk.agent_turns == n and not talk.speaking)  # type: ignore[misc]
                await socket.hang_up()
                await reader
    assert talk.turns[0].answer_ms is None  # the greeting answers no turn of the person's
    assert talk.answered == approx([840, 840])


async def test_a_spoken_turn_is_timed_from_the_microphones_commit() -> None:
    # The microphone's frames go out as the person speaks; the turn has left when its commit
    # (the last frame) has, on the clock the socket stamps the agent's frames with.
    from vap_console.tui.screens.talk_sound import _TimesCommits

    now = [0.0]

    class Socket:
        sent: list[str] = []

        def clock(self) -> float:
            return now[0]

        async def send_audio(self, pcm: bytes) -> None:
            self.sent.append("audio")

        async def commit(self) -> None:
            self.sent.append("commit")

    talk = Conversation()
    talk.apply(ev(0.0, type="session.created", call_id="c"))
    socket = Socket()
    mic = _TimesCommits(socket, lambda: talk)  # type: ignore[arg-type]
    for at in (1.0, 1.02, 1.04):  # speaking: not yet a turn that left
        now[0] = at
        await mic.send_audio(bytes(640))
    assert talk.sent_at is None
    now[0] = 3.0
    await mic.commit()
    talk.apply(ev(3.84, type="output_audio.delta", audio=SOUND))
    assert socket.sent == ["audio", "audio", "audio", "commit"]
    assert talk.live is not None and talk.live.answer_ms == approx(840)
