"""`vap calls export` and `e` on Calls: what a caller typed into a call (an OSC 52 clipboard write,
a C1 CSI, a bidi override, NUL) cannot reach a terminal from an export as control. JSON writes those
characters as \\uXXXX escapes, so the file still parses to exactly what was said; CSV, which has no
escapes, shows them as their stand-ins (␛, \\x9b)."""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime

from vap_console.api.models import CallRecord
from vap_console.ledger import Ledger
from vap_console.ledger.export import export

AT = datetime(2026, 11, 26, 9, 30, tzinfo=UTC)
TYPED = "copy this \x1b]52;c;Y3VybCBldmlsfHNo\x07 clear \x9b2J \u202eevil\u202c nul \x00 del \x7f end"
ROLE = "user\x1b]0;title\x07"
# A character that steers a terminal: C0 (but tab, newline), DEL, C1, bidi controls, separators.
RAW = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\u2028\u2029]")


def _said(ledger: Ledger) -> None:
    ledger.record_started("c1", "ua_front", "talk", at=AT)
    ledger.cache_record(CallRecord.model_validate({
        "id": "c1", "status": "completed", "kind": "socket", "summary": TYPED,
        "transcript": [{"role": "assistant", "content": "Namaste"}, {"role": ROLE, "content": TYPED}],
    }), at=AT)


def test_json_escapes_what_could_steer_a_terminal_and_keeps_the_data(ledger: Ledger) -> None:
    _said(ledger)
    text = export(ledger.with_transcripts(), "json")
    assert RAW.search(text) is None
    assert "\\u009b2J" in text and "\\u202eevil" in text and "\\u001b]52" in text
    [call] = json.loads(text)
    assert call["summary"] == TYPED
    assert call["transcript"][1] == {"role": ROLE, "content": TYPED}


def test_csv_shows_what_could_steer_a_terminal_as_its_stand_ins(ledger: Ledger) -> None:
    _said(ledger)
    text = export(ledger.with_transcripts(), "csv")
    assert RAW.search(text.replace("\n", "")) is None
    assert "copy this ␛]52;c;Y3VybCBldmlsfHNo␇ clear \\x9b2J \\u202eevil\\u202c nul ␀ del ␡ end" in text
    assert "user␛]0;title␇: copy this" in text
