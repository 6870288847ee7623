"""`vap` tells names that look alike apart: a zero-width or bidi-control character in a name is a
visible escape in tables and piped lines, while --json keeps the very characters the API sent."""

from __future__ import annotations

from tests.scripting.conftest import Vap
from vap_console.sandbox.keys import SANDBOX_KEYS

LOOKALIKE = "sup\u200bport"  # a zero-width space inside
REVERSED = "invoice\u202efdp.exe"  # a right-to-left override


def rename_tools(vap: Vap) -> None:
    account = vap.app.state.sandbox.account(SANDBOX_KEYS[vap.key])
    tools = [tool for tool in account.tools.values() if not tool.is_default]
    for tool, name in zip(tools, ("support", LOOKALIKE, REVERSED), strict=False):
        tool.name = name


def test_tables_and_piped_lines_show_zero_width_and_bidi_characters_as_escapes(vap: Vap) -> None:
    rename_tools(vap)
    for terminal in (True, False):
        result = vap("tools", "list", terminal=terminal)
        assert result.code == 0, result.err
        assert "sup\\u200bport" in result.out and "invoice\\u202efdp.exe" in result.out
        assert "\u200b" not in result.out and "\u202e" not in result.out
        names = [line.split()[1] for line in result.out.splitlines()[1 if terminal else 0:]]
        assert "support" in names and "sup\\u200bport" in names


def test_json_keeps_the_zero_width_characters_the_api_sent(vap: Vap) -> None:
    rename_tools(vap)
    result = vap("tools", "list", "--json")
    assert result.code == 0, result.err
    assert result.json() == vap.api("GET", "/v1/tools")["items"]
    assert LOOKALIKE in result.out  # the character itself, not an escape of it
    assert LOOKALIKE.encode() in result.out.encode()
