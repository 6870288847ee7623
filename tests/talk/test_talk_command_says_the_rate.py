"""`vap agents talk` says the rate the server publishes with the cost, before the billed call."""

from __future__ import annotations

from tests.talk.cli import Talker


def test_the_cost_said_before_the_call_names_the_sandboxs_rate(talker: Talker) -> None:
    result = talker("agents", "talk", talker.ref(), "--say", "hello", "--yes")
    assert result.code == 0, result.err
    said = " ".join(result.err.split())
    assert ("This charges your account: a call over the agent socket is billed from the moment the agent "
            "answers until it ends (here: after the last --say, or when the agent ends it); rate: 3 credits "
            "per started minute, as this server publishes it (call slots 0/4 in use).") in said
