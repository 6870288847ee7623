"""`vap calls …` (issue 25 point 5) against the sandbox: a web call and a placed call are listed
the moment they start, read to their end, added by id, exported with transcripts; placing is
money behind --yes, sent once, and a lost answer is kept as outcome unknown."""

from __future__ import annotations

import csv
import io
import json
import stat

from tests.lost_call_answer import LoseCallAnswer
from tests.scripting.conftest import Vap
from vap_console.sandbox.voice.trunks import trunks_of


def deployed_ref(vap: Vap) -> str:
    return next(a["handle"] for a in vap.api("GET", "/v1/agents")["items"] if a.get("deployed"))


def active_trunk(vap: Vap) -> str:
    state = vap.app.state.sandbox
    from vap_console.sandbox.keys import SANDBOX_KEYS

    account = state.account(SANDBOX_KEYS[vap.key])
    return next(t.id for t in trunks_of(account, state.origin).values() if t.status == "active")


def place(vap: Vap, to: str = "+919812340001", *more: str, terminal: bool = False):
    return vap("calls", "place", "--agent", deployed_ref(vap), "--to", to, "--from", active_trunk(vap),
               *more, terminal=terminal)


def test_a_web_call_from_the_cli_is_listed_at_once(vap: Vap) -> None:
    started = vap("agents", "webcall", deployed_ref(vap), "--yes", "--json")
    assert started.code == 0
    listed = vap("calls", "list", "--json").json()
    assert [(c["callId"], c["kind"]) for c in listed] == [(started.json()["callId"], "web")]


def test_a_placed_call_is_read_to_its_end_with_its_transcript(vap: Vap, sandbox_clock) -> None:
    placed = place(vap, "+919812340001", "--yes", "--json")
    assert placed.code == 0, placed.err
    call_id = placed.json()["callId"]
    # Offline, the ledger as it is; else the call not yet ended is read again first.
    assert vap("calls", "list", "--offline", "--json").json()[0]["status"] == "not read yet"
    assert vap("calls", "list", "--json").json()[0]["status"] == "calling"
    sandbox_clock.advance(60)
    shown = vap("calls", "show", call_id)
    assert shown.code == 0 and "completed" in shown.out and "participant_disconnected" in shown.out
    assert "assistant" in shown.out and "user" in shown.out
    row = vap("calls", "list", "--json").json()[0]
    assert row["status"] == "completed" and row["creditsCharged"] == 3


def test_each_test_number_ends_its_own_way(vap: Vap, sandbox_clock) -> None:
    ids = {}
    for ending in ("0006", "0007", "0008"):
        ids[ending] = place(vap, "+91981234" + ending, "--yes", "--json").json()["callId"]
    sandbox_clock.advance(60)
    ended = {e: vap("calls", "show", i, "--json").json() for e, i in ids.items()}
    assert {e: (c["status"], c["endReason"], c["creditsCharged"]) for e, c in ended.items()} == {
        "0006": ("expired", "no_answer", 0), "0007": ("failed", "busy", 0), "0008": ("failed", "carrier_error", 0)}


def test_place_without_a_terminal_needs_yes_and_sends_nothing(vap: Vap) -> None:
    result = place(vap)
    assert result.code == 2 and "--yes" in result.err
    assert not any(s.startswith("POST /v1/calls") for s in vap.sent)


def test_a_bad_number_names_the_field_and_sends_nothing(vap: Vap) -> None:
    result = place(vap, "98123 40001", "--yes")
    assert result.code == 2 and "--to" in result.err and "E.164" in result.err
    assert vap.sent == []


def test_a_lost_answer_is_kept_as_outcome_unknown_and_never_resent(vap: Vap) -> None:
    made: list[LoseCallAnswer] = []
    vap.wrap = lambda inner: made.append(LoseCallAnswer(inner)) or made[-1]
    result = place(vap, "+919812340001", "--yes")
    assert result.code == 1 and "outcome unknown" in result.err and "--idempotency-key" in result.err
    assert made[0].posts == 1
    [row] = vap("calls", "list", "--json").json()
    assert row["status"] == "outcome unknown" and row["callId"] is None and row["idempotencyKey"]


def test_add_reads_a_call_started_elsewhere_and_refuses_an_unknown_id(vap: Vap) -> None:
    call_id = vap("agents", "webcall", deployed_ref(vap), "--yes", "--json").json()["callId"]
    vap.tmp.joinpath("data").rename(vap.tmp / "old-data")  # a machine that never saw it
    assert vap("calls", "add", call_id).code == 0
    assert [c["callId"] for c in vap("calls", "list", "--json").json()] == [call_id]
    missing = vap("calls", "add", "no-such-call")
    assert missing.code == 1 and "nothing was added" in missing.err


def test_export_holds_every_call_with_its_transcript(vap: Vap, sandbox_clock, tmp_path) -> None:
    call_id = place(vap, "+919812340001", "--yes", "--json").json()["callId"]
    sandbox_clock.advance(60)
    vap("calls", "show", call_id)
    as_json = json.loads(vap("calls", "export", "--format", "json").out)
    assert as_json[0]["callId"] == call_id and len(as_json[0]["transcript"]) >= 3
    out = tmp_path / "calls.csv"
    assert vap("calls", "export", "--format", "csv", "--output", str(out)).code == 0
    assert stat.S_IMODE(out.stat().st_mode) == 0o600  # every transcript: its owner's alone
    [row] = list(csv.DictReader(io.StringIO(out.read_text())))
    assert row["callId"] == call_id and row["transcript"].startswith("assistant: ")


def test_list_reads_again_the_calls_not_yet_ended(vap: Vap, sandbox_clock) -> None:
    """As the Calls screen does: a listing shows where each call is now, not "not read yet"."""
    call_id = place(vap, "+919812340001", "--yes", "--json").json()["callId"]
    sandbox_clock.advance(60)
    listed = vap("calls", "list")
    assert listed.code == 0 and "not read yet" not in listed.out and "completed" in listed.out
    [row] = vap("calls", "list", "--json").json()
    assert (row["callId"], row["status"], row["creditsCharged"]) == (call_id, "completed", 3)
    # Ended, it is not read again: the next listing sends nothing.
    vap.sent.clear()
    vap("calls", "list")
    assert not [s for s in vap.sent if "/v1/calls/" in s]


def test_an_id_the_ledger_keeps_for_another_call_is_refused_not_overwritten(vap: Vap) -> None:
    """A sandbox started again gives old ids anew: the call the ledger kept under that id stays."""
    from vap_console.scripting.calls import SANDBOX_CALL

    vap.session().ledger().record_started(SANDBOX_CALL, "ua_priya", "talk")
    for command in (("calls", "show", SANDBOX_CALL), ("calls", "add", SANDBOX_CALL)):
        refused = vap(*command)
        assert refused.code != 0 and "Traceback" not in refused.err
        said = " ".join(refused.err.split())
        assert "kept already for another call" in said and "nothing was overwritten" in said
    [kept] = vap("calls", "list", "--offline", "--json").json()
    assert (kept["kind"], kept["agent"]) == ("talk", "ua_priya")
    # Read again by `vap calls list`: marked, not taken over, and not read again.
    listed = vap("calls", "list", "--json").json()
    assert [(c["kind"], c["agent"], c["status"]) for c in listed] == [("talk", "ua_priya", "not found")]
