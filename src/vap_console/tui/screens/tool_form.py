"""The create-tool form: every ToolConfig field, checked against spec 2.4 before anything is sent.

Errors are shown under the field they concern — ours on submit, the server's 422 details
(``body.config.url`` and so on) after it. Nothing typed is cleared by any error.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from functools import partial
from typing import Any

from rich.text import Text
from textual import events, on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.validation import Function, Length, Regex
from textual.widget import Widget
from textual.widgets import Button, Checkbox, Input, Label, Select, Static, TextArea
from textual.worker import Worker

from vap_console.api import errors
from vap_console.api.idempotency import Submission
from vap_console.api.models import (
    TOOL_DESCRIPTION_MAX,
    TOOL_NAME_MAX,
    TOOL_NAME_PATTERN,
    Tool,
    ToolCreate,
    ToolKind,
)
from vap_console.api.tool_rules import (
    AUTH_TYPES,
    DESCRIPTION_RULE,
    METHODS,
    NAME_REQUIRED,
    NAME_SHAPE,
    NAME_TOO_LONG,
    URL_RE,
    URL_RULE,
    timeout_ms,
)
from vap_console.tui import untrusted
from vap_console.tui.placeholders import highlight, unknown_tokens
from vap_console.tui.screens.base import ForwardsWorkerFailures
from vap_console.tui.screens.dialog import Confirm, Dialog, confirm_then
from vap_console.tui.screens.tool_form_fields import (
    FIELDS,
    Parsed,
    TimeoutText,
    eid,
    field_for_loc,
    param_names,
    path_of,
    read_tool,
    short_label,
    wid,
)
from vap_console.tui.services import Services, services_of
from vap_console.tui.widgets.banner import Banner
from vap_console.tui.widgets.field_error import FieldError

TO_FIX = "fixing before the tool can be created."


class ToolFormScreen(ForwardsWorkerFailures, Dialog[Tool | None]):
    LABEL = "New tool"
    BINDINGS = [
        Binding("ctrl+s", "submit", "Create", id="toolform.submit", tooltip="Check the form and create the tool"),
        Binding("escape", "cancel", "Cancel", id="toolform.cancel", tooltip="Close without creating"),
    ]
    AUTO_FOCUS = "#f-name"

    def __init__(self, services: Services | None = None) -> None:
        super().__init__()
        self._services = services

    @property
    def services(self) -> Services:
        return self._services if self._services is not None else services_of(self.app)

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog wide", id="tool-form"):
            yield Static("New tool", classes="dialog-title")
            yield Banner()
            with VerticalScroll(id="tool-form-fields"):
                with Horizontal(classes="field-row"):
                    yield from self._field("name", Input(
                        placeholder="lookup_order", id=wid("name"), select_on_focus=False,
                        validators=[
                            Length(minimum=1, failure_description=NAME_REQUIRED),
                            Length(maximum=TOOL_NAME_MAX, failure_description=NAME_TOO_LONG),
                            Regex(TOOL_NAME_PATTERN, failure_description=NAME_SHAPE),
                        ]), width=2)
                    yield from self._field("kind", Select(
                        [(k, k) for k in ToolKind.ALL], value=ToolKind.BEFORE_CALL,
                        allow_blank=False, id=wid("kind")))
                    yield from self._field("config.method", Select(
                        [(m, m) for m in METHODS], value="GET", allow_blank=False, id=wid("config.method")))
                with Horizontal(classes="field-row"):
                    yield from self._field("description", Input(
                        placeholder="What the tool does; for during_call, when the model should call it",
                        id=wid("description"),
                        validators=[Length(minimum=1, maximum=TOOL_DESCRIPTION_MAX,
                                           failure_description=DESCRIPTION_RULE)]))
                with Horizontal(classes="field-row"):
                    yield from self._field("config.url", Input(
                        placeholder="https://api.example.com/orders/{order_id}", id=wid("config.url"),
                        validators=[Function(lambda v: bool(URL_RE.match(v.strip())), URL_RULE)]), width=2)
                    yield from self._field("config.timeoutMs", Input(
                        placeholder="10000 (ms) or 12.5s", id=wid("config.timeoutMs"),
                        validators=[TimeoutText()]))
                    yield from self._field("config.waitForResponse", Checkbox(
                        FIELDS["config.waitForResponse"], value=True, id=wid("config.waitForResponse")))
                with Horizontal(classes="field-row"):
                    yield from self._field("config.params", TextArea(id=wid("config.params"), classes="short"))
                    yield from self._field("config.headers", TextArea(id=wid("config.headers"), classes="short"))
                with Horizontal(classes="field-row"):
                    yield from self._field("config.body", TextArea(id=wid("config.body"), classes="short"))
                    yield from self._field("config.llmParams", TextArea(id=wid("config.llmParams"), classes="short"))
                with Horizontal(classes="field-row"):
                    yield from self._field("config.auth.type", Select(
                        [(a, a) for a in AUTH_TYPES], value="none", allow_blank=False,
                        id=wid("config.auth.type")))
                    yield from self._field("config.auth.headerName", Input(
                        placeholder="X-API-Key", id=wid("config.auth.headerName")))
                    yield from self._field("config.auth.username", Input(id=wid("config.auth.username")))
                with Horizontal(classes="field-row"):
                    yield from self._field("config.auth.token", Input(
                        password=True, id=wid("config.auth.token"), placeholder="write-only, never shown again"))
                    yield from self._field("config.auth.password", Input(
                        password=True, id=wid("config.auth.password"), placeholder="write-only"))
                with Horizontal(classes="field-row"):
                    yield from self._field("config.outputs", TextArea(id=wid("config.outputs"), classes="short"))
                    with Vertical(classes="field"):
                        yield Static(id="placeholders")
            yield Static(id="more-below")
            with Horizontal(classes="dialog-buttons"):
                yield Button("Create (ctrl+s)", id="create", variant="primary")
                yield Button("Cancel", id="cancel")

    def _field(self, path: str, widget: Widget, width: int = 1) -> ComposeResult:
        """One cell of the form: the field (titled on its border, or labelled) and its error line."""
        # A class, not an inline width: console.tcss makes every cell equal on a narrow terminal.
        with Vertical(classes="field double" if width == 2 else "field"):
            if isinstance(widget, (Input, TextArea)):
                widget.border_title = FIELDS[path]
            elif isinstance(widget, Select):
                yield Label(FIELDS[path], classes="field-label")
            yield widget
            yield FieldError(id=eid(path))

    def on_mount(self) -> None:
        self._left: set[str] = set()  # fields the person has typed in and left: checked as typed
        self._confirmed: ToolCreate | None = None  # a body sent despite unknown placeholders
        self._submission = Submission()
        # What the form held when it opened: anything else is typed work a close must not lose unasked.
        self._pristine = self.form_values()
        self.known_variables: set[str] = set(self.services.names.variables)
        self._update_placeholders()
        self.watch(self.query_one("#tool-form-fields", VerticalScroll), "scroll_y",
                   lambda _: self._say_what_is_below(), init=False)
        self.call_after_refresh(self._say_what_is_below)
        if not self.known_variables:
            self.load_variables()

    @work(exclusive=True, group="variables", exit_on_error=False)
    async def load_variables(self) -> None:
        try:
            page = await self.services.call_api(lambda c: c.list_variables())
        except errors.ApiError:
            return  # only the unknown-placeholder hints suffer; the form works without them
        self.known_variables = {v.name for v in page.items}
        self._update_placeholders()

    # --- reading the form ---

    def value(self, path: str) -> Any:
        widget = self.query_one(f"#{wid(path)}")
        if isinstance(widget, TextArea):
            return widget.text
        if isinstance(widget, Checkbox):
            return widget.value
        if isinstance(widget, Select):
            return widget.value
        assert isinstance(widget, Input)
        return widget.value

    def form_values(self) -> tuple[Any, ...]:
        return tuple(self.value(path) for path in FIELDS)

    def is_dirty(self) -> bool:
        """Whether closing now would lose something typed (the app asks before quitting too)."""
        return self.is_mounted and self.form_values() != self._pristine

    def llm_param_names(self) -> list[str]:
        return param_names(self.value("config.llmParams"))

    def templated_values(self) -> list[str]:
        return [self.value("config.url"), self.value("config.params"), self.value("config.headers"),
                self.value("config.body")]

    def parse(self) -> Parsed:
        """The body the form describes, or each field's problems: the inputs' own validators
        (those shown as typed), then read_tool's checks of the rest."""
        errs: dict[str, list[str]] = {}
        for path in ("name", "description", "config.timeoutMs", "config.url"):
            box = self.query_one(f"#{wid(path)}", Input)
            if path == "config.timeoutMs" and not box.value.strip():
                continue
            result = box.validate(box.value)
            if result is not None and not result.is_valid:
                for d in dict.fromkeys(result.failure_descriptions):
                    errs.setdefault(path, []).append(d)
        return read_tool(self.value, errs)

    # --- showing errors ---

    def show_errors(self, errs: dict[str, list[str]], paths: Iterable[str] = FIELDS, *, jump: bool = True) -> None:
        """Show each field's messages (clear the fields that are right); ``jump`` focuses the first."""
        for path in paths:
            messages = errs.get(path, [])
            widget = self.query_one(f"#{eid(path)}", FieldError)
            widget.show(f"{short_label(path)}: " + "; ".join(messages) if messages else "")
            self.query_one(f"#{wid(path)}").set_class(bool(messages), "-invalid-field")
        self.call_after_refresh(self._say_what_is_below)  # error lines move the rows down
        first = next((p for p in FIELDS if p in errs), None) if jump else None
        if first is not None:
            target = self.query_one(f"#{wid(first)}")
            target.focus(scroll_visible=False)
            # The field's cell holds its error line too; scroll once the error has its height.
            cell = target.parent if isinstance(target.parent, Widget) else target
            scroller = self.query_one("#tool-form-fields", VerticalScroll)
            self.call_after_refresh(scroller.scroll_to_widget, cell, animate=False)

    def _count_what_to_fix(self, errs: dict[str, list[str]]) -> None:
        """The banner says how many fields still need fixing, and goes once none does."""
        count = sum(1 for messages in errs.values() if messages)  # fields, not messages: a name
        if count:                                                  # can break two rules at once
            self.query_one(Banner).show(
                f"{count} {'field needs' if count == 1 else 'fields need'} {TO_FIX}", info=True)
        else:
            self.query_one(Banner).clear()

    def _known_tokens(self) -> set[str]:
        return set(getattr(self, "known_variables", set())) | set(self.llm_param_names())

    def _update_placeholders(self) -> None:
        known = self._known_tokens()
        values = self.templated_values()
        unknown = unknown_tokens(values, known)
        out = Text()
        for label, value in zip(("url", "params", "headers", "body"), values):
            if "{" in value:
                out.append(f"{label}: ", style="dim")
                out.append_text(highlight(value.replace("\n", " ⏎ "), known))
                out.append("\n")
        if unknown:
            out.append("⚠ unknown: " + ", ".join("{" + t + "}" for t in unknown), style="yellow")
            out.append(" — neither an llmParam nor a variable; only a context param could fill it.", style="yellow")
        elif not out:
            out.append("Use {name} in the URL, params, headers or body: an llmParam or a variable fills it.",
                       style="dim")
        self.query_one("#placeholders", Static).update(untrusted.clean_text(out))  # typed text

    @on(Input.Changed)
    @on(TextArea.Changed)
    def _changed(self) -> None:
        if not self.is_mounted:
            return
        self._update_placeholders()
        self._show_timeout_in_ms()
        # A field already marked, or left once, is checked again as it is typed: its message goes
        # the moment it is right, and changes as it changes.
        shown = {path for path in FIELDS if self.query_one(f"#{eid(path)}", FieldError).message}
        errs = self.parse().errors
        self.show_errors(errs, shown | self._left, jump=False)
        # "3 fields need fixing" went on saying 3 after they were put right: it follows them.
        if self.query_one(Banner).message.endswith(TO_FIX):
            self._count_what_to_fix(errs)

    @on(events.DescendantBlur)
    def _left_a_field(self, event: events.DescendantBlur) -> None:
        path = path_of(event.widget.id or "")
        if path is not None and self.value(path) != self._pristine[list(FIELDS).index(path)]:
            self._left.add(path)
            self.show_errors(self.parse().errors, [path], jump=False)

    def _show_timeout_in_ms(self) -> None:
        box = self.query_one(f"#{wid('config.timeoutMs')}", Input)
        try:
            ms = timeout_ms(box.value)
        except ValueError:
            box.border_subtitle = None
            return
        # A value in seconds is read as milliseconds: say so where it was typed.
        box.border_subtitle = f"= {ms:,} ms" if box.value.strip().lower().endswith("s") and not \
            box.value.strip().lower().endswith("ms") else None

    def on_resize(self) -> None:
        self.call_after_refresh(self._say_what_is_below)

    def _say_what_is_below(self) -> None:
        scroller = self.query_one("#tool-form-fields", VerticalScroll)
        # Places in the form, not on screen: right after a scroll the screen's map is not redrawn
        # yet, and on a busy machine "more below" went on naming rows already in view.
        bottom = scroller.scroll_y + scroller.scrollable_content_region.height
        names = []
        for row in scroller.query(".field-row"):
            if row.virtual_region.y < bottom:  # in view, at least in part
                continue
            first = next((path_of(w.id or "") for w in row.query("*") if path_of(w.id or "")), None)
            if first is not None:
                names.append(short_label(first))
        note = self.query_one("#more-below", Static)
        note.update(untrusted.content(f"↓ more below: {', '.join(names)} (scroll, or Tab)") if names else "")
        note.display = bool(names)

    # --- submit ---

    def action_submit(self) -> None:
        parsed = self.parse()
        self.show_errors(parsed.errors)
        self._count_what_to_fix(parsed.errors)
        if parsed.body is None:
            return
        body = parsed.body
        unknown = unknown_tokens(self.templated_values(), self._known_tokens())
        if not unknown or body == self._confirmed:  # asked already (a Retry after a failure)
            self._send(body)
            return

        def create() -> None:
            self._confirmed = body
            self._send(body)

        names = ", ".join("{" + token + "}" for token in unknown)
        confirm_then(self.app, Confirm(
            title="Create the tool with unknown placeholders?",
            question=f"{names} {'is' if len(unknown) == 1 else 'are'} neither an llmParam of this tool nor a "
            "variable of this account, nor a context param the service documents ({call_id}, "
            "{agent_id}, {phone_number}). Unless the service fills it some other way, the tool "
            "will send the braces as they are. Keep goes back to the form.",
            yes="Create anyway", no="Keep",
        ), create)

    def _send(self, body: ToolCreate) -> None:
        self.query_one("#create", Button).disabled = True
        self.create(body)

    @on(Button.Pressed, "#create")
    def _create_pressed(self) -> None:
        self.action_submit()

    @work(exclusive=True, group="create", exit_on_error=False)
    async def create(self, body: ToolCreate) -> None:
        key = self._submission.key_for(body.model_dump_json(by_alias=True))
        tool = await self.services.call_api(
            lambda c: c.create_tool(body, idempotency_key=key)
        )
        self.dismiss(tool)

    def retry_create(self) -> None:
        self.action_submit()

    def retry_for(self, group: str) -> Callable[[], object] | None:
        return self.retry_create if group == "create" else None

    def api_failed(self, worker: Worker[Any], error: BaseException) -> bool:
        self.query_one("#create", Button).disabled = False
        if worker.group == "create" and isinstance(error, errors.ApiError) and error.status == 409:
            # The spec leaves the duplicate-name code open; a conflict on create can only be the name.
            self.show_errors({"name": [error.message or "is already taken on this account"]})
            self.query_one(Banner).show(str(error))
            return True
        if worker.group != "create" or not isinstance(error, errors.InvalidRequest) or not error.details:
            return False  # the app's banner, with Retry; the form keeps every value
        errs: dict[str, list[str]] = {}
        unplaced: list[str] = []
        for d in error.details:
            path = field_for_loc(d.loc)
            if path is None:
                unplaced.append(f"{d.field}: {d.message}")
            else:
                errs.setdefault(path, []).append(d.message)
        self.show_errors(errs)
        summary = f"The server rejected the tool (HTTP {error.status}, {error.code})."
        if unplaced:
            summary += " " + "; ".join(unplaced)
        self.query_one(Banner).show(summary)
        return True

    @on(Button.Pressed, "#cancel")
    def action_cancel(self) -> None:
        if not self.is_dirty():
            self.dismiss(None)
            return
        confirm_then(self.app, Confirm(
            "What you typed in the form is lost. Keep goes back to it.", title="Discard the new tool?",
            yes="Discard", no="Keep", danger=True,
        ), partial(self.dismiss, None))
