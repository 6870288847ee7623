"""The KYC rental wizard: number → requirements → end user → documents → review → submit.

One modal screen holds every step in a ContentSwitcher, so what the user typed stays in its
widgets however they move between steps and whatever the server answers. Network calls run in
exclusive workers and come back as typed messages. A submission keeps one Idempotency-Key for as
long as the application is unchanged, so a retry after a 502, a 429 or a lost answer can never
rent (or charge) twice.
"""

from __future__ import annotations

import asyncio
import functools
import hashlib
import json
import socket
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path
from collections.abc import Sequence
from typing import Any

from textual import on, work
from textual.app import ComposeResult
from textual.await_complete import AwaitComplete
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.content import Content
from textual.message import Message
from textual.widget import Widget
from textual.widgets import (
    Button,
    ContentSwitcher,
    DataTable,
    Input,
    Label,
    ProgressBar,
    Select,
    Static,
)

from vap_console.api import errors
from vap_console.api.client import new_idempotency_key
from vap_console.api.models import (
    AvailableNumber,
    DocumentType,
    EndUser,
    NumberType,
    Rental,
    RentalRequirements,
    RentalStatus,
    SearchFilters,
)
from vap_console.api.rental import (
    RentalApplication,
    RentalDocument,
    RentalValidationError,
    check_document_file,
    detect_file_type,
)
from vap_console.tui import untrusted
from vap_console.tui.format import e164, money
from vap_console.tui.screens.dialog import Dialog, answered_already
from vap_console.tui.screens.wizard.dialogs import Confirm, FilePicker
from vap_console.tui.screens.wizard.earlier import (
    END_USER_KEYS,
    SessionMemory,
    TypedApplication,
    end_user_choices,
    held_numbers,
    holder_of,
)
from vap_console.tui.screens.wizard.steps import StepIndicator
from vap_console.tui.screens.wizard.rules import (
    data_field_id,
    END_USER_FIELDS,
    STEPS,
    CountryCode,
    DataFieldsText,
    Digits,
    Email,
    Landing,
    NotHeld,
    PhoneNumber,
    Required,
    data_field_rules,
    data_field_value,
    documents_named,
    first_step,
    human_size,
    landing_for,
    normalise_number,
    parse_data_fields,
    same_number,
)
from vap_console.tui.untrusted import Literal
from vap_console.tui.widgets.banner import Banner

# The server takes the first charge up front only when the wallet covers it; we cannot see the
# balance, so the wallet's two outcomes are both said before anything is sent.
SHORT_WALLET = "If the wallet holds less, the rental waits (funding) until auto-pay tops the wallet up."

# How far back a rental may have been created and still be "the one we just sent" when an
# answer was lost: covers a slow upload plus clock skew between us and the server.
OUTCOME_WINDOW = timedelta(minutes=10)


# --- messages from the workers ---


class SearchDone(Message):
    def __init__(self, numbers: list[AvailableNumber], filters: SearchFilters) -> None:
        super().__init__()
        self.numbers = numbers
        self.filters = filters


class SearchFailed(Message):
    def __init__(self, error: errors.ApiError) -> None:
        super().__init__()
        self.error = error


class RequirementsLoaded(Message):
    def __init__(self, requirements: RentalRequirements | None, asked: tuple[str, str]) -> None:
        super().__init__()
        self.requirements = requirements  # None: the server does not offer the extension
        self.asked = asked


class RequirementsFailed(Message):
    def __init__(self, error: errors.ApiError) -> None:
        super().__init__()
        self.error = error


class Submitted(Message):
    def __init__(self, rental: Rental, *, recovered: bool = False) -> None:
        super().__init__()
        self.rental = rental
        self.recovered = recovered


class SubmitFailed(Message):
    def __init__(self, error: errors.ApiError | RentalValidationError) -> None:
        super().__init__()
        self.error = error


class OutcomeChecked(Message):
    """The result of looking for a rental after a lost answer: None when none was found."""

    def __init__(self, rental: Rental | None, error: errors.ApiError | None = None,
                 where: str = "the server's rental list") -> None:
        super().__init__()
        self.rental = rental
        self.error = error
        self.where = where


# --- pieces of the form ---


class Field(Input):
    """A wizard input that leaves "?" to the wizard's key list: no value it takes contains one."""

    def check_consume_key(self, key: str, character: str | None) -> bool:
        return character != "?" and super().check_consume_key(key, character)


def field(label: str, input_id: str, *, validators: list | None = None, placeholder: str = "",
          value: str = "") -> ComposeResult:
    yield Label(untrusted.content(label), classes="field-label")
    yield Field(value, id=input_id, placeholder=placeholder, validators=validators or [],
                validate_on=["changed", "submitted"])
    yield Literal("", id=f"{input_id}-error", classes="field-error")


def found_with(filters: SearchFilters | None) -> str:
    """``found with pattern 1010 in Pune``; empty when the number was not searched for."""
    if filters is None or not (filters.pattern or filters.city):
        return ""
    parts = ["found"]
    if filters.pattern:
        parts.append(f"with the digits {filters.pattern}")
    if filters.city:
        parts.append(f"in {filters.city}")
    return " ".join(parts)


@dataclass(frozen=True)
class FileCheck:
    """What checking a document's file found: its problems, or its name, size and type."""

    text: str  # the path as typed
    problems: tuple[str, ...] = ()
    name: str = ""
    size: int = 0
    kind: str | None = None


def check_file(text: str) -> FileCheck:
    """Stat the file and read its first bytes: run it in a worker thread, never on the UI loop."""
    path = Path(text).expanduser()
    problems = check_document_file(path)
    if problems:
        return FileCheck(text, tuple(problems))
    try:
        return FileCheck(text, (), path.name, path.stat().st_size, detect_file_type(path))
    except OSError as exc:
        return FileCheck(text, (f"cannot read {path.name}: {exc.strerror or exc}",))


