"""The console's dialogs, in one module: what every dialog shares (`?` or F1 lists its keys, a key
bar of its own, answered once), the yes/no question, the document file picker and the area menu.

A dialog covers the screen it opened from; without its own key bar the bottom line would go on
showing that screen's keys, which do nothing while the dialog is up.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any, ClassVar, TypeVar

from rich.text import Text, TextType
from textual import events, on, work
from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import Screen
from textual.widget import Widget
from textual.widgets import Button, DirectoryTree, Input, OptionList, Static
from textual.widgets.option_list import Option

from vap_console.tui import breakpoints, untrusted
from vap_console.tui.areas import AREA_HELP, AREAS
from vap_console.tui.screens.answers_once import AnswersOnce
from vap_console.tui.screens.keys_help import KeysHelpScreen
from vap_console.tui.widgets.key_bar import KeyBar

T = TypeVar("T")


class DialogBox(VerticalScroll, can_focus=False):
    """A dialog's frame (class "dialog"): on a short terminal its body scrolls and its docked
    buttons stay on screen. Not a stop for Tab, so the first field or button gets the focus and
    Tab moves between them as before (each scrolled into view as it is focused)."""


class Dialog(AnswersOnce[T]):
    LABEL: ClassVar[str] = "Dialog"
    # The console's bands, also when a dialog runs in another app (the wizard's test host).
    HORIZONTAL_BREAKPOINTS = breakpoints.HORIZONTAL
    VERTICAL_BREAKPOINTS = breakpoints.VERTICAL
    BINDINGS = [
        Binding("question_mark,f1", "show_keys", "Keys", id="dialog.keys", tooltip="Show this dialog's keys"),
    ]

    @on(events.Mount)
    def _size_classes(self) -> None:
        breakpoints.apply_now(self, *self.app.size)

    @on(events.Mount)
    def _add_key_bar(self) -> None:
        if not self.query(KeyBar):
            self.mount(KeyBar())

    def action_show_keys(self) -> None:
        self.app.push_screen(KeysHelpScreen(self))

    @property
    def focus_chain(self) -> list[Widget]:
        """Tab's order: the fields as shown, then the docked buttons, however far the body is
        scrolled.

        Textual orders focus by where each widget sits in its container's scrolled space. A row
        docked at the frame's bottom stays put while the fields scroll under it, so on a short
        terminal a field scrolled below the row's place came after the buttons: after a click
        (which does not scroll) Tab jumped from Base URL over the API key to "Verify and save",
        and the key typed next was lost.
        """
        chain = super().focus_chain
        return ([widget for widget in chain if not _docked_at_bottom(widget)]
                + [widget for widget in chain if _docked_at_bottom(widget)])


def _docked_at_bottom(widget: Widget) -> bool:
    """Whether ``widget`` is in a row docked at the bottom of its dialog (its buttons)."""
    return any(isinstance(node, Widget) and node.styles.dock == "bottom"
               for node in widget.ancestors_with_self if not isinstance(node, Screen))


# --- yes or no ---


def billed_call_keys(no: tuple[str, str], yes: tuple[str, str, str]) -> list[BindingType]:
    """The two keys of a confirm before a billed call: Esc or n starts nothing, y starts it.
    ``no``: (keymap id, tooltip); ``yes``: (keymap id, what the key says, tooltip)."""
    return [
        Binding("escape,n", "answer(False)", "Cancel", id=no[0], tooltip=no[1]),
        Binding("y", "answer(True)", yes[1], id=yes[0], tooltip=yes[2]),
    ]


class Confirm(Dialog[bool]):
    """The console's one yes/no question: an optional title, the question, ``yes (y)`` and
    ``no (n)`` buttons; y answers yes, n or Esc no, the safe answer has the focus.

    ``danger``: the yes button is red (deleting, discarding); otherwise amber (charging, replacing).
    """

    LABEL = "Confirm"
    # The same look as console.tcss's .dialog rules, for a host that does not load the console's
    # stylesheet (the wizard's test host); in the console its rules win and agree.
    DEFAULT_CSS = """
    Confirm { align: center middle; }
    Confirm > DialogBox {
        width: 72; max-width: 100%; height: auto; max-height: 100%; padding: 1 2;
        border: thick $accent; background: $surface;
    }
    Confirm .dialog-title { text-style: bold; color: $accent; margin-bottom: 1; }
    Confirm .dialog-body { margin-bottom: 1; }
    Confirm .dialog-buttons {
        dock: bottom; height: auto; margin-top: 1; align-horizontal: right; background: $surface;
    }
    Confirm .dialog-buttons Button { margin-left: 2; }
    Confirm.-short > DialogBox { padding: 0 1; }
    Confirm.-short .dialog-title { margin-bottom: 0; }
    Confirm.-short .dialog-buttons { margin-top: 0; }
    /* !important: the variants' borders (Button.-style-default.-warning) outrank this rule */
    Confirm.-short .dialog-buttons Button { height: 1; border: none !important; }
    """
    BINDINGS = [
        Binding("escape,n", "answer(False)", "No", id="confirm.no", tooltip="Do nothing"),
        Binding("y", "answer(True)", "Yes", id="confirm.yes", tooltip="Go ahead"),
    ]
    AUTO_FOCUS = "#no"

    def __init__(self, question: str, *, yes: str, no: str = "Cancel", title: str = "",
                 danger: bool = False) -> None:
        super().__init__()
        self.question = question
        self.title_text = title
        self.yes_label = yes
        self.no_label = no
        self.danger = danger

    def on_mount(self) -> None:
        self.query_one("#no", Button).focus()

    def action_answer(self, value: bool) -> None:
        self.dismiss(value)

    def compose(self) -> ComposeResult:
        with DialogBox(classes="dialog"):
            yield from question_head(self.title_text, self.question, "confirm-text")
            with Horizontal(classes="dialog-buttons"):
                yield Button(untrusted.content(f"{self.yes_label} (y)"), id="yes",
                             variant="error" if self.danger else "warning")
                yield Button(untrusted.content(f"{self.no_label} (n)"), id="no")

    @on(Button.Pressed, "#yes")
    def _yes_pressed(self) -> None:
        self.dismiss(True)

    @on(Button.Pressed, "#no")
    def _no_pressed(self) -> None:
        self.dismiss(False)


class Choice(Dialog[str | None]):
    """A question with a few answers, a button and a key each, and Cancel: Esc or Cancel
    answers None, so leaving the dialog never picks an answer (a yes/no "JSON (y) or CSV (n)?"
    wrote a CSV on Esc). A subclass names its ``ANSWERS`` and binds their keys to
    ``answer('<value>')``; the first answer has the focus."""

    LABEL = "Choose"
    # The same frame as the yes/no question.
    DEFAULT_CSS = Confirm.DEFAULT_CSS.replace("Confirm", "Choice")
    # (value answered, button label with its key); Cancel is added after them.
    ANSWERS: ClassVar[tuple[tuple[str, str], ...]] = ()
    BINDINGS = [
        Binding("escape", "answer('')", "Cancel", id="choice.cancel", tooltip="Do nothing"),
    ]

    def __init__(self, question: str, *, title: str = "") -> None:
        super().__init__()
        self.question = question
        self.title_text = title

    def compose(self) -> ComposeResult:
        with DialogBox(classes="dialog"):
            yield from question_head(self.title_text, self.question, "choice-text")
            with Horizontal(classes="dialog-buttons"):
                for value, label in self.ANSWERS:
                    yield Button(untrusted.content(label), id=f"choice-{value}", name=value)
                yield Button("Cancel (Esc)", id="choice-cancel", name="")

    def on_mount(self) -> None:
        self.query(Button).first().focus()

    def action_answer(self, value: str) -> None:
        self.dismiss(value or None)

    @on(Button.Pressed)
    def _pressed(self, event: Button.Pressed) -> None:
        self.dismiss(event.button.name or None)


class ExportFormat(Choice):
    """Which format an export is written in: ``json``, ``csv``, or None (cancelled)."""

    LABEL = "Export format"
    ANSWERS = (("json", "JSON (j)"), ("csv", "CSV (c)"))
    BINDINGS = [
        Binding("j", "answer('json')", "JSON", id="export.json", tooltip="Write one JSON document"),
        Binding("c", "answer('csv')", "CSV", id="export.csv", tooltip="Write a CSV, a row per call"),
    ]


def question_head(title: str, question: str, text_id: str) -> ComposeResult:
    """A question's title (when it has one) and its text. Both quote server names: shown literally."""
    if title:
        yield Static(untrusted.content(title), classes="dialog-title")
    yield Static(untrusted.content(question), id=text_id, classes="dialog-body")


