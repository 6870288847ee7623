"""How `vap agents talk` prints a conversation: the transcript as its turns settle (stdout), with
a ``⚙`` line for each tool call the sandbox reports (``sandbox.tool_call``) as it happens; or with
--json one object per socket event with the time it arrived (audio summarised, never dumped; a
tool call as its frame), and the end in words on stderr with its exit code."""

from __future__ import annotations

import time
from datetime import UTC, datetime
from typing import Any

import click

from vap_console.api.conversation import Conversation
from vap_console.api.figures import Times
from vap_console.api.realtime import OutputAudioDelta, ServerEvent, ToolCall, Transcript
from vap_console.literal import clean
from vap_console.scripting.base import EXIT_OK, EXIT_REFUSED, describe, say
from vap_console.scripting.dialogue import Run
from vap_console.scripting.output import dump_json

SPEAKERS = {"assistant": "agent", "user": "you"}
# Unreadable frames told one by one on stderr; --json prints every frame.
MALFORMED_TOLD = 3


def line_of(role: str, text: str, interrupted: bool = False) -> str:
    who = SPEAKERS.get(role, role)
    mark = " … (interrupted)" if interrupted else ""
    return clean(f"{who}: {text}{mark}", multiline=False)


class EventPrinter:
    def __init__(self, *, as_json: bool) -> None:
        self.as_json = as_json
        self.opened = time.monotonic()

    def _stamp(self, at: float) -> dict[str, Any]:
        wall = datetime.now(UTC).isoformat(timespec="milliseconds")
        return {"at": wall, "t": round(at - self.opened, 3)}

    def event(self, event: ServerEvent, talk: Conversation) -> None:
        if self.as_json:
            frame = event.wire()
            if isinstance(event, OutputAudioDelta):
                frame = {"type": event.type, "bytes": len(event.pcm)}
            click.echo(dump_json({**self._stamp(event.received_at), **frame}, indent=None))
        elif isinstance(event, Transcript):
            settled = talk.turns[-1] if talk.turns else None
            interrupted = bool(settled and settled.interrupted and event.role == "assistant")
            click.echo(line_of(event.role, event.text, interrupted))
        elif isinstance(event, ToolCall):
            click.echo(clean(f"⚙ {event.in_words()}", multiline=False))
        elif event.type == "?" and talk.malformed <= MALFORMED_TOLD:
            # Told on stderr, the first few (a flood of them is not a flood of lines); --json has each.
            problem = str(getattr(event, "problem", "") or "malformed")
            say(f"warning: the service sent a frame this client cannot read ({problem}); ignored, the call goes on")

    def closed(self, talk: Conversation) -> None:
        """--json: a last object made by this client (not a server frame) saying how the socket closed."""
        if not self.as_json:
            return
        failure = talk.failure
        record: dict[str, Any] = {"type": "client.closed", "call_id": talk.call_id,
                                  "billed_seconds": round(talk.billed_seconds(time.monotonic()), 3),
                                  # Figures of the console's own (docs/talk.md "How an answer time is measured").
                                  "answer_ms": Times.of(talk.answered).as_dict(),
                                  "tool_calls": talk.tool_calls_total}
        if failure is not None:
            record |= {"close_code": failure.close_code, "code": failure.code, "message": str(failure)}
        elif talk.closed is not None:
            record |= {"reason": talk.closed.reason}
        click.echo(dump_json({**self._stamp(time.monotonic()), **record}, indent=None))


def end_of(run: Run) -> tuple[str, int]:
    """How the run ended, in words, and the exit code (0: the conversation was held)."""
    talk = run.conversation
    if talk.failure is not None:
        message, code = describe(talk.failure)
        return message, code
    if run.no_answer is not None:
        return (f"no answer to {run.no_answer!r} within the time allowed (--timeout): the call was hung up",
                EXIT_REFUSED)
    seconds = talk.billed_seconds(time.monotonic())
    tail = f" ({len(run.unsent)} --say not answered: the call had ended)" if run.unsent else ""
    said = talk.how_it_ended
    if run.hangup_unanswered:
        said = "You hung up; the service did not confirm it in time, so the connection was closed from here."
    return f"{said} Billed for {seconds:.1f} s.{tail}", EXIT_OK