class DocumentEntry(Vertical):
    """One required document: its data fields and its file, checked as soon as it is chosen."""

    DEFAULT_CSS = """
    DocumentEntry { height: auto; border: round $primary 50%; padding: 0 1; margin-bottom: 1; }
    DocumentEntry .doc-title { text-style: bold; }
    DocumentEntry .doc-description { color: $text-muted; }
    DocumentEntry Horizontal { height: auto; }
    DocumentEntry Horizontal Input { width: 1fr; }
    DocumentEntry .doc-file { height: auto; }
    DocumentEntry .doc-file.-ok { color: $success; }
    DocumentEntry .doc-file.-bad { color: $error; }
    """

    def __init__(self, index: int, doc_type: DocumentType | None) -> None:
        super().__init__(id=f"doc-{index}")
        self.index = index
        self.doc_type = doc_type
        # The last check of the file, done off the UI loop; stale once the path is edited.
        self.checked: FileCheck | None = None

    @property
    def current_check(self) -> FileCheck | None:
        """The check of the path as it is typed now, if it is done."""
        checked = self.checked
        return checked if checked is not None and checked.text == self.path_text else None

    @property
    def type_id(self) -> str:
        if self.doc_type is not None:
            return self.doc_type.id
        return self.query_one(f"#doc-{self.index}-type", Input).value.strip()

    def compose(self) -> ComposeResult:
        prefix = f"doc-{self.index}"
        if self.doc_type is None:
            yield Static("Document", classes="doc-title")
            yield Static("This server does not list its required documents: type the document "
                         "type id your carrier asks for.", classes="doc-description")
            yield from field("Document type id", f"{prefix}-type",
                             validators=[Required("Document type id")])
            yield from field("Data fields (optional)", f"{prefix}-data", validators=[DataFieldsText()],
                             placeholder="key=value, key=value")
        else:
            yield Literal(self.doc_type.label, classes="doc-title")
            if self.doc_type.description:
                yield Literal(self.doc_type.description, classes="doc-description")
            for data_field in self.doc_type.data_fields:
                label = data_field.label + ("" if data_field.required else " (optional)")
                validators = [Required(data_field.label)] if data_field.required else []
                validators += data_field_rules(data_field.key, data_field.label, data_field.description)
                yield from field(label, data_field_id(self.index, data_field.key), validators=validators,
                                 placeholder=data_field.description or "")
        yield Label("File (PDF, JPEG or PNG, at most 5 MB)", classes="field-label")
        with Horizontal():
            yield Field(id=f"{prefix}-path", placeholder="path to the file, or Browse…")
            yield Button("Browse…", id=f"{prefix}-browse", classes="doc-browse")
        yield Literal("", id=f"{prefix}-path-error", classes="doc-file")

    def data_fields(self) -> dict[str, str]:
        if self.doc_type is None:
            try:
                return parse_data_fields(self.query_one(f"#doc-{self.index}-data", Input).value)
            except ValueError:
                return {}  # shown beside the field; the step does not move on until it is fixed
        values = {}
        for data_field in self.doc_type.data_fields:
            value = data_field_value(
                data_field.key, self.query_one(f"#{data_field_id(self.index, data_field.key)}", Input).value)
            if value:
                values[data_field.key] = value
        return values

    @property
    def path_text(self) -> str:
        return self.query_one(f"#doc-{self.index}-path", Input).value.strip()

    def show_file(self, problems: list[str] | tuple[str, ...]) -> None:
        """Say what is wrong with the file (nothing: the line is cleared)."""
        status = self.query_one(f"#doc-{self.index}-path-error", Static)
        if not problems:
            status.update("")
            status.set_classes("doc-file")
            self.query_one(f"#doc-{self.index}-path", Input).remove_class("-invalid")
            return
        status.update("✖ " + "; ".join(problems))
        status.set_classes("doc-file -bad")
        self.query_one(f"#doc-{self.index}-path", Input).add_class("-invalid")

    def show_check(self, check: FileCheck) -> bool:
        """Show the file's size and type beside it, or what is wrong with it; True when fine."""
        if check.problems:
            self.show_file(check.problems)
            return False
        status = self.query_one(f"#doc-{self.index}-path-error", Static)
        status.update(f"✔ {check.name} · {human_size(check.size)} · {check.kind}")
        status.set_classes("doc-file -ok")
        self.query_one(f"#doc-{self.index}-path", Input).remove_class("-invalid")
        return True