def confirm_then(app: App[Any], question: Confirm, act: Callable[[], object]) -> None:
    """Confirm-then-act, written once: show ``question``; ``act`` runs only on an explicit yes
    (no, Esc, or a second answer from one gesture: nothing is done, nothing is sent).

    Not a worker awaiting ``push_screen_wait``: such a worker would count as running for as long
    as the question is up, so "no worker runs" would no longer mean the console is idle.
    """

    def answered(yes: bool | None) -> None:
        if yes is True:
            act()

    app.push_screen(question, answered)


# --- the document file picker ---

DOCUMENT_SUFFIXES = frozenset({".pdf", ".jpg", ".jpeg", ".png"})


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
            # The folder's name may hold anything (it is where the last file was picked): shown
            # with its control characters visible, the real folder kept in self.start.
            yield untrusted.LiteralInput(str(self.start), id="picker-root", placeholder="folder to browse")
            yield DocumentTree(self.start, id="picker-tree")
            yield Static("Enter on a file picks it · Esc cancels", id="picker-hint")

    def on_mount(self) -> None:
        self.query_one(DocumentTree).focus()

    @on(Input.Submitted, "#picker-root")
    @work(exclusive=True, group="picker-root", exit_on_error=False)
    async def _new_root(self, event: Input.Submitted) -> None:
        unchanged = event.value == untrusted.clean(str(self.start), multiline=False)
        typed = str(self.start) if unchanged else event.value
        root = await asyncio.to_thread(Path(typed).expanduser)  # may read the password database
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


