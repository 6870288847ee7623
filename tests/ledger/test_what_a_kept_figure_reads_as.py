"""What the ledger's figures read back as (ledger/figures.py): a tool call's line in the Calls detail
and `vap calls show`, whether it held (2xx, no error: shown plain, else red), and answer times or
tool calls a hand or another program wrote wrong, read as nothing measured rather than an error."""

from __future__ import annotations

import pytest

from vap_console.ledger.figures import ToolCallSeen, times_json, times_of, tools_of


@pytest.mark.parametrize("call, words", [
    (ToolCallSeen("book_appointment", 200, 84.4, None), "book_appointment → 200 in 84 ms"),
    (ToolCallSeen("crm", None, 3000.0, "timed out after 3000 ms"), "crm → no answer in 3000 ms: timed out after 3000 ms"),
    (ToolCallSeen("crm", 502, None, None), "crm → 502"),
    (ToolCallSeen("crm", 0, 1.6, "refused"), "crm → 0 in 2 ms: refused"),
])
def test_a_tool_call_is_said_in_one_line(call: ToolCallSeen, words: str) -> None:
    assert call.in_words() == words


@pytest.mark.parametrize("status, error, held", [
    (200, None, True), (299, None, True), (204, None, True),
    (199, None, False), (300, None, False), (500, None, False), (None, None, False), (200, "no JSON body", False),
])
def test_a_tool_call_held_only_with_a_2xx_and_no_error(status: int | None, error: str | None, held: bool) -> None:
    assert ToolCallSeen("t", status, 5.0, error).held is held


def test_an_answer_of_no_time_at_all_is_kept_and_one_below_it_refused() -> None:
    assert times_of(times_json([0, 0.04, 12.345])) == (0.0, 0.0, 12.3)
    with pytest.raises(ValueError, match="0 or more"):
        times_json([-0.1])


@pytest.mark.parametrize("text, times", [
    ("[1, true, -5, -0.5, 0, \"7\", null, 2.5, Infinity, NaN]", (1.0, 0.0, 2.5)),
    ('{"a": 1}', ()), ("[", ()), ("", ()), (None, ()), ("42", ()),
])
def test_answer_times_written_wrong_read_as_none_measured(text: str | None, times: tuple[float, ...]) -> None:
    assert times_of(text) == times


@pytest.mark.parametrize("text, calls", [
    (None, None), ("[", None), ('{"name": "x"}', None), ("[]", ()),
    ('[{"name": "", "status": true, "ms": "9", "error": 3}, 5]', (ToolCallSeen("?", None, None, None),)),
    ('[{"name": "t", "status": 200.0, "ms": 7, "error": "e"}]', (ToolCallSeen("t", 200, 7.0, "e"),)),
])
def test_tool_calls_written_wrong_read_as_what_can_be_told(text: str | None,
                                                           calls: tuple[ToolCallSeen, ...] | None) -> None:
    assert tools_of(text) == calls
