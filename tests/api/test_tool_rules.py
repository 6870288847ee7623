"""The client's tool rules (api/tool_rules.py) mean the whole string, as the spec's pattern does."""

from __future__ import annotations

import pytest

from vap_console.api.tool_rules import NAME_RE, NAME_SHAPE, URL_RE, check_tool_document, name_problems

TOOL = {"description": "d", "kind": "before_call", "config": {"url": "https://x.example"}}


@pytest.mark.parametrize("name", ["lookup\n", "lookup\r\n", " lookup", "look\nup"])
def test_a_name_with_a_newline_or_a_blank_is_refused(name: str) -> None:
    # re.match with a $ also matches before a final newline: "lookup\n" passed (issue 18).
    assert NAME_SHAPE in name_problems(name)
    tool, problems = check_tool_document({**TOOL, "name": name})
    assert tool is None and NAME_SHAPE in problems["name"]


def test_a_plain_name_passes() -> None:
    assert name_problems("lookup") == [] and NAME_RE.match("lookup_2")
    tool, problems = check_tool_document({**TOOL, "name": "lookup"})
    assert problems == {} and tool is not None and tool.name == "lookup"


def test_a_url_with_a_final_newline_is_refused() -> None:
    assert URL_RE.match("https://x.example") and not URL_RE.match("https://x.example\n")
