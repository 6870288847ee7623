"""What trying a tool found: the request, the answer, the outputs it gives, and the verdict.

The contract a tool's webhook must keep (issue 33): a 2xx within the tool's ``timeoutMs``, an
answer within the read cap, a JSON body where the tool has outputs, and every output's path
present in it. A tool with ``waitForResponse: false`` keeps it by being sent; its outputs can never
be read (the platform does not wait for the answer), which is a broken contract too.

Textual-free: `vap tools try` prints it, the console's Try dialog will draw it. Everything that
leaves here for a person or a file has the secret masked (``ToolRequest.mask``); cleaning control
characters is the printer's job (literal.clean, dump_json).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from vap_console.api.limits import TOOL_ANSWER
from vap_console.api.tool_call import OutputRead, ToolRequest, parse_json, read_outputs
from vap_console.api.tool_webhook import WebhookAnswer

if TYPE_CHECKING:
    # A model, or api/tool_view.py's record of one (`vap tools try` reads without pydantic).
    from vap_console.api.tool_view import AnyTool as Tool

# How much of a body is shown (a terminal, --json, JUnit): the read cap is for outputs, not eyes.
SHOWN_BODY = 16 * 1024


@dataclass(frozen=True)
class Check:
    what: str
    ok: bool
    detail: str = ""


@dataclass
class TryResult:
    tool: Tool
    request: ToolRequest
    answer: WebhookAnswer | None = None  # None: not sent (--dry-run)
    outputs: list[OutputRead] = field(default_factory=list)
    is_json: bool = False
    checks: list[Check] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return all(c.ok for c in self.checks)

    def body_text(self) -> tuple[str, bool]:
        """The answer's body as text to show (secret masked) and whether it was cut short."""
        if self.answer is None:
            return "", False
        text = self.answer.body.decode("utf-8", errors="replace")
        cut = len(text) > SHOWN_BODY or self.answer.over_cap
        return self.request.mask(text[:SHOWN_BODY]), cut

    def body_summary(self) -> str:
        """The body's size and what it was read as. One over the read cap was not read whole (not
        at all when its Content-Length said so), so it is not called JSON or not JSON either."""
        answer = self.answer
        assert answer is not None
        if answer.over_cap:
            cap = TOOL_ANSWER.high
            return f"{answer.size:,} bytes, not read as JSON, over the {cap:,}-byte read cap: not read whole"
        return f"{answer.size:,} bytes, {'JSON' if self.is_json else 'not JSON'}"

    def verdict(self) -> str:
        name = self.tool.name
        if self.answer is None:
            return f"{name}: not sent (--dry-run)"
        if self.ok:
            return f"{name}: the contract holds: {self._summary()}"
        failed = "; ".join(f"{c.what}: {c.detail}" if c.detail else c.what for c in self.checks if not c.ok)
        return self.request.mask(f"{name}: the contract does not hold: {failed}")

    def _summary(self) -> str:
        answer = self.answer
        assert answer is not None
        if not answer.waited:
            return "sent (waitForResponse is false: the answer is not waited for)"
        found = sum(o.found for o in self.outputs)
        outputs = f", {found} of {len(self.outputs)} output{'s' if len(self.outputs) != 1 else ''} found" \
            if self.outputs else ""
        return f"{answer.status} in {answer.ms:.0f} ms of {self.request.timeout_ms} ms{outputs}"

    def wire(self) -> dict[str, Any]:
        """Everything, as `--json` prints it (secret masked)."""
        mask = self.request.mask
        out: dict[str, Any] = {
            "tool": {"id": self.tool.id, "name": self.tool.name, "kind": self.tool.kind},
            "request": self.request.wire(), "sent": self.answer is not None and self.answer.sent,
            "answer": None,
            "outputs": [{"name": o.name, "path": o.path, "found": o.found, "value": o.value, "variable": o.name}
                        for o in self.outputs],
            "checks": [{"check": c.what, "ok": c.ok, "detail": mask(c.detail)} for c in self.checks],
            "ok": self.ok, "verdict": self.verdict(),
        }
        answer = self.answer
        if answer is not None:
            body, cut = self.body_text()
            out["answer"] = {
                "status": answer.status, "reason": answer.reason, "ms": round(answer.ms, 1),
                "timeoutMs": self.request.timeout_ms, "timedOut": answer.timed_out, "waited": answer.waited,
                "failure": mask(answer.failure) if answer.failure else None,
                "headers": [{"name": n, "value": mask(v)} for n, v in answer.headers],
                "body": body, "bodyBytes": answer.size, "bodyCut": cut, "overCap": answer.over_cap,
                "json": self.is_json,
            }
        return out


async def try_tool(tool: Tool, request: ToolRequest) -> TryResult:
    """Send one request (api/tool_webhook.py's rules) and judge what came back: the console's Try
    dialog. Never raises for the webhook's sake: a failure is in the result."""
    import asyncio

    from vap_console.api import tool_webhook

    # Made in a thread: an https:// client loads the CA bundle from disk, which must not hold up
    # the caller's loop (the console's UI runs on it).
    client = await asyncio.to_thread(tool_webhook.webhook_client, plain=tool_webhook.plain_only([request]))
    async with client:
        return judge(tool, request, await tool_webhook.send(request, client))


def judge(tool: Tool, request: ToolRequest, answer: WebhookAnswer | None) -> TryResult:
    """The outputs read from ``answer`` and each check of the contract (none for a dry run)."""
    result = TryResult(tool, request, answer)
    if answer is None:
        return result
    checks = result.checks
    outputs = tool.config.outputs
    if not answer.waited:
        checks.append(Check("sent", answer.sent and answer.failure is None, answer.failure or ""))
        if outputs:
            names = ", ".join(o.name for o in outputs)
            checks.append(Check("outputs read", False, "waitForResponse is false: the platform does not wait "
                                f"for the answer, so {names} is never filled"))
        return result
    if answer.failure is not None:
        checks.append(Check(f"answered within {request.timeout_ms} ms", False, answer.failure))
    if answer.status is not None:
        status = f"{answer.status} {answer.reason}".strip()
        if 300 <= answer.status < 400:
            status += f" (a redirect to {answer.location or 'nowhere said'}: not followed)"
        checks.append(Check("a 2xx status", 200 <= answer.status < 300, status))
        if answer.failure is None:
            checks.append(Check(f"answered within {request.timeout_ms} ms", True, f"{answer.ms:.0f} ms"))
    if answer.over_cap:
        checks.append(Check(f"an answer of at most {TOOL_ANSWER.high // 1024 // 1024} MiB", False,
                            f"{answer.size:,} bytes or more: not read whole"))
    if answer.status is None or answer.over_cap:
        result.outputs = read_outputs(tool, None, False)
        return result
    result.is_json, document = parse_json(answer.body)
    result.outputs = read_outputs(tool, document, result.is_json)
    if outputs:
        kind = answer.content_type or "no Content-Type"
        checks.append(Check("a JSON body", result.is_json, kind if result.is_json else f"not JSON ({kind})"))
        for read in result.outputs:
            checks.append(Check(f"output {read.name} ({read.path or 'the whole answer'})", read.found,
                                "found" if read.found else "missing"))
    return result
