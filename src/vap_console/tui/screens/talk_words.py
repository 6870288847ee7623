"""What the Talk screen says in words: the confirm before every call (what it costs) and how a
call ended, with what to do next."""

from __future__ import annotations

from vap_console.api.conversation import Conversation
from vap_console.api.models import AgentLimits
from vap_console.api.realtime import LineDropped
from vap_console.tui.screens.dialog import Confirm, billed_call_keys
from vap_console.tui.screens.webcall import rate_line, slots_line

COST_NOTE = ("The call is billed from the moment the agent answers until it ends (Esc or Hang up ends it), "
             "and holds one of the account's concurrent-call slots while it runs.")
NEXT_CALL = "Call again starts a new billed call, after asking."


class TalkConfirm(Confirm):
    """Asked before every call from the Talk screen (Call again asks again): what it costs."""

    LABEL = "Talk to an agent"
    BINDINGS = billed_call_keys(("talk.cancel", "Start no call"), (
        "talk.start", "Start billed call", "Start the call: billed from when the agent answers, holds a call slot"))

    def __init__(self, agent_label: str, limits: AgentLimits | None) -> None:
        super().__init__(f"{COST_NOTE} {rate_line(limits)}\n\n{slots_line(limits)}",
                         title=f"Talk to {agent_label}? (a billed call)", yes="Start billed call", no="Cancel")


def ending_words(talk: Conversation, hung_up_early: bool) -> tuple[str, bool]:
    """How the call ended with what to do next, and whether it is a problem (shown as one)."""
    failure = talk.failure
    if hung_up_early:
        return "You hung up before the agent answered: nothing was billed. " + NEXT_CALL, False
    if failure is None:
        said = talk.how_it_ended or "The call ended."
        return f"{said} {NEXT_CALL}", talk.closed is not None and talk.closed.reason == "error"
    if failure.close_code == 4401:
        return (f"{failure} Call again mints a new token (and asks first).", True)
    if failure.close_code == 4000:
        return f"The call could not start: {failure} Nothing was billed.", True
    if isinstance(failure, LineDropped):
        billed = " It was billed until it dropped." if talk.started else ""
        return f"{failure}{billed} Your typing is kept.", True
    return f"The call could not be made: {failure}", True
