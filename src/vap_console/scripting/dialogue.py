"""A scripted conversation over the agent socket: what `vap agents talk` and `vap agents test`
share (Textual-free). Register the call, connect, wait for the greeting, send each turn and wait
for its answer, hang up, and hand back the folded ``Conversation``.

An answer is over when the agent stops talking (``agent_stop_talking``) or, where a server sends
no speaking events, when its ``transcript`` settles. Nothing is re-dialled: a call that drops ends
the run, with the drop in ``Conversation.failure``.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from vap_console.api.conversation import Conversation, Turn
from vap_console.api.realtime import HANGUP_WAIT, AgentSocket, LineDropped, ServerEvent, SessionCreated, Transcript

if TYPE_CHECKING:
    from vap_console.api.client import VapClient

# How long an answer (or the greeting) may take before the run says so and hangs up.
TURN_TIMEOUT = 30.0
__all__ = ["HANGUP_WAIT", "TURN_TIMEOUT", "NoAnswer", "Run", "converse"]

# The hook the call ledger (issue 25) is wired to: told once a call has started and is billed.
CallStarted = Callable[[str, str, str], None]  # (call_id, agent_ref, kind)
EventSeen = Callable[[ServerEvent, Conversation], None]


class NoAnswer(Exception):
    """The agent did not answer within the turn's time."""


@dataclass
class Run:
    """The outcome of one scripted conversation."""

    conversation: Conversation
    # Turns the script could not send, or that got no answer, because the call had ended (the
    # agent hung up, say) or the time ran out.
    unsent: list[str]
    no_answer: str | None = None
    # The agent's settled turns by what they answer: [0] the greeting, [i] the i-th turn sent.
    segments: list[list[Turn]] = field(default_factory=lambda: [[]])
    # The server did not answer the hang-up within its wait: the socket was closed from here.
    hangup_unanswered: bool = False


class _Answers:
    """Counts the agent's finished answers as events arrive, and wakes whoever waits on them."""

    def __init__(self) -> None:
        self.done = 0
        self.changed = asyncio.Event()

    def saw(self, event: ServerEvent, talk: Conversation, speaking_before: bool) -> None:
        finished = (event.type == "agent_stop_talking"
                    or (event.type == "transcript" and getattr(event, "role", "") == "assistant"
                        and not speaking_before and not talk.speaking))
        if finished:
            self.done += 1
        self.changed.set()


async def converse(
    client: VapClient,
    agent_ref: str,
    turns: Sequence[str],
    *,
    on_event: EventSeen | None = None,
    on_call_started: CallStarted | None = None,
    turn_timeout: float = TURN_TIMEOUT,
    clock: Callable[[], float] = time.monotonic,
    hangup_wait: float = HANGUP_WAIT,
) -> Run:
    """Hold the conversation: greeting, each of ``turns`` with its answer, hang up. Errors before
    the call starts (register-call's refusals) raise; everything after is in the returned run."""
    registered = await client.register_call(agent_ref)
    # The call's id from register-call where the server gives one: session.created may not.
    talk = Conversation(call_id=registered.call_id)
    answers = _Answers()
    unsent = list(turns)
    run = Run(talk, unsent)
    async with client.agent_socket(registered) as call:
        reader = asyncio.create_task(_read(call, run, answers, on_event, on_call_started, agent_ref, clock))
        try:
            expected = 1
            if not await _wait(answers, talk, expected, turn_timeout):
                run.no_answer = "the greeting"
            while unsent and run.no_answer is None and not talk.ended:
                talk.sent(clock())
                expected = answers.done + 1
                run.segments.append([])
                try:
                    await call.send_text(unsent[0])
                except LineDropped:
                    run.segments.pop()
                    break  # the call ended as the turn left (the agent hung up): the reader says how
                if not await _wait(answers, talk, expected, turn_timeout):
                    run.no_answer = unsent[0]
                if answers.done < expected:
                    break  # no answer came (the call ended first, or the time ran out): it stays unsent
                unsent.pop(0)
            await call.hang_up()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(asyncio.shield(reader), hangup_wait)
        finally:
            if not reader.done():
                run.hangup_unanswered = call.hangup_sent and not talk.ended
                call.force_close()  # the server ignored it: closed from here, without waiting on it
                reader.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await reader
    if not talk.ended:
        talk.end(clock())
    return run


async def _wait(answers: _Answers, talk: Conversation, expected: int, within: float) -> bool:
    """Until ``expected`` answers are done or the call ended; False when the time ran out first."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + within
    while answers.done < expected and not talk.ended:
        answers.changed.clear()
        remaining = deadline - loop.time()
        if remaining <= 0:
            return False
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(answers.changed.wait(), remaining)
    return True


async def _read(call: AgentSocket, run: Run, answers: _Answers, on_event: EventSeen | None,
                on_call_started: CallStarted | None, agent_ref: str, clock: Callable[[], float]) -> None:
    from vap_console.api import errors

    talk = run.conversation
    try:
        async for event in call.events():
            speaking_before = talk.speaking
            first = not talk.started
            talk.apply(event)
            if isinstance(event, Transcript) and event.role == "assistant" and talk.turns:
                segment = run.segments[-1]
                segment.append(talk.turns[-1])
                if len(segment) > talk.max_turns:
                    del segment[0]  # a server's stream of answers is kept as the turns are
            if isinstance(event, SessionCreated) and first and on_call_started is not None:
                # Once per call, whatever the server repeats; "" when no id came from either side.
                on_call_started(talk.call_id or "", agent_ref, "talk")
            if on_event is not None:
                on_event(event, talk)
            answers.saw(event, talk, speaking_before)
    except errors.ApiError as failure:
        talk.end(clock(), failure)
    else:
        talk.end(clock())
    answers.changed.set()
