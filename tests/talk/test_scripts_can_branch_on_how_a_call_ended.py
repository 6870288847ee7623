"""How a call ended, as a script reads it (issue 32 point 7): the error code it branches on
(`token_rejected`, `line_dropped`, `call_refused`, the service's own), the words of each
`session.closed` reason, `error` included, and the hint of what to do next. A scripted socket
stands in for the server (tests/talk/test_how_a_call_ends_is_told.py has its helpers)."""

from __future__ import annotations

import pytest

from tests.talk.test_how_a_call_ends_is_told import CREATED, TOKEN, Scripted, call_over, frame
from vap_console.api import errors
from vap_console.api.realtime import LineDropped, SessionClosed, TokenRejected, parse_event


@pytest.mark.parametrize(("reason", "words"), [
    ("client_requested", "You hung up."),
    ("ended", "The agent ended the call."),
    ("max_duration", "The call reached its longest allowed length and was ended."),
    ("error", "The call ended on an error on the service's side."),
])
async def test_each_goodbye_reason_is_told_in_its_own_words(reason: str, words: str) -> None:
    call, seen, failure = await call_over(Scripted(CREATED, frame(type="session.closed", reason=reason), close=1000))
    assert failure is None and seen == ["session.created", "session.closed"]
    assert call.closed_event is not None and call.closed_event.reason == reason
    assert call.closed_event.in_words == words
    assert parse_event(frame(type="session.closed", reason=reason)).in_words == words  # type: ignore[attr-defined]


REDIAL = ("The call has ended; nothing is re-dialled by itself. Start a new call to go on (it is billed again "
          "from the moment the agent answers).")


@pytest.mark.parametrize(("scripted", "code", "hint"), [
    (Scripted(close=4401), "token_rejected", "Mint a new one (a new call) and connect with it at once."),
    (Scripted(CREATED, close=1011), "line_dropped", REDIAL),
    (Scripted(CREATED, close=None), "line_dropped", REDIAL),
    (Scripted(close=4000), "call_refused", ""),
    (Scripted(frame(type="error", code="concurrency_limit_exceeded", message="All lines busy."), close=4000),
     "concurrency_limit_exceeded", ""),
])
async def test_each_ending_has_the_code_a_script_branches_on(scripted: Scripted, code: str, hint: str) -> None:
    _, _, failure = await call_over(scripted)
    assert failure is not None and failure.code == code
    assert str(failure).endswith(hint) and TOKEN not in str(failure)
    assert failure.describe(one_line=True).startswith(f"{code}: ")


def test_the_error_classes_carry_their_codes_and_default_words() -> None:
    assert TokenRejected().code == "token_rejected" and LineDropped().code == "line_dropped"
    assert str(TokenRejected()).startswith("The call's token was spent or expired (token_rejected).")
    assert str(LineDropped()).startswith("The line dropped (line_dropped).")
    assert isinstance(LineDropped(), errors.TransportError)


def test_a_goodbye_with_an_unknown_or_no_reason_says_what_came() -> None:
    assert SessionClosed(reason="error").in_words != SessionClosed(reason="timeout").in_words
    assert SessionClosed().in_words == "The call ended (no reason given)."
