"""The seed's tools use only placeholders the tool form knows: variables, llmParams and the
call-context params the service documents ({call_id}, {agent_id}, {phone_number})."""

from __future__ import annotations

from vap_console.sandbox.clock import VirtualClock
from vap_console.sandbox.keys import KEYS
from vap_console.sandbox.state import SandboxState
from vap_console.tui.placeholders import CONTEXT, tokens, unknown_tokens


def test_seed_tools_use_known_placeholders_and_a_context_param() -> None:
    account = SandboxState(VirtualClock()).account(KEYS[0])
    variables = set(account.variables)
    used: set[str] = set()
    for tool in account.tools.values():
        config = tool.config
        values = [config.get("url", ""), config.get("body", ""),
                  *(p["value"] for p in config.get("params", [])), *(h["value"] for h in config.get("headers", []))]
        params = {p["name"] for p in config.get("llmParams", []) if isinstance(p, dict) and "name" in p}
        assert unknown_tokens(values, variables | params) == [], tool.name
        used.update(t for v in values for t in tokens(v))
    assert "phone_number" in used and used & CONTEXT


def test_the_form_warns_of_exactly_the_tokens_a_try_would_leave_open() -> None:
    # One rule: what the form marks unknown is what `vap tools try` refuses to send unfilled.
    import pytest

    from vap_console.api.models import Tool
    from vap_console.api.tool_call import Sources, UnfilledPlaceholders, build_request

    body = '{"a": "{city}", "b": "{call_id}", "c": "{data.name}", "d": "{Nope_1}", "e": {"f": 1}, "g": "{ x }"}'
    tool = Tool.model_validate({"id": "t", "name": "t", "description": "d", "kind": "before_call",
                                "config": {"url": "https://h.example/{slot}", "body": body}})
    known = {"city"}
    with pytest.raises(UnfilledPlaceholders) as caught:
        build_request(tool, Sources(variables=dict.fromkeys(known, "v"), context=dict.fromkeys(CONTEXT, "c")))
    assert list(caught.value.where) == unknown_tokens([tool.config.url or "", body], known)