class RentalWizard(Dialog[Rental | None]):
    """Rent a number. Dismisses with the created Rental (after opening its screen) or None."""

    LABEL = "Rent a number"

    DEFAULT_CSS = """
    RentalWizard { align: center middle; }
    RentalWizard #wizard {
        width: 110; max-width: 100%; height: 100%;
        border: thick $accent; background: $surface; padding: 0 1;
    }
    RentalWizard #wizard-title { text-style: bold; padding: 1 0 0 0; }
    RentalWizard ContentSwitcher { height: 1fr; }
    RentalWizard ContentSwitcher > VerticalScroll { height: 1fr; }
    RentalWizard .field-label { margin-top: 1; }
    RentalWizard .field-error { color: $error; height: auto; }
    RentalWizard .hint { color: $text-muted; }
    RentalWizard #search-row { height: auto; }
    RentalWizard #search-row > Vertical { width: 1fr; height: auto; padding-right: 1; }
    RentalWizard #search-row Button { margin-top: 2; }
    RentalWizard #results { height: auto; max-height: 9; margin-top: 1; }
    RentalWizard #wizard-nav { height: auto; align-horizontal: right; padding: 1 0 0 0; }
    RentalWizard #wizard-nav Button { margin-left: 2; }
    RentalWizard #wizard-keys { width: 1fr; color: $text-muted; padding: 1 0 0 0; }
    RentalWizard #upload { margin: 1 0; }
    /* auto, not Vertical's 1fr: the step's VerticalScroll must see every document to scroll to it */
    RentalWizard #documents { height: auto; }
    /* Under 100 columns: the search fields two a row (four squeezed labels and placeholders to
       "e.g."), and no line of keys above the buttons (the key bar below says them). */
    RentalWizard.-narrow #search-row { layout: grid; grid-size: 2; grid-rows: auto; grid-gutter: 0 1; }
    RentalWizard.-narrow #search-row > Vertical { padding-right: 0; }
    RentalWizard.-narrow #search-row Button { margin-top: 0; }
    RentalWizard.-narrow #wizard-keys { display: none; }
    /* Under 30 rows every row of frame is a row of the step gone: one-line buttons, less padding. */
    RentalWizard.-short #wizard-title { padding: 0; }
    RentalWizard.-short #wizard-nav { padding: 0; }
    RentalWizard.-short #wizard-nav Button { height: 1; border: none !important; }
    RentalWizard.-short #wizard-keys { padding: 0; }
    """

    BINDINGS = [
        Binding("escape", "leave", "Close", id="wizard.close",
                tooltip="Leave the wizard (asks first when something is typed)"),
        Binding("pagedown", "next", "Next", priority=True, id="wizard.next",
                tooltip="Check this step and go to the next one"),
        Binding("pageup", "back", "Back", priority=True, id="wizard.back",
                tooltip="Go to the previous step; nothing typed is lost"),
        # Priority, and the wizard's fields leave "?" alone (Field), so it works from inside a field.
        Binding("question_mark,f1", "show_keys", "Keys", priority=True, id="wizard.keys",
                tooltip="Show the wizard's keys"),
    ]

    def __init__(self, *, country_iso: str = "IN", number_type: str = NumberType.LOCAL,
                 start_dir: Path | None = None, rentals: Sequence[Rental] = (),
                 memory: SessionMemory | None = None) -> None:
        super().__init__()
        # The account's rentals as its list shows them: numbers it holds are refused at the
        # number step, and their end users can fill this one's.
        self._held = held_numbers(rentals)
        self._memory = memory
        self._end_user_choices = end_user_choices(rentals, memory)
        self._country = country_iso
        self._number_type = number_type
        self._start_dir = start_dir
        self.step = "number"
        self._numbers: list[AvailableNumber] = []
        self._selected: AvailableNumber | None = None
        self._filters: SearchFilters | None = None
        self._search_filters: SearchFilters | None = None
        self.requirements: RentalRequirements | None = None
        self._requirements_for: tuple[str, str] | None = None
        self._requirements_missing = False  # the server has no requirements extension
        self._blocked: str | None = None  # why renting cannot go on (ineligible, not configured)
        self._idempotency: tuple[str, str] | None = None  # (fingerprint, key)
        self._submitting = False
        self._submitted_at: datetime | None = None
        self._application: RentalApplication | None = None
        self._countdown = 0
        self._countdown_timer: Any = None
        self._done = False
        self._lost = "No answer came back"  # why the outcome of the last send is unknown

    # --- layout ---

    def compose(self) -> ComposeResult:
        with Vertical(id="wizard"):
            yield Static("Rent a number", id="wizard-title")
            yield StepIndicator(id="steps")
            yield Banner(id="wizard-banner")
            with ContentSwitcher(initial="step-number"):
                with VerticalScroll(id="step-number"):
                    yield Static("Search the inventory, or type the number you want.", classes="hint")
                    with Horizontal(id="search-row"):
                        with Vertical():
                            yield from field("Country", "country", validators=[CountryCode()],
                                             value=self._country)
                        with Vertical():
                            yield Label("Type", classes="field-label")
                            yield Select(
                                [("local", NumberType.LOCAL), ("mobile", NumberType.MOBILE),
                                 ("toll-free", NumberType.TOLL_FREE)],
                                value=self._number_type, allow_blank=False, id="number-type",
                            )
                        with Vertical():
                            yield from field("Digits it contains", "pattern", placeholder="e.g. 4567",
                                             validators=[Digits("Digits it contains")])
                        with Vertical():
                            yield from field("City", "city", placeholder="e.g. Bengaluru")
                        yield Button("Search", id="search")
                    yield Literal("", id="search-status", classes="hint")
                    yield DataTable(id="results", cursor_type="row", zebra_stripes=True)
                    yield from field("Number to rent", "number",
                                     validators=[PhoneNumber(), NotHeld(self._held_status)],
                                     placeholder="bare digits or E.164, e.g. +918045670001")
                    yield Button("Open its rental", id="number-held")
                with VerticalScroll(id="step-requirements"):
                    yield Literal("", id="requirements")
                with VerticalScroll(id="step-enduser"):
                    yield Static("The business renting the number, as on its KYC documents.", classes="hint")
                    if self._end_user_choices:
                        yield Label("Fill from an earlier application", classes="field-label")
                        yield Select([(untrusted.text(choice.label, multiline=False), n)
                                      for n, choice in enumerate(self._end_user_choices)],
                                     prompt="choose one, or type below", id="eu-from")
                    for key, label, required in END_USER_FIELDS:
                        validators: list = []
                        if required:
                            validators.append(Required(label))
                        if key == "email":
                            validators.append(Email())
                        yield from field(label + ("" if required else " (optional)"), f"eu-{key}",
                                         validators=validators)
                with VerticalScroll(id="step-documents"):
                    yield Static("One file per document type; checked as soon as you choose it.",
                                 classes="hint")
                    if self.app.is_web:
                        # `vap web`: the console runs on the serving machine, so paths and Browse…
                        # are that machine's files, not those of the computer with the browser.
                        yield Literal(f"In a browser: files are picked from {socket.gethostname()}, "
                                     "the machine serving this console, not from this computer.",
                                     id="doc-web-note", classes="hint")
                    yield Literal("", id="doc-earlier", classes="hint")
                    yield Vertical(id="documents")
                    # Only when the server does not list its document types: the user adds them.
                    yield Button("Add another document", id="doc-add")
                with VerticalScroll(id="step-review"):
                    yield Literal("", id="review")
                with VerticalScroll(id="step-submit"):
                    yield Literal("", id="submit-status")
                    yield ProgressBar(total=100, show_eta=False, id="upload")
                    yield Literal("", id="submit-detail", classes="hint")
            with Horizontal(id="wizard-nav"):
                yield Static("PgDn next · PgUp back · Esc close · ? keys", id="wizard-keys")
                yield Button("Cancel", id="wizard-cancel")
                yield Button("Back", id="wizard-back")
                yield Button("Next", id="wizard-next", variant="primary")

    def on_mount(self) -> None:
        self.query_one("#doc-add", Button).display = False
        self.query_one("#number-held", Button).display = False
        self.query_one("#doc-earlier", Static).display = False
        table = self.query_one("#results", DataTable)
        table.add_columns("Number", "City", "Monthly rent", "Setup fee")
        table.display = False
        self._show_step("number")
        self.query_one("#pattern", Input).focus()

    # --- helpers ---

    @property
    def banner(self) -> Banner:
        return self.query_one("#wizard-banner", Banner)

    def _tell(self, text: str, retry: Any = None) -> None:
        self.banner.show(text, retry=retry)  # shown literally: server messages quote brackets

    def _now(self) -> datetime:
        now = getattr(self.app, "now", None)
        if callable(now):
            return now()
        from datetime import UTC

        return datetime.now(UTC)

    def _value(self, input_id: str) -> str:
        return self.query_one(f"#{input_id}", Input).value

    def sequence(self) -> list[str]:
        if self.requirements is not None and self.requirements.verified_kyc:
            return ["number", "requirements", "review", "submit"]
        return list(STEPS)

    @property
    def documents(self) -> list[DocumentEntry]:
        return list(self.query(DocumentEntry))

    def is_dirty(self) -> bool:
        """Anything typed or chosen that has not been sent."""
        if self._done:
            return False
        for widget in self.query(Input):
            if widget.id in ("country", "picker-root"):
                continue
            if widget.value.strip():
                return True
        return self._selected is not None

    def _show_step(self, step: str) -> None:
        self.step = step
        self.query_one(ContentSwitcher).current = f"step-{step}"
        skipped = set(STEPS) - set(self.sequence())
        self.query_one(StepIndicator).show(step, skipped)
        self._update_nav()
        if step == "requirements":
            self._ensure_requirements()
        elif step == "review":
            self._render_review()

    def _update_nav(self) -> None:
        step = self.step
        back = self.query_one("#wizard-back", Button)
        nxt = self.query_one("#wizard-next", Button)
        back.disabled = step == "number" or (self._submitting and self._countdown_timer is None)
        nxt.display = step != "submit"
        nxt.label = "Rent…" if step == "review" else "Next"
        nxt.variant = "warning" if step == "review" else "primary"
        nxt.disabled = self._blocked == "not_configured" or (
            self._blocked == "ineligible" and step in ("requirements", "review"))

    def _field_error(self, input_id: str, message: str) -> None:
        widget = self.query_one(f"#{input_id}")
        if isinstance(widget, Input):
            widget.add_class("-invalid")
        errors_static = self.query(f"#{input_id}-error")
        if errors_static:
            errors_static.first(Static).update(message)

    # --- inline validation ---

    @on(Input.Changed)
    def _changed(self, event: Input.Changed) -> None:
        input_id = event.input.id or ""
        if input_id.endswith("-path") and input_id.startswith("doc-"):
            entry = event.input.parent.parent if event.input.parent is not None else None
            if isinstance(entry, DocumentEntry):
                self._check_file(entry)
            return
        if input_id == "number":
            self._show_held(event.value)
        if input_id == "number" and self._selected is not None:
            if not same_number(event.value, self._selected.number):
                self._selected = None
                self._filters = None
        if event.validation_result is not None:
            errors_static = self.query(f"#{input_id}-error")
            if errors_static:
                messages = event.validation_result.failure_descriptions
                errors_static.first(Static).update("\n".join(messages))

    def _check_file(self, entry: DocumentEntry) -> None:
        """Check the file as its path is typed: in a worker thread, the latest path winning."""
        text = entry.path_text
        if not text:
            entry.checked = None
            entry.show_file([])
            return
        # A callable, not a coroutine: a check replaced before it starts is then never created
        # (a coroutine object would be dropped un-awaited, with a RuntimeWarning).
        self.run_worker(functools.partial(self._probe_file, entry, text), group=f"file-{entry.index}",
                        exclusive=True, exit_on_error=False)

    async def _probe_file(self, entry: DocumentEntry, text: str) -> FileCheck:
        check = await asyncio.to_thread(check_file, text)
        if entry.is_attached and entry.path_text == text:
            entry.checked = check
            entry.show_check(check)
        return check

    def _unchecked_files(self) -> list[DocumentEntry]:
        return [e for e in self.documents if e.path_text and e.current_check is None]

    @work(exclusive=True, group="wizard-files", exit_on_error=False)
    async def _check_files_then_next(self, entries: list[DocumentEntry]) -> None:
        await asyncio.gather(*(self._probe_file(entry, entry.path_text) for entry in entries))
        if self.step == "documents" and not self._unchecked_files():
            self.action_next()

    def _check_inputs(self, container: Widget) -> bool:
        """Run every input's validators again, show each failure beside it; True when all pass."""
        fine = True
        for widget in container.query(Input):
            if not widget.validators:
                continue
            result = widget.validate(widget.value)
            if result is not None and not result.is_valid:
                fine = False
                self._field_error(widget.id or "", "\n".join(result.failure_descriptions))
        return fine

    def _check_step(self, step: str) -> bool:
        container = self.query_one(f"#step-{step}")
        fine = self._check_inputs(container)
        if self._blocked == "not_configured" or (self._blocked and step == "requirements"):
            return False
        if step == "requirements":
            if self.requirements is None and not self._requirements_missing:
                self.notify("The requirements are still loading.", severity="warning")
                return False
        if step == "documents":
            for entry in self.documents:
                check = entry.current_check
                if not entry.path_text:
                    fine = False
                    entry.show_file(["a file is required for this document"])
                elif check is not None and not entry.show_check(check):
                    fine = False
        return fine

    # --- navigation ---

    @on(Button.Pressed, "#wizard-next")
    def action_next(self) -> None:
        if self._submitting or self.step == "submit":
            return
        if self.step == "documents" and self._unchecked_files():
            # A file still being checked: Next goes on once every check is in.
            self._check_files_then_next(self._unchecked_files())
            return
        if not self._check_step(self.step):
            self.app.bell()
            self._show_first_problem()
            return
        if self.step == "review":
            self._confirm_and_submit()
            return
        if self.step == "number":
            # What is sent, shown: "+91 22 7240-1010" and "91 22 7240 1010" lose their spacing alike.
            number = self.query_one("#number", Input)
            number.value = normalise_number(number.value)
        sequence = self.sequence()
        self.banner.clear()
        self._show_step(sequence[sequence.index(self.step) + 1])
        self._focus_first_input()

    def _held_status(self, number: str) -> str | None:
        holder = holder_of(number, self._held)
        return holder.status if holder is not None else None

    def _show_held(self, number: str) -> None:
        """The way to the rental that holds the typed number, beside the number's message."""
        holder = holder_of(number, self._held)
        button = self.query_one("#number-held", Button)
        button.display = holder is not None
        if holder is not None:
            button.label = f"Open its rental ({holder.status})"
            # Below the number's message: brought into view, or a small terminal hides the way on.
            self.call_after_refresh(button.scroll_visible, animate=False)

    @on(Button.Pressed, "#number-held")
    def _open_held(self) -> None:
        holder = holder_of(self._value("number"), self._held)
        if holder is None:
            return
        from vap_console.tui.screens.rental import RentalScreen

        # On top of the wizard: Esc comes back to it with everything typed.
        self.app.push_screen(RentalScreen(holder.id, rental=holder))

    @on(Select.Changed, "#eu-from")
    def _fill_from_earlier(self, event: Select.Changed) -> None:
        if not isinstance(event.value, int):
            return
        target = {key: self._end_user_choices[event.value].values.get(key, "") for key in END_USER_KEYS}
        typed_over = [key for key in END_USER_KEYS
                      if self._value(f"eu-{key}").strip() and self._value(f"eu-{key}").strip() != target[key]]
        if typed_over:
            self._ask_then_fill(target, typed_over)
        else:
            self._fill_end_user(target)

    @work(exclusive=True, group="wizard-fill", exit_on_error=False)
    async def _ask_then_fill(self, target: dict[str, str], typed_over: list[str]) -> None:
        labels = {key: label for key, label, _ in END_USER_FIELDS}
        names = ", ".join(labels[key] for key in typed_over)
        if await self.app.push_screen_wait(Confirm(f"Replace what you typed in {names}?", yes="Replace",
                                                   no="Keep mine")):
            self._fill_end_user(target)

    def _fill_end_user(self, values: dict[str, str]) -> None:
        for key in END_USER_KEYS:
            self.query_one(f"#eu-{key}", Input).value = values.get(key, "")
        self.query_one("#eu-name", Input).focus()

    def typed(self) -> TypedApplication:
        """What was typed, for the next wizard of this session."""
        documents = {entry.type_id: (entry.path_text, entry.data_fields())
                     for entry in self.documents if entry.type_id}
        return TypedApplication({key: self._value(f"eu-{key}") for key in END_USER_KEYS}, documents)

    def dismiss(self, result: Rental | None = None) -> AwaitComplete:
        if self._memory is not None and not answered_already(self):
            self._memory.remember(self.typed())
        return super().dismiss(result)

    def _show_first_problem(self) -> None:
        """Bring the first marked field of this step into view, focus it and name it in the banner."""
        marked = [w for w in self.query_one(f"#step-{self.step}").query(Input) if w.has_class("-invalid")]
        if not marked:
            return
        widget = marked[0]
        entry = next((a for a in widget.ancestors if isinstance(a, DocumentEntry)), None)
        status_id = f"{widget.id}-error"
        found = self.query(f"#{status_id}")
        status = found.first(Static) if found else None
        problem = str(status.content).removeprefix("✖ ").strip() if status is not None else ""
        if entry is not None:
            title = entry.doc_type.label if entry.doc_type else f"Document {entry.index + 1}"
            if widget.id and widget.id.endswith("-path"):
                problem = f"file: {problem}"
            problem = f"{title} — {problem}"
        more = f" (and {len(marked) - 1} more marked below)" if len(marked) > 1 else ""
        self._tell(f"Fix before going on: {problem or 'the marked field'}{more}")
        widget.focus(scroll_visible=False)

        def reveal() -> None:
            # The error line sits under the field: show both, the field winning if they do not fit.
            if status is not None:
                self.scroll_to_widget(status, animate=False, immediate=True)
            self.scroll_to_widget(widget, animate=False, immediate=True)

        self.call_after_refresh(reveal)

    @on(Button.Pressed, "#wizard-back")
    def action_back(self) -> None:
        if self._countdown_timer is not None:
            # Waiting out a 429 is the one wait the user may stop: nothing is in flight.
            self._stop_countdown()
            self._submitting = False
            self._show_step("review")
            return
        if self._submitting or self.step == "number":
            return
        sequence = self.sequence()
        index = sequence.index(self.step) if self.step in sequence else len(sequence) - 1
        self._show_step(sequence[max(0, index - 1)])
        self._focus_first_input()

    def _focus_first_input(self) -> None:
        inputs = self.query_one(f"#step-{self.step}").query(Input)
        if inputs:
            inputs.first().focus()
        else:
            self.query_one("#wizard-next", Button).focus()

    @on(Input.Submitted)
    def _submitted_field(self, event: Input.Submitted) -> None:
        """Enter moves on: search from the search fields, next field, next step at the end."""
        event.stop()
        if event.input.id in ("pattern", "city"):
            self._search()
            return
        if event.input.id == "number":
            self.action_next()  # the number is all this step needs
            return
        inputs = list(self.query_one(f"#step-{self.step}").query(Input))
        if event.input in inputs and inputs.index(event.input) + 1 < len(inputs):
            inputs[inputs.index(event.input) + 1].focus()
        else:
            self.query_one("#wizard-next", Button).focus()

    def action_show_keys(self) -> None:
        """The wizard's own keys, not the editing keys of the field that has the focus."""
        from vap_console.tui.screens.keys_help import KeysHelpScreen

        focused = self.focused
        self.set_focus(None)

        def back(_: object = None) -> None:
            if focused is not None and focused.is_attached:
                focused.focus()

        self.app.push_screen(KeysHelpScreen(self), back)

    @on(Button.Pressed, "#wizard-cancel")
    def action_leave(self) -> None:
        if self._submitting:
            self.notify("The rental is being sent; wait for the answer before leaving.",
                        severity="warning")
            return
        if not self.is_dirty():
            self.dismiss(None)
            return

        def answered(leave: bool | None) -> None:
            if leave:
                self._done = True
                self.dismiss(None)

        self.app.push_screen(
            Confirm("Leave the wizard? What you typed has not been sent and will be lost.",
                    yes="Leave and discard", no="Stay"),
            answered,
        )

    # --- step 1: number ---

    @on(Button.Pressed, "#search")
    def _search_pressed(self) -> None:
        self._search()

    def _search(self) -> None:
        country = self.query_one("#country", Input)
        if not self._check_inputs(self.query_one("#search-row")):
            return
        filters = SearchFilters(
            pattern=self._value("pattern").strip() or None,
            city=self._value("city").strip() or None,
        )
        self.query_one("#search-status", Static).update("Searching…")
        self._run_search(country.value.strip().upper(), self._number_type_value(), filters)

    def _number_type_value(self) -> str:
        value = self.query_one("#number-type", Select).value
        return value if isinstance(value, str) else NumberType.LOCAL

    @work(exclusive=True, group="wizard-search", exit_on_error=False)
    async def _run_search(self, country: str, number_type: str, filters: SearchFilters) -> None:
        try:
            page = await self.app.client.search_numbers(  # type: ignore[attr-defined]
                country, number_type, pattern=filters.pattern, city=filters.city
            )
        except errors.ApiError as error:
            self.post_message(SearchFailed(error))
            return
        self.post_message(SearchDone(page.items, filters))

    @on(SearchDone)
    def _search_done(self, message: SearchDone) -> None:
        self._numbers = message.numbers
        self._search_filters = message.filters
        table = self.query_one("#results", DataTable)
        table.clear()
        for number in message.numbers:
            cells = (e164(number.e164 or number.number) or "—", number.city or "—",
                     money(number.monthly_rent_nanos, number.currency),
                     money(number.setup_nanos, number.currency))
            table.add_row(*(untrusted.text(cell, multiline=False) for cell in cells), key=number.number)
        table.display = bool(message.numbers)
        status = self.query_one("#search-status", Static)
        if message.numbers:
            count = len(message.numbers)
            status.update(f"{count} {'number' if count == 1 else 'numbers'} found — Enter on one picks it.")
            table.focus()
        else:
            status.update("No numbers match; loosen the filters or type a number below.")

    @on(SearchFailed)
    def _search_failed(self, message: SearchFailed) -> None:
        status = self.query_one("#search-status", Static)
        if isinstance(message.error, errors.NotConfigured):
            status.update("")
            self._unavailable()
        elif isinstance(message.error, errors.NotSupported):
            status.update("This server does not offer number search: type the number below.")
            self.query_one("#number", Input).focus()
        else:
            status.update("")
            self._tell(str(message.error), retry=self._search)

    @on(DataTable.RowSelected, "#results")
    def _picked(self, event: DataTable.RowSelected) -> None:
        chosen = next((n for n in self._numbers if n.number == event.row_key.value), None)
        if chosen is None:
            return
        number_input = self.query_one("#number", Input)
        number_input.value = chosen.number
        self._selected = chosen
        self._filters = self._search_filters
        country = self.query_one("#country", Input)
        country.value = chosen.country_iso
        self.query_one("#search-status", Static).update(
            f"Picked {chosen.e164} ({chosen.city or chosen.country_iso}) — PgDn goes on to the requirements.")
        number_input.focus()

    # --- step 2: requirements ---

    def _asked(self) -> tuple[str, str]:
        if self._selected is not None:
            return self._selected.country_iso, self._selected.number_type
        return self._value("country").strip().upper(), self._number_type_value()

    def _ensure_requirements(self) -> None:
        asked = self._asked()
        if self._requirements_for == asked and (self.requirements or self._requirements_missing):
            self._render_requirements()
            return
        self.query_one("#requirements", Static).update("Loading the requirements…")
        self._load_requirements(asked)

    def retry_requirements(self) -> None:
        self._requirements_for = None
        self._ensure_requirements()

    @work(exclusive=True, group="wizard-requirements", exit_on_error=False)
    async def _load_requirements(self, asked: tuple[str, str]) -> None:
        try:
            requirements = await self.app.client.rental_requirements(*asked)  # type: ignore[attr-defined]
        except errors.NotSupported:
            self.post_message(RequirementsLoaded(None, asked))
            return
        except errors.ApiError as error:
            self.post_message(RequirementsFailed(error))
            return
        self.post_message(RequirementsLoaded(requirements, asked))

    @on(RequirementsLoaded)
    async def _requirements_loaded(self, message: RequirementsLoaded) -> None:
        self._requirements_for = message.asked
        self.requirements = message.requirements
        self._requirements_missing = message.requirements is None
        requirements = message.requirements
        if requirements is not None and not requirements.eligibility.eligible:
            self._blocked = "ineligible"
        elif self._blocked == "ineligible":
            self._blocked = None
        types = requirements.document_types if requirements is not None else [None]
        if requirements is not None and requirements.verified_kyc:
            types = []
        await self._rebuild_documents(types)
        self.query_one("#doc-add", Button).display = requirements is None
        self._render_requirements()
        if self.step == "requirements":
            self._show_step("requirements")

    @on(RequirementsFailed)
    def _requirements_failed(self, message: RequirementsFailed) -> None:
        self.query_one("#requirements", Static).update("The requirements could not be loaded.")
        if isinstance(message.error, errors.NotConfigured):
            self._unavailable()
            return
        self._tell(str(message.error), retry=self.retry_requirements)

    def _unavailable(self) -> None:
        """503 telephony_not_configured: nothing on this deployment can rent a number."""
        self._blocked = "not_configured"
        self._update_nav()
        self._tell("Rentals are unavailable on this deployment (HTTP 503, "
                         "telephony_not_configured). Nothing was sent or charged.")

    async def _rebuild_documents(self, types: list[DocumentType | None]) -> None:
        current = [entry.doc_type.id if entry.doc_type else None for entry in self.documents]
        wanted = [t.id if t else None for t in types]
        if current == wanted:
            return
        # Keep what was typed for a document type that is still asked for.
        kept: dict[str | None, dict[str, str]] = {}
        for entry in self.documents:
            key = entry.doc_type.id if entry.doc_type else None
            kept[key] = {w.id.split("-", 2)[2]: w.value for w in entry.query(Input) if w.id}
        box = self.query_one("#documents", Vertical)
        # Awaited: the new entries reuse the old ids (doc-0, doc-1…).
        await box.remove_children()
        entries = [DocumentEntry(index, doc_type) for index, doc_type in enumerate(types)]
        await box.mount_all(entries)
        earlier = self._memory.last.documents if self._memory is not None and self._memory.last else {}
        filled = []
        for entry in entries:
            key = entry.doc_type.id if entry.doc_type else None
            for suffix, value in kept.get(key, {}).items():
                found = entry.query(f"#doc-{entry.index}-{suffix}")
                if found:
                    found.first(Input).value = value
            if key not in kept and entry.doc_type is not None and key in earlier:
                # The same document as in the application typed earlier this session: its file
                # and fields again (each checked again as it is set).
                path, fields = earlier[key]
                entry.query_one(f"#doc-{entry.index}-path", Input).value = path
                for data_field in entry.doc_type.data_fields:
                    if data_field.key in fields:
                        entry.query_one(f"#{data_field_id(entry.index, data_field.key)}", Input).value = \
                            fields[data_field.key]
                filled.append(entry.doc_type.label)
        note = self.query_one("#doc-earlier", Static)
        note.update(untrusted.content(
            f"Filled in from the application typed earlier in this session: {', '.join(filled)}. "
            "Check each one before you go on." if filled else ""))
        note.display = bool(filled)

    def _costs(self) -> tuple[int | None, int | None, str | None]:
        source: Any = self._selected if self._selected is not None else self.requirements
        if source is None:
            return None, None, None
        currency = source.currency or (self.requirements.currency if self.requirements else None)
        return source.monthly_rent_nanos, source.setup_nanos, currency

    def charge_text(self) -> str:
        rent, setup, currency = self._costs()
        if rent is None and setup is None:
            return "the first month's rent (the amount is not known in advance on this server)"
        total = (rent or 0) + (setup or 0)
        parts = [f"first month's rent {money(rent, currency)}"]
        if setup is not None:
            parts.append(f"setup fee {money(setup, currency)}")
        return f"{money(total, currency)} ({' + '.join(parts)})"

    def _number_shown(self) -> str:
        """The number being rented as it will be sent, with its E.164 form and city when picked."""
        number = normalise_number(self._value("number"))
        chosen = self._selected
        if chosen is not None and same_number(chosen.number, number):
            return f"{e164(chosen.e164 or number)}, {chosen.city}" if chosen.city else e164(chosen.e164 or number) or "—"
        return e164(number) or "—"

    def _render_requirements(self) -> None:
        country, number_type = self._requirements_for or self._asked()
        lines = [untrusted.markup("[b]Number[/] $n", n=self._number_shown()),
                 untrusted.markup("[b]Country[/] $c · [b]type[/] $t", c=country, t=number_type), Content("")]
        requirements = self.requirements
        if requirements is None:
            lines.append(untrusted.markup(
                "[$warning]This server does not describe its rental requirements.[/] "
                "You will name the document type and attach its file in the next steps."))
        else:
            if requirements.eligibility.eligible:
                lines.append(untrusted.markup("[$success]✔ This account can rent numbers.[/]"))
            else:
                reason = requirements.eligibility.reason or "no reason given"
                lines.append(untrusted.markup(
                    "[b $error]✖ This account cannot rent numbers:[/] $reason", reason=reason))
                lines.append(Content("Nothing can be sent until the account is eligible."))
            if requirements.verified_kyc:
                lines.append(untrusted.markup(
                    "[$success]✔ KYC already verified:[/] no documents are needed; "
                    "the next step is the review."))
            elif requirements.document_types:
                lines.append(untrusted.markup("[b]Documents the carrier needs:[/]"))
                for doc_type in requirements.document_types:
                    fields = ", ".join(f.label for f in doc_type.data_fields) or "no extra fields"
                    lines.append(untrusted.content(f"  • {doc_type.label} — {fields}"))
        lines.append(Content(""))
        lines.append(untrusted.content(f"Charged to the wallet when you submit: {self.charge_text()}"))
        self.query_one("#requirements", Static).update(Content("\n").join(lines))

    # --- step 5: review ---

    def build_application(self) -> RentalApplication:
        number = normalise_number(self._value("number"))
        if self.requirements is not None and self.requirements.verified_kyc:
            return RentalApplication(requested_number=number, search_filters=self._filters)
        values = {key: self._value(f"eu-{key}").strip() for key, _, _ in END_USER_FIELDS}
        end_user = EndUser(**{k: v for k, v in values.items() if v or k == "name"})
        documents = [
            RentalDocument(
                document_type_id=entry.type_id,
                data_fields=entry.data_fields(),
                path=Path(entry.path_text).expanduser() if entry.path_text else None,
            )
            for entry in self.documents
        ]
        return RentalApplication(requested_number=number, search_filters=self._filters,
                                 end_user=end_user, documents=documents)

    def _render_review(self) -> None:
        application = self.build_application()
        lines: list[Content] = [untrusted.markup("[b]Number[/]  $n", n=e164(application.number))]
        found = found_with(application.search_filters)
        if found and application.sends_documents:
            lines.append(untrusted.content(f"  {found}"))
        if not application.sends_documents:
            lines.append(Content("  KYC already verified: only the number is sent (plain JSON)."))
        else:
            lines.append(Content(""))
            lines.append(untrusted.markup("[b]End user[/]"))
            assert application.end_user is not None
            for key, label, _ in END_USER_FIELDS:
                value = getattr(application.end_user, key)
                if value:
                    lines.append(untrusted.content(f"  {label:<22}{value}"))
            lines.append(Content(""))
            lines.append(untrusted.markup("[b]Documents[/]"))
            for entry, document in zip(self.documents, application.documents):
                title = entry.doc_type.label if entry.doc_type else document.document_type_id
                lines.append(untrusted.content(f"  {title} ({document.document_type_id})"))
                for key, value in document.data_fields.items():
                    lines.append(untrusted.content(f"    {key}: {value}"))
                check = entry.current_check
                if check is not None and not check.problems:
                    lines.append(untrusted.content(
                        f"    file {check.name} · {human_size(check.size)} · {check.kind or 'unknown type'}"))
        lines.append(Content(""))
        lines.append(untrusted.markup("[b $warning]Charged to the wallet up front:[/] $c", c=self.charge_text()))
        lines.append(untrusted.content(f"  {SHORT_WALLET}"))
        rent, _, currency = self._costs()
        if rent is not None:
            lines.append(untrusted.content(f"  then {money(rent, currency)} every month while the number is kept"))
        lines.append(Content(""))
        lines.append(Content("Rent… asks once more before anything is sent or charged.", ))
        self.query_one("#review", Static).update(Content("\n").join(lines))

    # --- step 6: submit ---

    @work(exclusive=True, group="wizard-confirm", exit_on_error=False)
    async def _confirm_and_submit(self) -> None:
        application = self.build_application()
        problems = await asyncio.to_thread(application.problems)  # stats and reads each file
        if problems:
            self._land(RentalValidationError(problems))
            return

        def answered(go: bool | None) -> None:
            if go:
                self.submit(application)

        self.app.push_screen(
            Confirm(
                f"Rent {e164(application.number)}?\n\nThis charges {self.charge_text()} "
                f"to your wallet up front. {SHORT_WALLET}",
                yes="Charge the wallet and rent",
            ),
            answered,
        )

    def _key_for(self, application: RentalApplication) -> str:
        """The same key while the application is unchanged; a new one once anything changed."""
        # Sizes as last checked (off the UI loop): a file replaced by another changes the key.
        checks = {e.path_text: e.current_check for e in self.documents}
        files = [
            (str(d.path), getattr(checks.get(str(d.path)), "size", None)) for d in application.documents
        ]
        mark = hashlib.sha256(json.dumps([application.payload(), files], sort_keys=True,
                                         default=str).encode()).hexdigest()
        if self._idempotency is None or self._idempotency[0] != mark:
            self._idempotency = (mark, new_idempotency_key())
        return self._idempotency[1]

    @property
    def idempotency_key(self) -> str | None:
        return self._idempotency[1] if self._idempotency else None

    def submit(self, application: RentalApplication | None = None) -> None:
        application = application or self.build_application()
        self._application = application
        self._stop_countdown()
        key = self._key_for(application)
        self._submitting = True
        self._submitted_at = self._now()
        self.banner.clear()
        self._show_step("submit")
        self.query_one("#submit-status", Static).update(
            f"Sending the rental of {e164(application.number)}…")
        self.query_one("#submit-detail", Static).update("")
        bar = self.query_one("#upload", ProgressBar)
        bar.update(total=100, progress=0)
        self._send(application, key)

    def _progress(self, sent: int, total: int) -> None:
        bar = self.query_one("#upload", ProgressBar)
        bar.update(total=max(total, 1), progress=sent)
        self.query_one("#submit-detail", Static).update(
            f"Uploaded {human_size(sent)} of {human_size(total)}")

    @work(exclusive=True, group="wizard-submit", exit_on_error=False)
    async def _send(self, application: RentalApplication, key: str) -> None:
        try:
            rental = await self.app.client.rent_number(  # type: ignore[attr-defined]
                application, idempotency_key=key, on_progress=self._progress
            )
        except (errors.ApiError, RentalValidationError) as error:
            self.post_message(SubmitFailed(error))
            return
        except OSError as error:  # a file vanished or shrank mid-upload
            self.post_message(SubmitFailed(RentalValidationError([("documents", str(error))])))
            return
        except Exception as error:  # noqa: BLE001 - whatever broke, the request may have gone out
            # The wizard must never stay on "Sending…": treated as a lost answer, it is checked
            # before anything is sent again.
            self.post_message(SubmitFailed(errors.OutcomeUnknown(
                f"POST /v1/phone-numbers ended unexpectedly ({type(error).__name__}: {error})")))
            return
        self.post_message(Submitted(rental))

    @on(Submitted)
    def _submitted(self, message: Submitted) -> None:
        self._submitting = False
        self._done = True
        rental = message.rental
        index = getattr(self.app, "local_index", None)
        if index is not None:
            index.add("rentals", rental.id)  # written off the UI loop; a failure is said in a toast
        note = "The rental had been created after all." if message.recovered else "Rental created."
        if rental.status == RentalStatus.FUNDING:
            note += (" The wallet is short: it waits for auto-pay to top the wallet up, then the "
                     "rent is taken and the KYC goes to the carrier.")
        self.notify(f"{note} Following its progress.", title=rental.status)
        from vap_console.tui.screens.rental import RentalScreen

        self.dismiss(rental)
        self.app.push_screen(RentalScreen(rental.id, rental=rental))

    @on(SubmitFailed)
    def _submit_failed(self, message: SubmitFailed) -> None:
        self._submitting = False
        error = message.error
        if isinstance(error, errors.ApiError) and error.maybe_applied:
            # No answer, or one that could not be read: the rental may exist and be charged.
            self._submitting = True
            self._lost = ("No answer came back" if isinstance(error, errors.OutcomeUnknown)
                          else f"The answer could not be read ({error})")
            self.query_one("#submit-status", Static).update(
                f"{self._lost}: the rental may exist. Checking before anything is sent again…")
            self._check_outcome()
            return
        if isinstance(error, errors.RateLimited):
            self._start_countdown(error)
            return
        self._land(error)

    def _land(self, error: errors.ApiError | RentalValidationError) -> None:
        """Show a failure on the step it concerns, focus where the person acts on it (the field it
        marks, else Retry, else the step's button); the form keeps every value."""
        self._land_on(error)
        self.call_after_refresh(self._focus_after_landing)

    def _focus_after_landing(self) -> None:
        marked = [w for w in self.query_one(f"#step-{self.step}").query(Input) if w.has_class("-invalid")]
        retry = self.banner.query("#banner-retry")
        if marked:
            target: Widget = marked[0]
        elif retry and retry.first().display:
            target = retry.first()
        elif self.query_one("#wizard-next", Button).display:
            target = self.query_one("#wizard-next", Button)
        else:
            return
        target.focus()
        self.call_after_refresh(self.scroll_to_widget, target, animate=False)

    def _land_on(self, error: errors.ApiError | RentalValidationError) -> None:
        if isinstance(error, RentalValidationError):
            landings = [landing_for(errors.FieldError(f"body.{f}", m)) for f, m in error.problems]
            self._mark(landings)
            self._tell("Fix the marked fields: " + str(error))
            return
        if isinstance(error, errors.InvalidRequest) and error.details:
            self._mark([landing_for(detail) for detail in error.details])
            self._tell(str(error))
            return
        if isinstance(error, errors.DocumentInvalid):
            self._mark_documents(error)
            self._show_step("documents")
            self._tell(str(error))
            return
        if isinstance(error, errors.AccountIneligible):
            self._blocked = "ineligible"
            self._show_step("requirements")
            reason = self.requirements.eligibility.reason if self.requirements else None
            self._tell(str(error) + (f" Reason: {reason}" if reason else ""))
            return
        if isinstance(error, errors.NotConfigured):
            self._show_step("review")
            self._unavailable()
            return
        self._show_step("review")
        if isinstance(error, errors.AutopayRequired):
            # The server's message already says what to do; the client's own hint would say it again.
            text = error.message.strip().rstrip(".") or error.default_message()
            where = f"HTTP {error.status}, " if error.status else ""
            advice = "" if "dashboard" in text.lower() else " Set up an auto-pay mandate in the dashboard."
            self._tell(
                f"{text} ({where}{error.code}).{advice} Then press Retry: everything you typed is kept.",
                retry=self.submit,
            )
            return
        if isinstance(error, (errors.CarrierError, errors.ServerError, errors.ConnectionFailed)):
            self._tell(
                f"{error} Retry sends the same application with the same Idempotency-Key, "
                "so it cannot rent twice.",
                retry=self.submit,
            )
            return
        self._tell(str(error), retry=self.submit)

    def _mark(self, landings: list[Landing]) -> None:
        for landing in landings:
            if landing.input_id and "-field-" in landing.input_id and not self.query(f"#{landing.input_id}"):
                # Documents typed by hand keep their data fields in one key=value input.
                landing = Landing(landing.step, landing.input_id.split("-field-")[0] + "-data",
                                  f"{landing.input_id.split('-field-')[1]}: {landing.message}")
            if landing.input_id and self.query(f"#{landing.input_id}"):
                if landing.input_id.endswith("-path"):
                    entry = self.query_one(f"#{landing.input_id}").parent.parent  # type: ignore[union-attr]
                    if isinstance(entry, DocumentEntry):
                        entry.show_file([landing.message])
                else:
                    self._field_error(landing.input_id, landing.message)
        self._show_step(first_step(landings))

    def _mark_documents(self, error: errors.DocumentInvalid) -> None:
        if error.details:
            self._mark([landing_for(detail) for detail in error.details])
            return
        indices = documents_named(error.message)
        named = [e for e in self.documents if e.index in indices]
        named = named or [e for e in self.documents if e.path_text and Path(e.path_text).name in error.message]
        for entry in named or self.documents:
            entry.show_file([error.message or error.default_message()])

    # --- 429: wait Retry-After, then send again with the same key ---

    def _start_countdown(self, error: errors.RateLimited) -> None:
        self._submitting = True
        self._countdown = max(1, int(round(error.retry_after or 1)))
        self._tick_countdown()
        self._countdown_timer = self.set_interval(1, self._tick_countdown)
        self._update_nav()

    def _tick_countdown(self) -> None:
        if self._countdown <= 0:
            self._stop_countdown()
            self.submit(self._application)
            return
        self.query_one("#submit-status", Static).update(
            f"The key's request budget is spent (HTTP 429, rate_limited). "
            f"Sending again in {self._countdown} s with the same Idempotency-Key…")
        self._countdown -= 1

    def _stop_countdown(self) -> None:
        if self._countdown_timer is not None:
            self._countdown_timer.stop()
            self._countdown_timer = None

    # --- lost answers: look before sending again ---

    @work(exclusive=True, group="wizard-outcome", exit_on_error=False)
    async def _check_outcome(self) -> None:
        assert self._application is not None
        number = self._application.requested_number
        since = (self._submitted_at or self._now()) - OUTCOME_WINDOW
        client = self.app.client  # type: ignore[attr-defined]
        where = "the server's rental list"
        try:
            try:
                candidates = (await client.list_rentals()).items
            except errors.NotSupported:
                where = "the rentals this profile remembers (this server has no rental list)"
                index = getattr(self.app, "local_index", None)
                ids = await index.ids("rentals") if index is not None else []
                candidates = [await client.get_rental(rental_id) for rental_id in ids]
        except errors.ApiError as error:
            self.post_message(OutcomeChecked(None, error))
            return
        found = [
            r for r in candidates
            if (same_number(r.requested_number, number) or same_number(r.number, number))
            and r.created_at >= since
        ]
        newest = max(found, key=lambda r: r.created_at) if found else None
        self.post_message(OutcomeChecked(newest, where=where))

    @on(OutcomeChecked)
    def _outcome_checked(self, message: OutcomeChecked) -> None:
        if message.rental is not None:
            self.post_message(Submitted(message.rental, recovered=True))
            return
        self._submitting = False
        self._show_step("review")
        if message.error is not None:
            self._tell(
                f"{self._lost}, and checking whether the rental exists failed too: "
                f"{message.error} Check again before sending anything.",
                retry=self._recheck,
            )
            return
        self._tell(
            f"{self._lost}, and {message.where} holds no new rental for this number: it is "
            "safe to send again. Retry uses the same Idempotency-Key, so the server cannot rent twice.",
            retry=self.submit,
        )

    def _recheck(self) -> None:
        self._submitting = True
        self._show_step("submit")
        self.query_one("#submit-status", Static).update("Checking whether the rental exists…")
        self._check_outcome()

    @on(Button.Pressed, "#doc-add")
    async def _add_document(self) -> None:
        entry = DocumentEntry(len(self.documents), None)
        await self.query_one("#documents", Vertical).mount(entry)
        entry.query_one(Input).focus()

    # --- documents: the file picker ---

    @on(Button.Pressed, ".doc-browse")
    def _browse(self, event: Button.Pressed) -> None:
        entry = event.button.parent.parent  # type: ignore[union-attr]
        if not isinstance(entry, DocumentEntry):
            return
        current = Path(entry.path_text).expanduser() if entry.path_text else None
        self._open_picker(entry, current.parent if current is not None else self._start_dir)

    @work(exclusive=True, group="wizard-picker", exit_on_error=False)
    async def _open_picker(self, entry: DocumentEntry, start: Path | None) -> None:
        def folder() -> Path:
            return start if start is not None and start.is_dir() else Path.cwd()

        def picked(path: Path | None) -> None:
            if path is not None:
                entry.query_one(f"#doc-{entry.index}-path", Input).value = str(path)

        self.app.push_screen(FilePicker(await asyncio.to_thread(folder)), picked)
