"""`vap calls stats` (issue 34 point 1): per agent, from the calls ledger, calls, minutes, credits and
answer time p50/p95/max; --since takes a span or an ISO date, --agent an id, a ua_<handle> or a
name; a bad value is a usage error naming the option and its rule, and nothing is read."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from tests.scripting.conftest import Vap

PRIYA = "ua_4152f853c72d"
PRIYA_ID = "4152f853-c72d-589f-9de8-4b1939949157"
PRIYA_NAME = "Priya – Front Desk"
ARJUN = "ua_4f353ac418fc"


def _noted(days_ago: float) -> str:
    return (datetime.now(UTC) - timedelta(days=days_ago)).strftime("%Y-%m-%dT%H:%M:%SZ")


def _calls(vap: Vap) -> None:
    """Priya kept under her handle (a Talk call) and under her id (a call record read), Arjun once."""
    vap.session().ledger().add_many([
        {"call_id": "p1", "agent": PRIYA, "kind": "talk", "noted_at": _noted(1), "status": "completed",
         "duration_seconds": 90, "credits": 6, "answer_ms": [700, 900, 1400]},
        {"call_id": "p2", "agent": PRIYA_ID, "kind": "outbound", "noted_at": _noted(10), "status": "completed",
         "duration_seconds": 30, "credits": 3},
        {"call_id": "p3", "agent": PRIYA, "kind": "talk", "noted_at": _noted(20), "status": "completed",
         "duration_seconds": 60, "credits": 3, "answer_ms": [650]},
        {"call_id": "a1", "agent": ARJUN, "kind": "talk", "noted_at": _noted(2), "status": "completed",
         "duration_seconds": 120, "credits": 9, "answer_ms": [2000]},
    ])


def test_each_agent_has_its_calls_minutes_credits_and_answer_percentiles(vap: Vap) -> None:
    _calls(vap)
    result = vap("calls", "stats", "--json")
    assert result.code == 0, result.err
    every = {s["agent"]: s for s in result.json()}
    # Under her handle and under her id: one agent, shown with her name.
    assert every[PRIYA] == {"agent": PRIYA, "name": PRIYA_NAME, "calls": 3, "minutes": 3.0, "credits": 12.0,
                            "answerMs": {"count": 4, "p50_ms": 700.0, "p95_ms": 1400.0, "max_ms": 1400.0}}
    assert every[ARJUN]["answerMs"] == {"count": 1, "p50_ms": 2000.0, "p95_ms": 2000.0, "max_ms": 2000.0}
    assert list(every) == [PRIYA, ARJUN]  # most credits first


def test_since_keeps_only_the_calls_noted_since_then(vap: Vap) -> None:
    _calls(vap)
    week = {s["agent"]: s for s in vap("calls", "stats", "--since", "7d", "--json").json()}
    assert week[PRIYA]["calls"] == 1 and week[PRIYA]["answerMs"]["count"] == 3
    assert vap("calls", "stats", "--since", "36h", "--json").json()[0]["agent"] == PRIYA
    fortnight = datetime.now(UTC).date() - timedelta(days=15)
    [priya] = vap("calls", "stats", "--since", fortnight.isoformat(), "--agent", PRIYA, "--json").json()
    assert priya["calls"] == 2


@pytest.mark.parametrize("given", [PRIYA, PRIYA_ID, PRIYA_NAME])
def test_agent_takes_an_id_a_handle_or_a_name(vap: Vap, given: str) -> None:
    _calls(vap)
    [priya] = vap("calls", "stats", "--agent", given, "--json").json()
    assert (priya["agent"], priya["calls"]) == (PRIYA, 3)


def test_the_table_names_each_agent_and_its_figures(vap: Vap) -> None:
    _calls(vap)
    result = vap("calls", "stats", "--agent", ARJUN)
    figures = ["1", "2.0", "9", "2000", "2000", "2000", "1"]
    assert result.out.splitlines() == ["\t".join(["Arjun – Implant Leads", ARJUN, *figures])]


@pytest.mark.parametrize("bad", ["7x", "d7", "-3d", "2026-13-01", "yesterday", "", "9999999999d"])
def test_a_since_that_names_no_moment_is_a_usage_error_saying_the_rule(vap: Vap, bad: str) -> None:
    _calls(vap)
    result = vap("calls", "stats", "--since", bad)
    assert result.code == 2 and result.out == ""
    assert "--since" in result.err and "7d, 24h, 30m" in result.err and "ISO date" in result.err
    assert vap.sent == []  # checked before anything was asked of the server


def test_agent_names_are_shown_as_text_never_as_terminal_control(vap: Vap) -> None:
    vap.session().ledger().add_many([{"call_id": "h1", "agent": "ua_\x1b[2Jevil\x07", "kind": "talk",
                                      "noted_at": _noted(1), "answer_ms": [500]}])
    result = vap("calls", "stats", "--offline", terminal=True)
    assert result.code == 0 and "\x1b" not in result.out and "\x07" not in result.out
    assert "evil" in result.out


def test_calls_show_says_the_answer_times_kept_on_a_call(vap: Vap) -> None:
    from vap_console.scripting.calls import SANDBOX_CALL

    ledger = vap.session().ledger()
    ledger.record_started(SANDBOX_CALL, PRIYA, "outbound")
    ledger.record_answer_times(SANDBOX_CALL, [700, 900])
    result = vap("calls", "show", SANDBOX_CALL)
    assert result.code == 0, result.err
    assert "answer times\tanswer p50 700 ms, p95 900 ms, max 900 ms (2 answers)" in result.out.splitlines()
