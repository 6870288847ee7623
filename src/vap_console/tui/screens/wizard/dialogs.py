"""The wizard's dialogs live with the console's others (tui/screens/dialog.py); kept for its imports."""

from vap_console.tui.screens.dialog import DOCUMENT_SUFFIXES, Confirm, DocumentTree, FilePicker

__all__ = ["DOCUMENT_SUFFIXES", "Confirm", "DocumentTree", "FilePicker"]
