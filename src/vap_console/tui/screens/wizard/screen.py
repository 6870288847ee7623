"""The KYC rental wizard: number → requirements → end user → documents → review → submit.

One modal screen holds every step in a ContentSwitcher, so what the user typed stays in its
widgets however they move between steps and whatever the server answers. Each step is its own
widget in its own module (``number``, ``requirements``, ``end_user``, ``documents``, ``review``,
``submit``): its fields, its checks, its network calls (exclusive workers, answering with typed
messages) and its part of the request. This screen keeps what spans them: moving between steps,
where a server error lands, and the banner; the submission's phase, confirm, 429 countdown and
lost-answer check are its base, ``SubmissionFlow`` (``submission``).

What the steps' values become (a ``RentalApplication``) and what happens after a failed send
(same Idempotency-Key for an unchanged application, a lost answer looked for before anything is
sent again) is decided Textual-free in ``api/rental_form.py``.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from pathlib import Path
from typing import Any
from typing import Literal as Kind

from textual import on, work
from textual.app import ComposeResult
from textual.await_complete import AwaitComplete
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.widget import Widget
from textual.widgets import Button, ContentSwitcher, Input, Static

from vap_console.api import errors
from vap_console.api.models import DocumentType, NumberType, Rental
from vap_console.api.rental import RentalApplication, RentalValidationError
from vap_console.api.rental_form import advice_for, build_application, charge_text
from vap_console.tui.screens.answers_once import answered_already
from vap_console.tui.screens.dialog import Confirm, confirm_then
from vap_console.tui.screens.keys_help import KeysHelpScreen
from vap_console.tui.screens.wizard.documents import DocumentEntry, DocumentsStep
from vap_console.tui.screens.wizard.earlier import (
    SessionMemory,
    TypedApplication,
    end_user_choices,
    held_numbers,
)
from vap_console.tui.screens.wizard.end_user import EndUserStep
from vap_console.tui.screens.wizard.fields import RentingUnavailable, Step
from vap_console.tui.screens.wizard.landing import first_problem, mark_landings, marked_inputs
from vap_console.tui.screens.wizard.number import NumberStep
from vap_console.tui.screens.wizard.requirements import (
    RequirementsLoaded,
    RequirementsStep,
)
from vap_console.tui.screens.wizard.review import ReviewStep
from vap_console.tui.screens.wizard.rules import STEPS, Landing, landing_for
from vap_console.tui.screens.wizard.steps import StepIndicator
from vap_console.tui.screens.wizard.submission import SubmissionFlow
from vap_console.tui.screens.wizard.submit import SubmitStep
from vap_console.tui.services import WizardHost
from vap_console.tui.widgets.banner import Banner

# Why renting cannot go on: the account is not eligible, or the deployment cannot rent at all.
Blocked = Kind["ineligible", "not_configured"]


FIX_FIRST = "Fix before going on: "


class RentalWizard(SubmissionFlow):
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

    def __init__(self, services: WizardHost, *, country_iso: str = "IN", number_type: str = NumberType.LOCAL,
                 start_dir: Path | None = None, rentals: Sequence[Rental] = (),
                 memory: SessionMemory | None = None) -> None:
        super().__init__(services)
        # The account's rentals as its list shows them: numbers it holds are refused at the
        # number step, and their end users can fill this one's.
        self._held = held_numbers(rentals)
        self._memory = memory
        self._end_user_choices = end_user_choices(rentals, memory)
        self._country = country_iso
        self._number_type = number_type
        self._start_dir = start_dir
        self.step = "number"
        self._blocked: Blocked | None = None

    # --- layout ---

    def compose(self) -> ComposeResult:
        with Vertical(id="wizard"):
            yield Static("Rent a number", id="wizard-title")
            yield StepIndicator(id="steps")
            yield Banner(id="wizard-banner")
            with ContentSwitcher(initial="step-number"):
                yield NumberStep(self.services, country_iso=self._country, number_type=self._number_type,
                                 held=self._held)
                yield RequirementsStep(self.services, retry=self.retry_requirements)
                yield EndUserStep(self._end_user_choices)
                yield DocumentsStep(memory=self._memory, start_dir=self._start_dir)
                yield ReviewStep()
                yield SubmitStep(self.services)
            with Horizontal(id="wizard-nav"):
                yield Static("PgDn next · PgUp back · Esc close · ? keys", id="wizard-keys")
                yield Button("Cancel", id="wizard-cancel")
                yield Button("Back", id="wizard-back")
                yield Button("Next", id="wizard-next", variant="primary")

    def on_mount(self) -> None:
        self._show_step("number")
        self.query_one("#pattern", Input).focus()

    # --- the steps, and what they hold ---

    @property
    def number_step(self) -> NumberStep:
        return self.query_one(NumberStep)

    @property
    def requirements_step(self) -> RequirementsStep:
        return self.query_one(RequirementsStep)

    @property
    def documents_step(self) -> DocumentsStep:
        return self.query_one(DocumentsStep)

    @property
    def requirements(self) -> Any:
        return self.requirements_step.requirements

    @property
    def documents(self) -> list[DocumentEntry]:
        return self.documents_step.entries

    @property
    def banner(self) -> Banner:
        return self.query_one("#wizard-banner", Banner)

    def _tell(self, text: str, retry: Any = None) -> None:
        self.banner.show(text, retry=retry)  # shown literally: server messages quote brackets

    def sequence(self) -> list[str]:
        if self.requirements_step.verified_kyc:
            return ["number", "requirements", "review", "submit"]
        return list(STEPS)

    def is_dirty(self) -> bool:
        """Anything typed or chosen that has not been sent."""
        if self.phase == "done":
            return False
        for widget in self.query(Input):
            if widget.id in ("country", "picker-root"):
                continue
            if widget.value.strip():
                return True
        return self.number_step.selected is not None

    def build_application(self) -> RentalApplication:
        number = self.number_step
        return build_application(number.number, number.filters, verified_kyc=self.requirements_step.verified_kyc,
                                 end_user=self.query_one(EndUserStep).values(),
                                 documents=self.documents_step.values())

    def _costs(self) -> tuple[int | None, int | None, str | None]:
        requirements = self.requirements
        source: Any = self.number_step.selected if self.number_step.selected is not None else requirements
        if source is None:
            return None, None, None
        currency = source.currency or (requirements.currency if requirements else None)
        return source.monthly_rent_nanos, source.setup_nanos, currency

    def charge_text(self) -> str:
        return charge_text(*self._costs())

    # --- moving between steps ---

    def _show_step(self, step: str) -> None:
        self.step = step
        self.query_one(ContentSwitcher).current = f"step-{step}"
        skipped = set(STEPS) - set(self.sequence())
        self.query_one(StepIndicator).show(step, skipped)
        self._update_nav()
        if step == "requirements":
            self._ensure_requirements()
        elif step == "review":
            rent, _, currency = self._costs()
            self.query_one(ReviewStep).show_application(self.build_application(), self.documents,
                                                        self.charge_text(), rent, currency)

    def _update_nav(self) -> None:
        step = self.step
        back = self.query_one("#wizard-back", Button)
        nxt = self.query_one("#wizard-next", Button)
        back.disabled = step == "number" or self.phase in ("sending", "checking")
        nxt.display = step != "submit"
        nxt.label = "Rent…" if step == "review" else "Next"
        nxt.variant = "warning" if step == "review" else "primary"
        nxt.disabled = self._blocked == "not_configured" or (
            self._blocked == "ineligible" and step in ("requirements", "review"))

    @work(exclusive=True, group="wizard-files", exit_on_error=False)
    async def _check_files_then_next(self, entries: list[DocumentEntry]) -> None:
        await asyncio.gather(*(self.documents_step.probe(entry, entry.path_text) for entry in entries))
        if self.step == "documents" and not self.documents_step.unchecked():
            self.action_next()

    def _check_step(self, step: str) -> bool:
        fine = self.query_one(f"#step-{step}", Step).check()
        if self._blocked == "not_configured" or (self._blocked and step == "requirements"):
            return False
        if step == "requirements" and self.requirements is None and not self.requirements_step.missing:
            self.notify("The requirements are still loading.", severity="warning")
            return False
        if step == "documents":
            fine = self.documents_step.check_files() and fine
        return fine

    @on(Button.Pressed, "#wizard-next")
    def action_next(self) -> None:
        if self._submitting or self.step == "submit":
            return
        if self.step == "documents" and self.documents_step.unchecked():
            # A file still being checked: Next goes on once every check is in.
            self._check_files_then_next(self.documents_step.unchecked())
            return
        if not self._check_step(self.step):
            self.app.bell()
            self._show_first_problem()
            return
        if self.step == "review":
            self._confirm_and_submit()
            return
        if self.step == "number":
            self.number_step.settle()
        sequence = self.sequence()
        self.banner.clear()
        self._show_step(sequence[sequence.index(self.step) + 1])
        self._focus_first_input()

    @on(Button.Pressed, "#wizard-back")
    def action_back(self) -> None:
        if self._countdown_timer is not None:
            # Waiting out a 429 is the one wait the user may stop: nothing is in flight.
            self._stop_countdown()
            self.phase = "editing"
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
            self.number_step.search()
            return
        if event.input.id == "number":
            self.action_next()  # the number is all this step needs
            return
        inputs = list(self.query_one(f"#step-{self.step}").query(Input))
        if event.input in inputs and inputs.index(event.input) + 1 < len(inputs):
            inputs[inputs.index(event.input) + 1].focus()
        else:
            self.query_one("#wizard-next", Button).focus()

    def _say_what_to_fix(self, found: tuple[Input, Static | None, str, int] | None) -> None:
        """The banner names the step's first marked field, or goes once none is marked."""
        if found is None:
            self.banner.clear()
            return
        _widget, _status, problem, count = found
        more = f" (and {count - 1} more marked below)" if count > 1 else ""
        self._tell(f"{FIX_FIRST}{problem or 'the marked field'}{more}")

    @on(Input.Changed)
    def _recount_what_to_fix(self) -> None:
        # A banner that said "Fix before going on: the PAN" went on saying it after the PAN was
        # put right: it follows the marks as they are typed away (after the field's own check).
        def recount() -> None:
            if self.banner.message.startswith(FIX_FIRST):
                self._say_what_to_fix(first_problem(self.query_one(f"#step-{self.step}")))

        if self.banner.message.startswith(FIX_FIRST):
            self.call_after_refresh(recount)

    def _show_first_problem(self) -> None:
        """Bring the first marked field of this step into view, focus it and name it in the banner."""
        found = first_problem(self.query_one(f"#step-{self.step}"))
        if found is None:
            return
        widget, status, _problem, _count = found
        self._say_what_to_fix(found)
        widget.focus(scroll_visible=False)

        def reveal() -> None:
            # The error line sits under the field: show both, the field winning if they do not fit.
            if status is not None:
                self.scroll_to_widget(status, animate=False, immediate=True)
            self.scroll_to_widget(widget, animate=False, immediate=True)

        self.call_after_refresh(reveal)

    def action_show_keys(self) -> None:
        """The wizard's own keys, not the editing keys of the field that has the focus."""
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

        def leave() -> None:
            self.phase = "done"
            self.dismiss(None)

        confirm_then(self.app, Confirm("Leave the wizard? What you typed has not been sent and will be lost.",
                                       yes="Leave and discard", no="Stay", danger=True), leave)

    def typed(self) -> TypedApplication:
        """What was typed, for the next wizard of this session."""
        documents = {entry.type_id: (entry.path_text, entry.data_fields())
                     for entry in self.documents if entry.type_id}
        return TypedApplication(self.query_one(EndUserStep).values(), documents)

    def dismiss(self, result: Rental | None = None) -> AwaitComplete:
        if self._memory is not None and not answered_already(self):
            self._memory.remember(self.typed())
        return super().dismiss(result)

    # --- the search and the requirements: what concerns the whole wizard ---

    def _ensure_requirements(self) -> None:
        asked = self.number_step.asked()
        if self.requirements_step.known_for(asked):
            self._render_requirements()
            return
        self.requirements_step.load(asked)

    def retry_requirements(self) -> None:
        self.requirements_step.forget()
        self._ensure_requirements()

    def _render_requirements(self) -> None:
        self.requirements_step.render_for(self.number_step.asked(), self.number_step.number_shown(),
                                          self.charge_text())

    @on(RequirementsLoaded)
    async def _requirements_loaded(self, message: RequirementsLoaded) -> None:
        self.requirements_step.took(message)
        requirements = message.requirements
        if requirements is not None and not requirements.eligibility.eligible:
            self._blocked = "ineligible"
        elif self._blocked == "ineligible":
            self._blocked = None
        types: list[DocumentType | None] = [None]  # no requirements: one document, named by hand
        if requirements is not None:
            types = list(requirements.document_types)
        if requirements is not None and requirements.verified_kyc:
            types = []
        await self.documents_step.rebuild(types)
        self.documents_step.allow_adding(requirements is None)
        self._render_requirements()
        if self.step == "requirements":
            self._show_step("requirements")

    @on(RentingUnavailable)
    def _unavailable(self) -> None:
        """503 telephony_not_configured: nothing on this deployment can rent a number."""
        self._blocked = "not_configured"
        self._update_nav()
        self._tell("Rentals are unavailable on this deployment (HTTP 503, "
                   "telephony_not_configured). Nothing was sent or charged.")

    # --- where a failure lands: the step and field it names, the form keeping every value ---

    def _land(self, error: errors.ApiError | RentalValidationError) -> None:
        """Show a failure on the step it concerns, focus where the person acts on it (the field it
        marks, else Retry, else the step's button); the form keeps every value."""
        self._land_on(error)
        self.call_after_refresh(self._focus_after_landing)

    def _focus_after_landing(self) -> None:
        marked = marked_inputs(self.query_one(f"#step-{self.step}"))
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
        requirements = self.requirements
        advice = advice_for(error, reason=requirements.eligibility.reason if requirements else None)
        if advice.fields:
            self._mark([landing_for(detail) for detail in advice.fields])
        elif isinstance(error, errors.DocumentInvalid):
            self.documents_step.mark_invalid(error)
        if advice.blocked:
            self._blocked = "ineligible"
        if advice.step is not None:
            self._show_step(advice.step)
        if advice.unavailable:
            self._unavailable()
        else:
            self._tell(advice.text, retry=self.submit if advice.retry else None)

    def _mark(self, landings: list[Landing]) -> None:
        self._show_step(mark_landings(self, landings))
