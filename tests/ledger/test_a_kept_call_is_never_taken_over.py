"""An id already kept for one call is never overwritten by another (issue 32 point 4): a sandbox
started again gave its first ids anew, and a new web call silently took over an old Talk call's
row (shown as a web call with another agent's transcript). The ledger keeps the call it had and
says so; the same call told again still changes nothing."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from vap_console.api.models import CallRecord
from vap_console.ledger import CallIdTaken, Ledger


def record(**fields) -> CallRecord:
    return CallRecord.model_validate({
        "id": "c1", "status": "completed", "agentId": "ag-priya", "kind": "socket",
        "createdAt": "2026-11-20T10:00:00Z", "transcript": [{"role": "assistant", "content": "Priya here"}],
        **fields,
    })


def test_a_new_call_under_a_kept_id_is_refused_aloud_and_the_old_row_stays(ledger: Ledger) -> None:
    ledger.record_started("c1", "ua_priya", "talk", at=datetime(2026, 11, 20, 10, tzinfo=UTC))
    ledger.cache_record(record())
    with pytest.raises(CallIdTaken) as taken:
        ledger.record_started("c1", "ua_meera", "web")
    assert "c1" in str(taken.value) and "nothing was overwritten" in str(taken.value)
    # What the server now says of that id is another call (another kind, another start): refused too.
    with pytest.raises(CallIdTaken):
        ledger.cache_record(record(kind="web", agentId="ag-meera", createdAt="2026-11-28T09:00:00Z",
                                   transcript=[{"role": "assistant", "content": "Meera here"}]))
    with pytest.raises(CallIdTaken):
        ledger.cache_record(record(createdAt="2026-11-28T09:00:00Z"))
    [entry] = ledger.entries()
    assert (entry.kind, entry.agent) == ("talk", "ua_priya")
    assert [t.content for t in ledger.get("c1").transcript] == ["Priya here"]  # type: ignore[union-attr]


def test_the_same_call_told_again_is_kept_once_and_updated(ledger: Ledger) -> None:
    ledger.record_started("c1", "ua_priya", "talk")
    ledger.record_started("c1", "ua_priya", "talk")
    ledger.cache_record(record(status="in_progress"))
    ledger.cache_record(record())  # read again: the same call, further on
    ledger.record_started("c1", "ua_priya", "talk")
    assert ledger.count() == 1 and ledger.get("c1").status == "completed"  # type: ignore[union-attr]
    # A call first kept from what the server said is read again as that call.
    ledger.cache_record(record(id="c2", kind="web"))
    ledger.cache_record(record(id="c2", kind="web", status="completed"))
    assert ledger.get("c2").kind == "web"  # type: ignore[union-attr]


def test_the_refusal_names_the_call_kept(ledger: Ledger) -> None:
    ledger.record_started("c1", "ua_priya", "talk", at=datetime(2026, 11, 20, 10, tzinfo=UTC))
    with pytest.raises(CallIdTaken) as taken:
        ledger.record_started("c1", "ua_meera", "web")
    assert "a talk call of ua_priya noted 2026-11-20T10:00:00Z" in str(taken.value)
    assert taken.value.call_id == "c1"
    with pytest.raises(CallIdTaken) as again:
        ledger.cache_record(record(kind="web"))
    assert "a talk call of ua_priya noted 2026-11-20T10:00:00Z" in str(again.value)


@pytest.mark.parametrize(("kept", "told", "agent", "refused"), [
    ("talk", "socket", "ua_priya", False),  # a Talk session is a socket call on the server
    ("talk", "talk", "ua_meera", True),  # another agent
    ("elsewhere", "web", "ua_meera", False),  # added by id: what it was is not known
    ("web", "outbound", "ua_priya", True),
    ("outbound", "web", "ua_priya", True),  # either way round
    ("talk", "talk", "ua_zed", True),
])
def test_what_counts_as_another_call_when_started(ledger: Ledger, kept: str, told: str, agent: str,
                                                  refused: bool) -> None:
    ledger.record_started("c1", "ua_priya", kept)
    if refused:
        with pytest.raises(CallIdTaken):
            ledger.record_started("c1", agent, told)
    else:
        ledger.record_started("c1", agent, told)
    [entry] = ledger.entries()
    assert (entry.kind, entry.agent) == (kept, "ua_priya")


def test_a_call_kept_with_no_agent_takes_any(ledger: Ledger) -> None:
    ledger.record_started("c1", "", "web")
    ledger.record_started("c1", "ua_meera", "web")
    assert ledger.count() == 1


@pytest.mark.parametrize(("kept", "fields", "refused"), [
    ("elsewhere", {"kind": "web"}, False),
    ("talk", {"kind": None}, False),  # the server said no kind: nothing to tell apart
    ("talk", {"kind": "socket"}, False),
    ("outbound", {"kind": "socket"}, True),
    ("talk", {"kind": "web"}, True),
])
def test_what_counts_as_another_call_when_read(ledger: Ledger, kept: str, fields: dict, refused: bool) -> None:
    ledger.record_started("c1", "ua_priya", kept)
    if refused:
        with pytest.raises(CallIdTaken):
            ledger.cache_record(record(**fields))
        assert ledger.get("c1").status is None  # type: ignore[union-attr]
    else:
        ledger.cache_record(record(**fields))
        assert ledger.get("c1").status == "completed"  # type: ignore[union-attr]


def test_a_record_never_read_before_is_not_told_apart_by_time(ledger: Ledger) -> None:
    ledger.record_started("c1", "ua_priya", "talk")
    ledger.cache_record(record(createdAt=None))
    ledger.cache_record(record())  # the first time it says when
    assert ledger.get("c1").status == "completed"  # type: ignore[union-attr]


def test_the_ledger_notes_whose_calls_it_keeps(ledger: Ledger) -> None:
    assert ledger.account() is None
    assert ledger.note_account("aaaa", unless_other=True) is True and ledger.account() == "aaaa"
    assert ledger.note_account("aaaa", unless_other=True) is True
    assert ledger.note_account("bbbb", unless_other=True) is False and ledger.account() == "aaaa"
    assert ledger.note_account("bbbb") is True and ledger.account() == "bbbb"
    assert ledger.note_account("aaaa", unless_other=True) is False and ledger.account() == "bbbb"


@pytest.mark.parametrize("created", ["2026-11-19T10:00:00Z", "2026-11-21T10:00:00Z"])
def test_a_record_created_at_another_time_is_another_call(ledger: Ledger, created: str) -> None:
    ledger.record_started("c1", "ua_priya", "talk")
    ledger.cache_record(record())
    with pytest.raises(CallIdTaken):
        ledger.cache_record(record(createdAt=created, status="in_progress"))
    assert ledger.get("c1").status == "completed"  # type: ignore[union-attr]
