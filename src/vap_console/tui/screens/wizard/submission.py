"""The wizard's submission flow: confirm, send, and what follows the answer (a 429's countdown, the
look for a rental whose answer was lost, the rental's own screen once it exists).

``SubmissionFlow`` is the part of ``RentalWizard`` that owns the phase of the submission; the
wizard (``screen.py``) keeps moving between steps and where a failure lands. What a failure
means (send again, wait, look first) is decided Textual-free in ``api/rental_form.py``; the
network calls are the submit step's workers (``submit.py``).
"""

from __future__ import annotations

import asyncio
from datetime import datetime
from functools import partial
from typing import Literal as Kind

from textual import on, work
from textual.timer import Timer

from vap_console.api import errors
from vap_console.api.models import Rental, RentalStatus
from vap_console.api.rental import RentalApplication, RentalValidationError
from vap_console.api.rental_form import Submission, lost_reason, next_move
from vap_console.tui.format import e164
from vap_console.tui.screens.dialog import Confirm, Dialog, confirm_then
from vap_console.tui.screens.rental import RentalScreen
from vap_console.tui.screens.wizard.documents import DocumentsStep
from vap_console.tui.screens.wizard.review import SHORT_WALLET
from vap_console.tui.screens.wizard.submit import OutcomeChecked, SubmitFailed, SubmitStep, Submitted
from vap_console.tui.services import WizardHost
from vap_console.tui.widgets.banner import Banner

# Where the submission is: editing (nothing in flight), sending (the POST is out), waiting (a 429's
# Retry-After, the one wait the user may stop), checking (an answer was lost: looking for the
# rental before anything is sent again), done (rented, or left with nothing kept).
Phase = Kind["editing", "sending", "waiting", "checking", "done"]


class SubmissionFlow(Dialog[Rental | None]):
    """Confirm, send, wait out a 429, look for a lost answer's rental. Dismisses with the rental."""

    def __init__(self, services: WizardHost) -> None:
        super().__init__()
        self.services = services
        self.phase: Phase = "editing"
        self._submission = Submission(self._now)
        self._countdown = 0
        self._countdown_timer: Timer | None = None

    def _now(self) -> datetime:
        return self.services.now()

    # --- what the wizard provides ---

    @property
    def documents_step(self) -> DocumentsStep:
        raise NotImplementedError

    @property
    def banner(self) -> Banner:
        raise NotImplementedError

    def build_application(self) -> RentalApplication:
        raise NotImplementedError

    def charge_text(self) -> str:
        raise NotImplementedError

    def _show_step(self, step: str) -> None:
        raise NotImplementedError

    def _update_nav(self) -> None:
        raise NotImplementedError

    def _tell(self, text: str, retry: object = None) -> None:
        raise NotImplementedError

    def _land(self, error: errors.ApiError | RentalValidationError) -> None:
        raise NotImplementedError

    # --- the submission: confirm, send, and what follows the answer ---

    @property
    def submit_step(self) -> SubmitStep:
        return self.query_one(SubmitStep)

    @property
    def _submitting(self) -> bool:
        """Something is in flight or due: the form may not be sent again nor left."""
        return self.phase in ("sending", "waiting", "checking")

    @work(exclusive=True, group="wizard-confirm", exit_on_error=False)
    async def _confirm_and_submit(self) -> None:
        application = self.build_application()
        problems = await asyncio.to_thread(application.problems)  # stats and reads each file
        if problems:
            self._land(RentalValidationError(problems))
            return

        confirm_then(self.app, Confirm(
            f"This charges {self.charge_text()} to your wallet up front. {SHORT_WALLET}",
            title=f"Rent {e164(application.number)}?", yes="Charge the wallet and rent",
        ), partial(self.submit, application))

    @property
    def idempotency_key(self) -> str | None:
        return self._submission.key

    def submit(self, application: RentalApplication | None = None) -> None:
        application = application or self.build_application()
        self._stop_countdown()
        key = self._submission.start(application, self.documents_step.sizes())
        self.phase = "sending"
        self.banner.clear()
        self._show_step("submit")
        self.submit_step.begin(f"Sending the rental of {e164(application.number)}…")
        self.submit_step.send(application, key, self._progress)

    def _progress(self, sent: int, total: int) -> None:
        self.submit_step.show_progress(sent, total)

    @on(Submitted)
    def _submitted(self, message: Submitted) -> None:
        self.phase = "done"
        rental = message.rental
        index = self.services.local_index
        if index is not None:
            index.add("rentals", rental.id)  # written off the UI loop; a failure is said in a toast
        note = "The rental had been created after all." if message.recovered else "Rental created."
        if rental.status == RentalStatus.FUNDING:
            note += (" The wallet is short: it waits for auto-pay to top the wallet up, then the "
                     "rent is taken and the KYC goes to the carrier.")
        self.notify(f"{note} Following its progress.", title=rental.status)
        self.dismiss(rental)
        self.app.push_screen(RentalScreen(rental.id, rental=rental, services=self.services))

    @on(SubmitFailed)
    def _submit_failed(self, message: SubmitFailed) -> None:
        error = message.error
        move = next_move(error)
        if move == "check" and isinstance(error, errors.ApiError):
            self._submission.lost = lost_reason(error)
            self._look_for_rental(f"{self._submission.lost}: the rental may exist. "
                                  "Checking before anything is sent again…")
        elif move == "wait" and isinstance(error, errors.RateLimited):
            self._start_countdown(error)
        else:
            self.phase = "editing"
            self._land(error)

    # --- 429: wait Retry-After, then send again with the same key ---

    def _start_countdown(self, error: errors.RateLimited) -> None:
        self.phase = "waiting"
        self._countdown = max(1, round(error.retry_after or 1))
        self._tick_countdown()
        self._countdown_timer = self.set_interval(1, self._tick_countdown)
        self._update_nav()

    def _tick_countdown(self) -> None:
        if self._countdown <= 0:
            self._stop_countdown()
            self.submit(self._submission.application)
            return
        self.submit_step.say(
            f"The key's request budget is spent (HTTP 429, rate_limited). "
            f"Sending again in {self._countdown} s with the same Idempotency-Key…")
        self._countdown -= 1

    def _stop_countdown(self) -> None:
        if self._countdown_timer is not None:
            self._countdown_timer.stop()
            self._countdown_timer = None

    # --- lost answers: look before sending again ---

    def _look_for_rental(self, text: str) -> None:
        self.phase = "checking"
        self.submit_step.say(text)
        self.submit_step.look_for_rental(self._submission)

    def _recheck(self) -> None:
        self.phase = "checking"  # before the step is shown: Back is off while the check runs
        self._show_step("submit")
        self._look_for_rental("Checking whether the rental exists…")

    @on(OutcomeChecked)
    def _outcome_checked(self, message: OutcomeChecked) -> None:
        if message.rental is not None:
            self.post_message(Submitted(message.rental, recovered=True))
            return
        self.phase = "editing"
        self._show_step("review")
        lost = self._submission.lost
        if message.error is not None:
            self._tell(
                f"{lost}, and checking whether the rental exists failed too: "
                f"{message.error} Check again before sending anything.",
                retry=self._recheck,
            )
            return
        self._tell(
            f"{lost}, and {message.where} holds no new rental for this number: it is "
            "safe to send again. Retry uses the same Idempotency-Key, so the server cannot rent twice.",
            retry=self.submit,
        )
