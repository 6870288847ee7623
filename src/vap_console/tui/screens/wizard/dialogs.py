"""The wizard's two small dialogs: a yes/no confirm and the document file picker."""

from __future__ import annotations

import asyncio
from collections.abc import Iterable
from pathlib import Path

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from rich.text import Text, TextType
from textual.widgets import Button, DirectoryTree, Input, Static

from vap_console.tui import untrusted
from vap_console.tui.screens.dialog import Dialog, DialogBox

DOCUMENT_SUFFIXES = frozenset({".pdf", ".jpg", ".jpeg", ".png"})


class Confirm(Dialog[bool]):
    """Ask one question; dismiss(True) only on the explicit yes button."""
    LABEL = "Confirm"

    DEFAULT_CSS = """
    Confirm { align: center middle; }
    /* Never taller or wider than the terminal: the question scrolls, the buttons stay docked. */
    Confirm > DialogBox {
        width: 72; max-width: 100%; height: auto; max-height: 100%; padding: 1 2;
        border: thick $warning; background: $surface;
    }
    Confirm #confirm-text { margin-bottom: 1; }
    Confirm Horizontal { dock: bottom; height: auto; align-horizontal: right; background: $surface; }
    Confirm Button { margin-left: 2; }
    Confirm.-short > DialogBox { padding: 0 1; }
    /* !important: the variants' borders (Button.-style-default.-warning) outrank this rule */
    Confirm.-short Button { height: 1; border: none !important; }
    """
    BINDINGS = [
        Binding("escape", "no", "Cancel", id="confirm.cancel", tooltip="Close without doing it"),
    ]

    def __init__(self, question: str, *, yes: str, no: str = "Cancel") -> None:
        super().__init__()
        self.question = question
        self.yes_label = yes
        self.no_label = no

    def compose(self) -> ComposeResult:
        with DialogBox():
            yield Static(untrusted.content(self.question), id="confirm-text")
            with Horizontal():
                yield Button(self.no_label, id="confirm-no")
                yield Button(self.yes_label, id="confirm-yes", variant="warning")

    def on_mount(self) -> None:
        # The safe answer has the focus: Enter alone never charges a wallet.
        self.query_one("#confirm-no", Button).focus()

    @on(Button.Pressed, "#confirm-yes")
    def _yes(self) -> None:
        self.dismiss(True)

    @on(Button.Pressed, "#confirm-no")
    def action_no(self) -> None:
        self.dismiss(False)


class DocumentTree(DirectoryTree):
    """A directory tree that shows folders and only the file types the carrier accepts."""

    def process_label(self, label: TextType) -> Text:
        # A file's name is whatever its creator chose: shown literally, control characters visible.
        return super().process_label(untrusted.clean(label, multiline=False) if isinstance(label, str)
                                     else untrusted.clean_text(label, multiline=False))

    def filter_paths(self, paths: Iterable[Path]) -> Iterable[Path]:
        return [
            path
            for path in paths
            if not path.name.startswith(".")
            and (path.is_dir() or path.suffix.lower() in DOCUMENT_SUFFIXES)
        ]


class FilePicker(Dialog[Path | None]):
    """Pick a PDF, JPEG or PNG file: browse the tree, or type a folder to start from."""
    LABEL = "Choose a document"

    DEFAULT_CSS = """
    FilePicker { align: center middle; }
    FilePicker > Vertical {
        width: 90%; height: 80%; min-height: 12; max-height: 100%; padding: 0 1;
        border: thick $accent; background: $surface;
    }
    FilePicker #picker-title { text-style: bold; padding: 1 0 0 0; }
    FilePicker #picker-root { margin: 1 0; }
    FilePicker DocumentTree { height: 1fr; }
    FilePicker #picker-hint { color: $text-muted; }
    """
    BINDINGS = [
        Binding("escape", "cancel", "Cancel", id="picker.cancel", tooltip="Close without picking a file"),
    ]

    def __init__(self, start: Path) -> None:
        """``start``: a folder (the caller checks it, off the UI loop)."""
        super().__init__()
        self.start = start

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static("Choose a document (PDF, JPEG or PNG, at most 5 MB)", id="picker-title")
            yield Input(str(self.start), id="picker-root", placeholder="folder to browse")
            yield DocumentTree(self.start, id="picker-tree")
            yield Static("Enter on a file picks it · Esc cancels", id="picker-hint")

    def on_mount(self) -> None:
        self.query_one(DocumentTree).focus()

    @on(Input.Submitted, "#picker-root")
    @work(exclusive=True, group="picker-root", exit_on_error=False)
    async def _new_root(self, event: Input.Submitted) -> None:
        root = Path(event.value).expanduser()
        if await asyncio.to_thread(root.is_dir):
            tree = self.query_one(DocumentTree)
            tree.path = root
            tree.focus()
        else:
            self.notify(f"Folder: {root} is not a folder", severity="error")

    @on(DirectoryTree.FileSelected)
    def _picked(self, event: DirectoryTree.FileSelected) -> None:
        event.stop()
        self.dismiss(Path(event.path))

    def action_cancel(self) -> None:
        self.dismiss(None)
