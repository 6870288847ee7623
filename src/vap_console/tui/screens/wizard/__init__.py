"""The KYC rental wizard (issue 6): ``RentalWizard`` is the modal screen Numbers opens with ``n``."""

from vap_console.tui.screens.wizard.screen import RentalWizard

__all__ = ["RentalWizard"]
