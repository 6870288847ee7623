"""The tool webhook sender's own guards, below `vap tools try` (tests/scripting/test_tools_try.py
covers what a person sees)."""

from __future__ import annotations

from tests.webhook import Webhook
from vap_console.api.models import Tool
from vap_console.api.tool_call import Sources, build_request
from vap_console.api.tool_webhook import plain_only, send, webhook_client


def _request(url: str):
    tool = Tool.model_validate({"id": "t", "name": "t", "description": "d", "kind": "before_call",
                                "config": {"url": url, "timeoutMs": 5000}})
    return build_request(tool, Sources())


async def test_a_client_made_for_plain_http_never_sends_https_unchecked() -> None:
    with Webhook() as hook:
        port = hook.url.rsplit(":", 1)[1]
        secure = _request(f"https://127.0.0.1:{port}/ok")
        assert not plain_only([_request(hook.url + "/ok"), secure])
        async with webhook_client(plain=True) as client:
            answer = await send(secure, client)
            fine = await send(_request(hook.url + "/ok"), client)
        assert answer.status is None and "http:// only" in (answer.failure or "")
        assert fine.status == 200 and [a.path for a in hook.arrived] == ["/ok"]
