"""Try a tool (`x` on Tools): its webhook called as the platform would call it, and the answer
checked against the tool — the dialog face of `vap tools try` (docs/tools.md).

The request is built by api/tool_call.py (the placeholder rule, the auth header), sent by
api/tool_webhook.py (timeoutMs, no redirects, a read cap, never the platform's key) and judged by
api/tool_result.py: nothing of that is written again here. The dialog only asks for what the
platform would know and the console does not: the model's arguments, a value for each placeholder
nothing fills, and the secret (write-only on the platform: typed here, masked everywhere shown,
kept nowhere but in the field).

Everything the webhook answers is the webhook's text: shown literally (tui/untrusted.py).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.widgets import Button, Input, Static

from vap_console.api.models import Tool
from vap_console.api.tool_call import (
    BadHeader,
    ToolRequest,
    UnfilledPlaceholders,
    auth_kind,
    build_request,
    left_open,
    llm_param_names,
    sources_for,
)
from vap_console.api.tool_result import TryResult, try_tool
from vap_console.tui import untrusted
from vap_console.tui.screens.base import ForwardsWorkerFailures
from vap_console.tui.screens.dialog import Dialog, DialogBox
from vap_console.tui.services import Services, services_of
from vap_console.tui.widgets.field_error import FieldError

# Cells of the bar that draws the answer's time against the tool's timeout.
BAR = 24
# Lines of the answer's body shown in the dialog (the copy has what SHOWN_BODY keeps).
BODY_LINES = 12


def time_bar(ms: float, timeout_ms: int, timed_out: bool) -> Text:
    """``██████░░░░  84 ms of 3000 ms``: green well inside, yellow near the end, red at it."""
    share = 1.0 if timed_out else min(ms / timeout_ms, 1.0) if timeout_ms else 1.0
    full = max(1, round(share * BAR)) if ms else 0
    style = "red" if timed_out or share >= 1 else "yellow" if share >= 0.8 else "green"
    line = Text()
    line.append("█" * full, style=style)
    line.append("░" * (BAR - full), style="dim")
    line.append(f"  {ms:,.0f} ms of {timeout_ms:,} ms (timeoutMs)")
    return line


def request_text(request: ToolRequest) -> Text:
    """The request as it will go: method and URL with its query, headers (the secret masked), body."""
    from vap_console.api.tool_webhook import full_url

    out = Text("Request  ", style="bold")
    out.append_text(untrusted.text(f"{request.method} {full_url(request)}"))
    for name, value in request.shown_headers():
        out.append("\n")
        out.append_text(untrusted.text(f"{name}: {value}"))
    if request.body:
        out.append("\n")
        out.append_text(untrusted.text(request.body))
    out.append(f"\ntimeout {request.timeout_ms:,} ms", style="dim")
    if not request.wait_for_response:
        out.append(" · waitForResponse false: sent, not waited for", style="dim")
    if request.secret_missing:
        out.append(f" · {request.auth_kind}: no secret typed, sent without auth", style="yellow")
    elif request.auth_kind != "none":
        out.append(f" · {request.auth_kind}: secret given, shown masked", style="dim")
    return out


def result_text(result: TryResult, *, body_lines: int = BODY_LINES) -> Text:
    """Status and time against the timeout, the verdict, the body, the outputs → variables."""
    answer = result.answer
    assert answer is not None
    mask = result.request.mask
    out = Text("Answer   ", style="bold")
    if answer.status is not None:
        out.append_text(untrusted.text(f"{answer.status} {answer.reason}".strip(), multiline=False,
                                       style="green" if 200 <= answer.status < 300 else "red"))
    elif not answer.waited and answer.failure is None:
        out.append("sent; not waited for (waitForResponse false)")
    else:
        out.append_text(untrusted.text(mask(f"no answer: {answer.failure or 'none'}"), style="red"))
    out.append("\n         ")
    out.append_text(time_bar(answer.ms, result.request.timeout_ms, answer.timed_out))
    out.append("\n")
    out.append_text(untrusted.text(("✔ " if result.ok else "✘ ") + result.verdict(),
                                   style="green" if result.ok else "red"))
    body, cut = result.body_text()
    if answer.status is not None:
        out.append(f"\nBody     {result.body_summary()}", style="bold")
        lines = body.splitlines()
        if lines:
            out.append("\n")
            out.append_text(untrusted.text("\n".join(lines[:body_lines])))
        if lines and (cut or len(lines) > body_lines):
            out.append("\n… (cut for showing; c copies up to 16 KiB)", style="dim")
    if result.outputs:
        out.append("\nOutputs → variables", style="bold")
        for read in result.outputs:
            out.append("\n")
            out.append("✔ " if read.found else "✘ ", style="green" if read.found else "red")
            value = mask(read.value) if read.value is not None else "missing"
            out.append_text(untrusted.text(f"{read.name} ← {read.path or '(the whole answer)'}  = {value}",
                                           multiline=False))
    return out


class ToolTryDialog(ForwardsWorkerFailures, Dialog[None]):
    """``variables``: the account's variables and their default values (the rule's second source)."""

    LABEL = "Try a tool"
    DEFAULT_CSS = """
    ToolTryDialog Input { border-title-color: $text-muted; }
    ToolTryDialog #try-request, ToolTryDialog #try-result { margin-top: 1; }
    ToolTryDialog.-short #try-request, ToolTryDialog.-short #try-result { margin-top: 0; }
    """
    BINDINGS = [
        Binding("escape", "close", "Close", id="tooltry.close", tooltip="Close; what was typed is not kept"),
        Binding("ctrl+s", "send", "Send", id="tooltry.send",
                tooltip="Send the request to the tool's webhook (not to the platform)"),
        Binding("c", "copy_result", "Copy", id="tooltry.copy", tooltip="Copy the request and its answer as text"),
    ]

    def __init__(self, tool: Tool, variables: Mapping[str, str], services: Services | None = None) -> None:
        super().__init__()
        self.tool = tool
        self.variables = dict(variables)
        self._services = services
        self.arguments = llm_param_names(tool)
        self.open_tokens = left_open(tool, self.variables)
        self.result: TryResult | None = None

    @property
    def services(self) -> Services:
        return self._services if self._services is not None else services_of(self.app)

    def compose(self) -> ComposeResult:
        # Fields are numbered, never named after the tool's own names (they come from the server).
        with DialogBox(classes="dialog wide", id="tool-try"):
            yield Static(untrusted.content(f"Try tool {self.tool.name}"), classes="dialog-title")
            yield Static("Sends the request below to the tool's own webhook, as the platform would during a "
                         "call: variables at their defaults, stand-ins for the call's context.",
                         classes="dialog-help")
            for n, name in enumerate(self.arguments):
                box = Input(id=f"try-arg-{n}", placeholder="the value the model would give", select_on_focus=False)
                box.border_title = untrusted.content(f"{name} (argument)", multiline=False)
                yield box
            for n, token in enumerate(self.open_tokens):
                box = Input(id=f"try-open-{n}", placeholder="nothing on the account fills it: type it",
                            select_on_focus=False)
                box.border_title = untrusted.content(f"{{{token}}} (placeholder)", multiline=False)
                yield box
            kind = auth_kind(self.tool)
            if kind != "none":
                box = Input(id="try-secret", password=True, select_on_focus=False,
                            placeholder="optional: empty sends without auth")
                box.border_title = untrusted.content(f"{kind} secret (write-only on the platform)", multiline=False)
                yield box
            yield FieldError(id="try-problem")
            yield Static(id="try-request")
            yield Static(id="try-result")
            with Horizontal(classes="dialog-buttons"):
                yield Button("Send (ctrl+s)", id="try-send", variant="primary")
                yield Button("Copy (c)", id="try-copy", disabled=True)
                yield Button("Close", id="try-close")

    def on_mount(self) -> None:
        self._preview()
        first = self.query(Input)
        (first.first() if first else self.query_one("#try-send", Button)).focus()

    # --- the request ---

    def _values(self, prefix: str, names: list[str]) -> dict[str, str]:
        """What was typed in the numbered fields, by name; an empty field gives nothing."""
        out = {}
        for n, name in enumerate(names):
            value = self.query_one(f"#{prefix}-{n}", Input).value
            if value:
                out[name] = value
        return out

    def build(self) -> ToolRequest:
        """The request as the fields make it; UnfilledPlaceholders, BadHeader, ValueError when it
        cannot be made."""
        # A value typed for an open placeholder stands where an argument would.
        arguments = self._values("try-arg", self.arguments)
        typed = self._values("try-open", self.open_tokens)
        secret = self.query_one("#try-secret", Input).value if self.query("#try-secret") else ""
        sources = sources_for(self.tool, arguments, {**self.variables, **typed})
        return build_request(self.tool, sources, secret or None)

    def _preview(self) -> ToolRequest | None:
        """Show the request as it will go, or what keeps it from going; the request, or None."""
        problem = self.query_one("#try-problem", FieldError)
        try:
            request = self.build()
        except UnfilledPlaceholders as exc:
            names = ", ".join(f"{{{token}}} ({', '.join(where)})" for token, where in exc.where.items())
            problem.show(f"Not sent: nothing fills {names}. Type a value for it above.")
            self.query_one("#try-request", Static).update("")
            return None
        except (BadHeader, ValueError) as exc:
            problem.show(f"Not sent: {exc}.")
            self.query_one("#try-request", Static).update("")
            return None
        problem.show("")
        self.query_one("#try-request", Static).update(request_text(request))
        return request

    @on(Input.Changed)
    def _typed(self) -> None:
        self._preview()

    # --- sending ---

    @on(Input.Submitted)
    @on(Button.Pressed, "#try-send")
    def action_send(self) -> None:
        request = self._preview()
        if request is None:
            first = next((box for box in self.query(Input) if not box.value and box.id != "try-secret"), None)
            if first is not None:
                first.focus()
            return
        if any(w.group == "try" and not w.is_finished for w in self.workers):
            return  # one try at a time: a second press does not send it twice
        self.query_one("#try-send", Button).disabled = True
        self.query_one("#try-result", Static).update(untrusted.text(
            f"Sending… (the tool's timeout: {request.timeout_ms:,} ms)", style="dim"))
        self.send(request)

    @work(exclusive=True, group="try", exit_on_error=False)
    async def send(self, request: ToolRequest) -> None:
        try:
            result = await try_tool(self.tool, request)
        finally:
            self.query_one("#try-send", Button).disabled = False
        self.result = result
        self.query_one("#try-result", Static).update(result_text(result))
        self.query_one("#try-copy", Button).disabled = False
        # The answer is what the person came for: in view, and `c` free to copy it.
        self.query_one("#try-copy", Button).focus()
        self.call_after_refresh(self.query_one(DialogBox).scroll_to_widget, self.query_one("#try-result"),
                                animate=False, top=True)

    def retry_for(self, group: str) -> Callable[[], object] | None:
        return self.action_send if group == "try" else None

    # --- copying, closing ---

    def summary(self) -> str:
        """The request and its answer as plain text (the secret masked, control characters shown)."""
        if self.result is None:
            return ""
        return "\n".join([f"Tool {self.tool.name}", request_text(self.result.request).plain,
                          result_text(self.result, body_lines=10**6).plain])

    @on(Button.Pressed, "#try-copy")
    def action_copy_result(self) -> None:
        if self.result is None:
            self.notify("Nothing to copy yet: send the request first.", timeout=3)
            return
        self.app.copy_to_clipboard(self.summary())
        self.notify("The try's request and answer copied to the clipboard.", timeout=3)

    @on(Button.Pressed, "#try-close")
    def action_close(self) -> None:
        self.dismiss(None)
