"""Step 2, the requirements: whether this account may rent, and what the carrier needs for it."""

from __future__ import annotations

from collections.abc import Callable

from textual import work
from textual.app import ComposeResult
from textual.content import Content
from textual.message import Message
from textual.widgets import Static

from vap_console.api import errors
from vap_console.api.models import RentalRequirements
from vap_console.tui import untrusted
from vap_console.tui.failures import ApiFailed
from vap_console.tui.screens.wizard.fields import RentingUnavailable, Step
from vap_console.tui.services import WizardHost
from vap_console.tui.untrusted import Literal


class RequirementsLoaded(Message):
    """Bubbles to the wizard: the documents and the way on depend on what came."""

    def __init__(self, requirements: RentalRequirements | None, asked: tuple[str, str]) -> None:
        super().__init__()
        self.requirements = requirements  # None: the server does not offer the extension
        self.asked = asked


class RequirementsStep(Step):
    """The requirements for the country and number type asked (GET /v1/phone-numbers/requirements,
    an extension: a server without it leaves the documents to be named by hand)."""

    def __init__(self, services: WizardHost, retry: Callable[[], object]) -> None:
        """``retry``: what Retry in the banner runs after a failed load (the wizard asks again
        for the number as it is then)."""
        super().__init__(id="step-requirements")
        self._services = services
        self._retry = retry
        self.requirements: RentalRequirements | None = None
        self.asked_for: tuple[str, str] | None = None
        self.missing = False  # the server has no requirements extension

    def compose(self) -> ComposeResult:
        yield Literal("", id="requirements")

    @property
    def verified_kyc(self) -> bool:
        return self.requirements is not None and self.requirements.verified_kyc

    def known_for(self, asked: tuple[str, str]) -> bool:
        """Loaded (or known to be missing) for these country and number type."""
        return self.asked_for == asked and (self.requirements is not None or self.missing)

    def load(self, asked: tuple[str, str]) -> None:
        self.query_one("#requirements", Static).update("Loading the requirements…")
        self._load(asked)

    def forget(self) -> None:
        self.asked_for = None

    def took(self, message: RequirementsLoaded) -> None:
        self.asked_for = message.asked
        self.requirements = message.requirements
        self.missing = message.requirements is None

    @work(exclusive=True, group="wizard-requirements", exit_on_error=False)
    async def _load(self, asked: tuple[str, str]) -> None:
        try:
            requirements = await self._services.call_api(lambda client: client.rental_requirements(*asked))
        except errors.NotSupported:
            self.post_message(RequirementsLoaded(None, asked))
            return
        except errors.NotConfigured:
            self.failed()
            self.post_message(RentingUnavailable())
            return
        except errors.ApiError as error:
            self.failed()
            self.post_message(ApiFailed(error, self._retry, origin=self.screen))
            return
        self.post_message(RequirementsLoaded(requirements, asked))

    def failed(self) -> None:
        self.query_one("#requirements", Static).update("The requirements could not be loaded.")

    def render_for(self, asked: tuple[str, str], number_shown: str, charge: str) -> None:
        country, number_type = self.asked_for or asked
        lines = [untrusted.markup("[b]Number[/] $n", n=number_shown),
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
        lines.append(untrusted.content(f"Charged to the wallet when you submit: {charge}"))
        self.query_one("#requirements", Static).update(Content("\n").join(lines))