# --- the areas, for the mouse ---


class AreaMenu(Dialog[str | None]):
    """The areas to go to, for someone with a mouse in hand (opened by a click on the top line):
    answers the action that goes there (``area('tools')``, ``profiles``), or None."""

    LABEL = "Areas"
    # The frame is console.tcss's .dialog, as for every dialog (the menu opens only in the console).
    DEFAULT_CSS = "AreaMenu OptionList { height: auto; max-height: 100%; border: none; }"
    BINDINGS = [Binding("escape", "cancel", "Close", id="areas.close", tooltip="Stay where you are")]

    def __init__(self, current: str = "") -> None:
        super().__init__()
        self.current = current

    def compose(self) -> ComposeResult:
        options = [Option(f"{key}  {label}  · {AREA_HELP[mode]}", id=f"area('{mode}')")
                   for mode, label, key in AREAS]
        options.append(Option("7  Profiles  · Profiles and their API keys", id="profiles"))
        options.sort(key=lambda option: str(option.prompt).split()[0])  # by key: Profiles is 7
        with DialogBox(classes="dialog"):
            yield OptionList(*options, id="area-menu")

    def on_mount(self) -> None:
        menu = self.query_one(OptionList)
        wanted = next((f"area('{mode}')" for mode, label, _key in AREAS if label == self.current), None)
        menu.highlighted = next((i for i in range(menu.option_count)
                                 if menu.get_option_at_index(i).id == wanted), 0)
        menu.focus()

    @on(OptionList.OptionSelected)
    def _picked(self, event: OptionList.OptionSelected) -> None:
        self.dismiss(event.option.id)

    def on_click(self, event: events.Click) -> None:
        # A click beside the menu closes it, as a click outside a menu does everywhere.
        if self.get_widget_at(event.screen_x, event.screen_y)[0] is self:
            self.dismiss(None)

    def action_cancel(self) -> None:
        self.dismiss(None)
