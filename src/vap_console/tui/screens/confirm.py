"""The yes/no question lives with the other dialogs (tui/screens/dialog.py); kept for its importers."""

from vap_console.tui.screens.dialog import ConfirmScreen

__all__ = ["ConfirmScreen"]
