"""Step 5, the review: everything that will be sent, and what it charges, before Rent… asks."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.content import Content
from textual.widgets import Static

from vap_console.api.rental import RentalApplication
from vap_console.api.rental_form import found_with
from vap_console.tui import untrusted
from vap_console.tui.format import e164, money
from vap_console.tui.screens.wizard.documents import DocumentEntry
from vap_console.tui.screens.wizard.fields import Step
from vap_console.tui.screens.wizard.rules import END_USER_FIELDS, human_size
from vap_console.tui.untrusted import Literal

# The server takes the first charge up front only when the wallet covers it; we cannot see the
# balance, so the wallet's two outcomes are both said before anything is sent.
SHORT_WALLET = "If the wallet holds less, the rental waits (funding) until auto-pay tops the wallet up."


class ReviewStep(Step):
    def __init__(self) -> None:
        super().__init__(id="step-review")

    def compose(self) -> ComposeResult:
        yield Literal("", id="review")

    def show_application(self, application: RentalApplication, entries: list[DocumentEntry], charge: str,
                         rent: int | None, currency: str | None) -> None:
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
            for entry, document in zip(entries, application.documents):
                title = entry.doc_type.label if entry.doc_type else document.document_type_id
                lines.append(untrusted.content(f"  {title} ({document.document_type_id})"))
                for key, value in document.data_fields.items():
                    lines.append(untrusted.content(f"    {key}: {value}"))
                check = entry.current_check
                if check is not None and not check.problems:
                    lines.append(untrusted.content(
                        f"    file {check.name} · {human_size(check.size)} · {check.kind or 'unknown type'}"))
        lines.append(Content(""))
        lines.append(untrusted.markup("[b $warning]Charged to the wallet up front:[/] $c", c=charge))
        lines.append(untrusted.content(f"  {SHORT_WALLET}"))
        if rent is not None:
            lines.append(untrusted.content(f"  then {money(rent, currency)} every month while the number is kept"))
        lines.append(Content(""))
        lines.append(Content("Rent… asks once more before anything is sent or charged."))
        self.query_one("#review", Static).update(Content("\n").join(lines))
