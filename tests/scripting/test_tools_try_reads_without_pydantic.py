"""`vap tools try` reads the tools and variables pages without pydantic (api/tool_view.py): importing
it and building the models was ~200 ms of each try, more than all of its requests. The real entry
point runs in a process of its own against a served sandbox and a webhook on loopback, and lists
what it loaded; a page only the models can read is still read by them. The time itself is measured
by `python -m bench tools`, not here.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests.scripting.conftest import Vap
from tests.webhook import Webhook, tool_document

REPORT = ("import json, sys\nfrom vap_console.cli import main\nrc = main(sys.argv[1:])\nsys.stdout.flush()\n"
          "print('\\n' + json.dumps(sorted(sys.modules)), file=sys.stderr)\nsys.exit(rc)\n")
SECRET = "whsec-loads-nothing-0001"


@pytest.fixture
def hook() -> Iterator[Webhook]:
    with Webhook() as server:
        yield server


@pytest.mark.parametrize("dry_run", [False, True], ids=["sent", "dry run"])
def test_trying_a_tool_loads_no_pydantic(live_sandbox, hook: Webhook, tmp_path: Path, dry_run: bool) -> None:
    key = "sk_sandbox_agent"
    document = tool_document("lookup", hook.url + "/ok", params=[{"name": "phone", "value": "{phone_number}"}],
                             auth={"type": "bearer", "token": "stored"},
                             outputs=[{"name": "caller_name", "path": "data.name"}])
    httpx.post(live_sandbox.base_url + "/v1/tools", json=document,
               headers={"Authorization": f"Bearer {key}"}).raise_for_status()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("VAP_", "RUMIK_"))}
    env.update(XDG_CONFIG_HOME=str(tmp_path), XDG_DATA_HOME=str(tmp_path / "data"), VAP_API_KEY=key,
               VAP_BASE_URL=live_sandbox.base_url, HOOK_SECRET=SECRET)
    args = ["tools", "try", "lookup", "--secret-env", "HOOK_SECRET", "--json", *(["--dry-run"] if dry_run else [])]
    done = subprocess.run([sys.executable, "-c", REPORT, *args], capture_output=True, text=True, timeout=60, env=env)
    assert done.returncode == 0, done.stderr
    loaded = set(json.loads(done.stderr.strip().splitlines()[-1]))
    assert not {m for m in loaded if m.startswith(("pydantic", "vap_console.api.models."))}
    # And it did its work: the request built from the tool and the account, the answer judged.
    shown = json.loads(done.stdout)
    assert shown["request"]["url"] == hook.url + "/ok"
    assert shown["request"]["params"] == [{"name": "phone", "value": "+12025550100"}]
    assert shown["sent"] is not dry_run
    assert len(hook.arrived) == (0 if dry_run else 1)
    if not dry_run:
        assert shown["ok"] and shown["outputs"][0]["value"] == "Asha Rao"


class _TimeoutAsText(httpx.AsyncBaseTransport):
    """The tools page with every timeoutMs sent as text: the models take "4000" as 4000, the cheap
    path does not read it (it coerces nothing)."""

    def __init__(self, inner: httpx.AsyncBaseTransport) -> None:
        self.inner = inner

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        answer = await self.inner.handle_async_request(request)
        if request.method != "GET" or request.url.path != "/v1/tools":
            return answer
        page = json.loads(await answer.aread())
        for tool in page["items"]:
            tool["config"]["timeoutMs"] = str(tool["config"].get("timeoutMs") or 4000)
        return httpx.Response(answer.status_code, json=page)


def test_a_page_only_the_models_can_read_is_read_by_them(vap: Vap, hook: Webhook) -> None:
    path = vap.tmp / "lookup.json"
    path.write_text(json.dumps(tool_document("lookup", hook.url + "/ok", timeoutMs=4000)))
    assert vap("tools", "create", "--file", str(path)).code == 0
    vap.wrap = _TimeoutAsText
    result = vap("tools", "try", "lookup", "--json")
    assert result.code == 0, result.err
    assert result.json()["request"]["timeoutMs"] == 4000
    assert len(hook.arrived) == 1
