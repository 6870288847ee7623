"""Step 6, the submission: the upload with its progress, and, when an answer is lost, the look
for the rental that must come before anything is sent again. What to do after a failure is
decided Textual-free (``api/rental_form.py``); the wizard acts on these messages."""

from __future__ import annotations

from collections.abc import Callable

from textual import work
from textual.app import ComposeResult
from textual.message import Message
from textual.widgets import ProgressBar, Static

from vap_console.api import errors
from vap_console.api.models import Rental
from vap_console.api.rental import RentalApplication, RentalValidationError
from vap_console.api.rental_form import Submission, sent_rental, unexpected_failure
from vap_console.tui.screens.wizard.fields import Step
from vap_console.tui.screens.wizard.rules import human_size
from vap_console.tui.services import WizardHost
from vap_console.tui.untrusted import Literal


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


class SubmitStep(Step):
    def __init__(self, services: WizardHost) -> None:
        super().__init__(id="step-submit")
        self._services = services

    def compose(self) -> ComposeResult:
        yield Literal("", id="submit-status")
        yield ProgressBar(total=100, show_eta=False, id="upload")
        yield Literal("", id="submit-detail", classes="hint")

    def say(self, text: str) -> None:
        self.query_one("#submit-status", Static).update(text)

    def begin(self, text: str) -> None:
        self.say(text)
        self.query_one("#submit-detail", Static).update("")
        self.query_one("#upload", ProgressBar).update(total=100, progress=0)

    def show_progress(self, sent: int, total: int) -> None:
        self.query_one("#upload", ProgressBar).update(total=max(total, 1), progress=sent)
        self.query_one("#submit-detail", Static).update(f"Uploaded {human_size(sent)} of {human_size(total)}")

    @work(exclusive=True, group="wizard-submit", exit_on_error=False)
    async def send(self, application: RentalApplication, key: str,
                   on_progress: Callable[[int, int], None]) -> None:
        try:
            # Never sent again by call_api, not even after a 429: the wizard waits out Retry-After
            # itself, on this step, and sends again with the same Idempotency-Key.
            rental = await self._services.call_api(
                lambda client: client.rent_number(application, idempotency_key=key, on_progress=on_progress),
                resend=False)
        except (errors.ApiError, RentalValidationError) as error:
            self.post_message(SubmitFailed(error))
            return
        except OSError as error:  # a file vanished or shrank mid-upload
            self.post_message(SubmitFailed(RentalValidationError([("documents", str(error))])))
            return
        except Exception as error:  # noqa: BLE001 - whatever broke, the request may have gone out
            self.post_message(SubmitFailed(unexpected_failure(error)))
            return
        self.post_message(Submitted(rental))

    async def _get_rental(self, rental_id: str) -> Rental:
        return await self._services.call_api(lambda client: client.get_rental(rental_id))

    @work(exclusive=True, group="wizard-outcome", exit_on_error=False)
    async def look_for_rental(self, submission: Submission) -> None:
        """After a lost answer: the rental this submission created, if the server has it."""
        assert submission.application is not None
        number = submission.application.requested_number
        since = submission.since()
        where = "the server's rental list"
        try:
            try:
                candidates = (await self._services.call_api(lambda client: client.list_rentals())).items
            except errors.NotSupported:
                where = "the rentals this profile remembers (this server has no rental list)"
                index = self._services.local_index
                ids = await index.ids("rentals") if index is not None else []
                candidates = [await self._get_rental(rental_id) for rental_id in ids]
        except errors.ApiError as error:
            self.post_message(OutcomeChecked(None, error))
            return
        self.post_message(OutcomeChecked(sent_rental(candidates, number, since), where=where))
