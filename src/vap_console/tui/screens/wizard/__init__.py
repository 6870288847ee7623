"""The KYC rental wizard (issue 6): ``RentalWizard`` is the modal screen Numbers opens with ``n``."""

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from vap_console.tui.screens.wizard.screen import RentalWizard


def __getattr__(name: str) -> Any:
    # The rules and dialogs are imported at start-up (the rental screen uses them), the wizard
    # screen only when asked for: importing it is tens of milliseconds the first screen need not wait.
    if name == "RentalWizard":
        from vap_console.tui.screens.wizard.screen import RentalWizard

        return RentalWizard
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = ["RentalWizard"]
