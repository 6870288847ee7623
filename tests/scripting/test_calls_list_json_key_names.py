"""`vap calls list --json` names each call's keys as the ledger's JSON does (issue 32 point 7):
scripts read them by name."""

from __future__ import annotations

from tests.ledger.test_the_json_key_names_scripts_read import LISTED
from tests.scripting.conftest import Vap


def test_vap_calls_list_json_names_every_key(vap: Vap) -> None:
    started = vap("agents", "webcall", next(a["handle"] for a in vap.api("GET", "/v1/agents")["items"]
                                            if a.get("deployed")), "--yes", "--json").json()
    # --offline: the ledger as it is, before the call was read again (a plain list reads it first).
    [listed] = vap("calls", "list", "--offline", "--json").json()
    assert set(listed) == set(LISTED)
    assert (listed["callId"], listed["kind"], listed["hasRecording"]) == (started["callId"], "web", False)
    assert listed["status"] == "not read yet" and listed["readError"] is None
    [read] = vap("calls", "list", "--json").json()
    assert set(read) == set(LISTED) and read["callId"] == started["callId"]
    assert read["status"] != "not read yet" and read["readAt"] is not None
