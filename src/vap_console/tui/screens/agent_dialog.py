"""Create an agent from a template: asks for a name, copies the template's prompt and voice.

Before anything is sent, the template's ttsConfig is checked against the account's voice
catalogue (GET /v1/voices): a template made for another account, or one the server changed since,
may name a voice or a description its engine does not take, and the person is told which field
and why instead of meeting the server's 422.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.message import Message
from textual.validation import ValidationResult, Validator
from textual.widgets import Button, Input, Label, Static
from textual.worker import Worker

from vap_console.api.errors import InvalidRequest
from vap_console.api.idempotency import Submission
from vap_console.api.limits import agent_name_problem
from vap_console.api.models import Agent, AgentCreate, AgentTemplate
from vap_console.api.voices import TtsProblem, tts_problems
from vap_console.tui import untrusted
from vap_console.tui.screens.base import ForwardsWorkerFailures
from vap_console.tui.screens.dialog import Dialog, DialogBox
from vap_console.tui.services import Services, services_of
from vap_console.tui.widgets.banner import Banner
from vap_console.tui.widgets.field_error import FieldError


class AgentName(Validator):
    """The client's rule for an agent's name (api/limits.py), which the server checks too."""

    def validate(self, value: str) -> ValidationResult:
        problem = agent_name_problem(value)
        return self.failure(problem) if problem else self.success()


class CreateAgentScreen(ForwardsWorkerFailures, Dialog[Agent | None]):
    LABEL = "Create an agent"

    class VoiceMismatch(Message):
        def __init__(self, problems: list[TtsProblem]) -> None:
            super().__init__()
            self.problems = problems

    BINDINGS = [Binding("escape", "cancel", "Cancel", id="dialog.cancel", tooltip="Close without creating")]
    AUTO_FOCUS = "#agent-name"

    def __init__(self, template: AgentTemplate, services: Services | None = None) -> None:
        super().__init__()
        self._services = services
        self.template = template
        self._submission = Submission()

    @property
    def services(self) -> Services:
        return self._services if self._services is not None else services_of(self.app)

    def compose(self) -> ComposeResult:
        t = self.template
        with DialogBox(classes="dialog", id="create-agent"):
            yield Static(untrusted.content(f"Create an agent from “{t.name}”"), classes="dialog-title")
            yield Banner()
            yield Label("Agent name")
            yield Input(
                placeholder="e.g. Front desk",
                id="agent-name",
                select_on_focus=False,
                validators=[AgentName()],
            )
            yield FieldError(id="agent-name-error")
            voice = t.tts_config.voice or t.tts_config.description or "engine default"
            yield Static(
                untrusted.clean_text(Text.assemble(
                    ("Copied from the template: ", "dim"),
                    "system instruction, greeting and ttsConfig ",
                    (f"({t.tts_config.model or '?'} · {voice})", "dim"),
                    (f"; source=template, templateSlug={t.slug}", "dim"),
                )),
                classes="dialog-help",
            )
            yield FieldError(id="tts-error")
            with Horizontal(classes="dialog-buttons"):
                yield Button("Create", id="create", variant="primary")
                yield Button("Cancel", id="cancel")

    def validate_name(self) -> str | None:
        box = self.query_one("#agent-name", Input)
        result = box.validate(box.value)
        error = self.query_one("#agent-name-error", FieldError)
        if result is not None and not result.is_valid:
            error.show("name: " + "; ".join(result.failure_descriptions))
            return None
        error.show("")
        return box.value.strip()

    @on(Button.Pressed, "#create")
    @on(Input.Submitted, "#agent-name")
    def _submit(self) -> None:
        name = self.validate_name()
        if name is not None:
            self.query_one("#create", Button).disabled = True
            self.create(name)

    @work(exclusive=True, group="create", exit_on_error=False)
    async def create(self, name: str) -> None:
        body = AgentCreate.from_template(self.template, name)
        catalog = await self.services.call_api(lambda c: c.list_voices())
        problems = tts_problems(body.tts_config, catalog)
        if problems:
            self.post_message(self.VoiceMismatch(problems))
            return
        key = self._submission.key_for(body.model_dump_json(by_alias=True))
        agent = await self.services.call_api(
            lambda c: c.create_agent(body, idempotency_key=key)
        )
        index = self.services.local_index
        if index is not None:
            index.add("agent", agent.id)
        self.dismiss(agent)

    @on(VoiceMismatch)
    def _voice_mismatch(self, message: VoiceMismatch) -> None:
        self.query_one("#create", Button).disabled = False
        self.query_one("#tts-error", FieldError).show(
            "Nothing was sent: the template's voice does not fit this account's voices. "
            + "; ".join(str(p) for p in message.problems) + "."
        )

    def retry_create(self) -> None:
        self._submit()

    def retry_for(self, group: str) -> Callable[[], object] | None:
        return self.retry_create if group == "create" else None

    def api_failed(self, worker: Worker[Any], error: BaseException) -> bool:
        # The typed name stays; the banner says what went wrong and offers Retry.
        self.query_one("#create", Button).disabled = False
        if isinstance(error, InvalidRequest):
            name_errors = [d.message for d in error.details if d.field == "name"]
            if name_errors:
                self.query_one("#agent-name-error", FieldError).show("name: " + "; ".join(name_errors))
        return False

    @on(Button.Pressed, "#cancel")
    def action_cancel(self) -> None:
        self.dismiss(None)
