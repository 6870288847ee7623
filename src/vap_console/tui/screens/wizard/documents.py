"""Step 4, the documents: one entry per document type the carrier asks for, each with its data
fields and its file, the file checked (off the UI loop) as soon as it is chosen."""

from __future__ import annotations

import asyncio
import functools
import socket
from pathlib import Path

from textual import on, work
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.dom import DOMNode
from textual.validation import Validator
from textual.widgets import Button, Input, Label, Static
from textual.worker import WorkType

from vap_console.api import errors
from vap_console.api.models import DocumentType
from vap_console.api.rental_form import DocumentValues, FileCheck, check_file
from vap_console.tui import untrusted
from vap_console.tui.screens.dialog import FilePicker
from vap_console.tui.screens.wizard.earlier import SessionMemory
from vap_console.tui.screens.wizard.fields import Field, Step, field
from vap_console.tui.screens.wizard.rules import (
    DataFieldsText,
    Required,
    data_field_id,
    data_field_rules,
    data_field_value,
    documents_named,
    human_size,
    parse_data_fields,
)
from vap_console.tui.untrusted import Literal


def entry_of(widget: DOMNode) -> DocumentEntry | None:
    """The document entry a path field or Browse button belongs to."""
    return next((node for node in widget.ancestors if isinstance(node, DocumentEntry)), None)


class DocumentEntry(Vertical):
    """One required document: its data fields and its file, checked as soon as it is chosen."""

    DEFAULT_CSS = """
    DocumentEntry { height: auto; border: round $primary 50%; padding: 0 1; margin-bottom: 1; }
    DocumentEntry .doc-title { text-style: bold; }
    DocumentEntry .doc-description { color: $text-muted; }
    DocumentEntry Horizontal { height: auto; }
    DocumentEntry Horizontal Input { width: 1fr; }
    DocumentEntry .doc-file { height: auto; }
    DocumentEntry .doc-file.-ok { color: $success; }
    DocumentEntry .doc-file.-bad { color: $error; }
    """

    def __init__(self, index: int, doc_type: DocumentType | None) -> None:
        super().__init__(id=f"doc-{index}")
        self.index = index
        self.doc_type = doc_type
        # The last check of the file, done off the UI loop; stale once the path is edited.
        self.checked: FileCheck | None = None
        # A path set from outside the keyboard whose text differs once made visible: (shown, real).
        self.picked: tuple[str, str] | None = None

    @property
    def current_check(self) -> FileCheck | None:
        """The check of the path as it is typed now, if it is done."""
        checked = self.checked
        return checked if checked is not None and checked.text == self.path_text else None

    @property
    def type_id(self) -> str:
        if self.doc_type is not None:
            return self.doc_type.id
        return self.query_one(f"#doc-{self.index}-type", Input).value.strip()

    @property
    def title(self) -> str:
        return self.doc_type.label if self.doc_type else f"Document {self.index + 1}"

    def compose(self) -> ComposeResult:
        prefix = f"doc-{self.index}"
        if self.doc_type is None:
            yield Static("Document", classes="doc-title")
            yield Static("This server does not list its required documents: type the document "
                         "type id your carrier asks for.", classes="doc-description")
            yield from field("Document type id", f"{prefix}-type",
                             validators=[Required("Document type id")])
            yield from field("Data fields (optional)", f"{prefix}-data", validators=[DataFieldsText()],
                             placeholder="key=value, key=value")
        else:
            yield Literal(self.doc_type.label, classes="doc-title")
            if self.doc_type.description:
                yield Literal(self.doc_type.description, classes="doc-description")
            for data_field in self.doc_type.data_fields:
                label = data_field.label + ("" if data_field.required else " (optional)")
                validators: list[Validator] = [Required(data_field.label)] if data_field.required else []
                validators += data_field_rules(data_field.key, data_field.label, data_field.description)
                yield from field(label, data_field_id(self.index, data_field.key), validators=validators,
                                 placeholder=data_field.description or "")
        yield Label("File (PDF, JPEG or PNG, at most 5 MB)", classes="field-label")
        with Horizontal():
            yield Field(id=f"{prefix}-path", placeholder="path to the file, or Browse…")
            yield Button("Browse…", id=f"{prefix}-browse", classes="doc-browse")
        yield Literal("", id=f"{prefix}-path-error", classes="doc-file")

    def data_fields(self) -> dict[str, str]:
        if self.doc_type is None:
            try:
                return parse_data_fields(self.query_one(f"#doc-{self.index}-data", Input).value)
            except ValueError:
                return {}  # shown beside the field; the step does not move on until it is fixed
        values = {}
        for data_field in self.doc_type.data_fields:
            value = data_field_value(
                data_field.key, self.query_one(f"#{data_field_id(self.index, data_field.key)}", Input).value)
            if value:
                values[data_field.key] = value
        return values

    @property
    def path_text(self) -> str:
        """The path as it will be read and sent: the real one while the field shows a picked
        file's name untouched, else what is typed."""
        typed = self.query_one(f"#doc-{self.index}-path", Input).value.strip()
        if self.picked is not None and typed == self.picked[0].strip():
            return self.picked[1]
        return typed

    def set_path(self, path: str) -> None:
        """Put a path that did not come from the keyboard (picked, or remembered) in the field.

        Not refused: a file's name is whatever its creator chose, and the person may need that
        very file. The field shows it with its control characters visible (the terminal never
        draws them raw) and the real path is kept aside, used for as long as the field is not
        edited.
        """
        shown = untrusted.clean(path, multiline=False)
        self.picked = (shown, path) if shown != path else None
        self.query_one(f"#doc-{self.index}-path", Input).value = shown

    def show_file(self, problems: list[str] | tuple[str, ...]) -> None:
        """Say what is wrong with the file (nothing: the line is cleared)."""
        status = self.query_one(f"#doc-{self.index}-path-error", Literal)
        if not problems:
            status.update("")
            status.set_classes("doc-file")
            self.query_one(f"#doc-{self.index}-path", Input).remove_class("-invalid")
            return
        status.update("✖ " + "; ".join(problems))
        status.set_classes("doc-file -bad")
        self.query_one(f"#doc-{self.index}-path", Input).add_class("-invalid")

    def show_check(self, check: FileCheck) -> bool:
        """Show the file's size and type beside it, or what is wrong with it; True when fine."""
        if check.problems:
            self.show_file(check.problems)
            return False
        status = self.query_one(f"#doc-{self.index}-path-error", Literal)
        status.update(f"✔ {check.name} · {human_size(check.size)} · {check.kind}")
        status.set_classes("doc-file -ok")
        self.query_one(f"#doc-{self.index}-path", Input).remove_class("-invalid")
        return True


class DocumentsStep(Step):
    """The documents the requirements ask for (or typed by hand when the server does not list
    them); what was typed for a type still asked for survives the list being rebuilt."""

    def __init__(self, *, memory: SessionMemory | None, start_dir: Path | None) -> None:
        super().__init__(id="step-documents")
        self._memory = memory
        self._start_dir = start_dir

    def compose(self) -> ComposeResult:
        yield Static("One file per document type; checked as soon as you choose it.", classes="hint")
        if self.app.is_web:
            # `vap web`: the console runs on the serving machine, so paths and Browse…
            # are that machine's files, not those of the computer with the browser.
            yield Literal(f"In a browser: files are picked from {socket.gethostname()}, "
                          "the machine serving this console, not from this computer.",
                          id="doc-web-note", classes="hint")
        yield Literal("", id="doc-earlier", classes="hint")
        yield Vertical(id="documents")
        # Only when the server does not list its document types: the user adds them.
        yield Button("Add another document", id="doc-add")

    def on_mount(self) -> None:
        self.query_one("#doc-add", Button).display = False
        self.query_one("#doc-earlier", Static).display = False

    @property
    def entries(self) -> list[DocumentEntry]:
        return list(self.query(DocumentEntry))

    def values(self) -> list[DocumentValues]:
        return [DocumentValues(entry.type_id, entry.data_fields(), entry.path_text) for entry in self.entries]

    def sizes(self) -> dict[str, int | None]:
        """Each file's size as last checked (off the UI loop), by its path as typed."""
        checks = {entry.path_text: entry.current_check for entry in self.entries}
        return {text: check.size if check is not None else None for text, check in checks.items()}

    def check_files(self) -> bool:
        """Each document has a file, and its last check found nothing wrong; each problem shown."""
        fine = True
        for entry in self.entries:
            check = entry.current_check
            if not entry.path_text:
                fine = False
                entry.show_file(["a file is required for this document"])
            elif check is not None and not entry.show_check(check):
                fine = False
        return fine

    def allow_adding(self, allowed: bool) -> None:
        self.query_one("#doc-add", Button).display = allowed

    async def rebuild(self, types: list[DocumentType | None]) -> None:
        current = [entry.doc_type.id if entry.doc_type else None for entry in self.entries]
        wanted = [t.id if t else None for t in types]
        if current == wanted:
            return
        # Keep what was typed for a document type that is still asked for.
        kept: dict[str | None, dict[str, str]] = {}
        picked: dict[str | None, tuple[str, str] | None] = {}
        for entry in self.entries:
            key = entry.doc_type.id if entry.doc_type else None
            kept[key] = {w.id.split("-", 2)[2]: w.value for w in entry.query(Input) if w.id}
            picked[key] = entry.picked
        box = self.query_one("#documents", Vertical)
        # Awaited: the new entries reuse the old ids (doc-0, doc-1…).
        await box.remove_children()
        entries = [DocumentEntry(index, doc_type) for index, doc_type in enumerate(types)]
        await box.mount_all(entries)
        earlier = self._memory.last.documents if self._memory is not None and self._memory.last else {}
        filled = []
        for entry in entries:
            key = entry.doc_type.id if entry.doc_type else None
            for suffix, value in kept.get(key, {}).items():
                found = entry.query(f"#doc-{entry.index}-{suffix}")
                if found:
                    found.first(Input).value = value  # shown before, from the same kind of field
            entry.picked = picked.get(key)
            if key not in kept and entry.doc_type is not None and key in earlier:
                # The same document as in the application typed earlier this session: its file
                # and fields again (each checked again as it is set).
                path, fields = earlier[key]
                entry.set_path(path)
                for data_field in entry.doc_type.data_fields:
                    if data_field.key in fields:
                        entry.query_one(f"#{data_field_id(entry.index, data_field.key)}", Input).value = \
                            fields[data_field.key]
                filled.append(entry.doc_type.label)
        note = self.query_one("#doc-earlier", Static)
        note.update(untrusted.content(
            f"Filled in from the application typed earlier in this session: {', '.join(filled)}. "
            "Check each one before you go on." if filled else ""))
        note.display = bool(filled)

    def mark_invalid(self, error: errors.DocumentInvalid) -> None:
        """A 422 document_invalid without details: on the documents its message names, else all."""
        indices = documents_named(error.message)
        named = [e for e in self.entries if e.index in indices]
        named = named or [e for e in self.entries if e.path_text and Path(e.path_text).name in error.message]
        for entry in named or self.entries:
            entry.show_file([error.message or error.default_message()])

    # --- files: checked as their path is typed ---

    @on(Input.Changed)
    def _path_changed(self, event: Input.Changed) -> None:
        input_id = event.input.id or ""
        if input_id.endswith("-path") and input_id.startswith("doc-"):
            entry = event.input.parent.parent if event.input.parent is not None else None
            if isinstance(entry, DocumentEntry):
                self.check_path(entry)

    def unchecked(self) -> list[DocumentEntry]:
        return [e for e in self.entries if e.path_text and e.current_check is None]

    def check_path(self, entry: DocumentEntry) -> None:
        """Check the file as its path is typed: in a worker thread, the latest path winning."""
        text = entry.path_text
        if not text:
            entry.checked = None
            entry.show_file([])
            return
        # A callable, not a coroutine: a check replaced before it starts is then never created
        # (a coroutine object would be dropped un-awaited, with a RuntimeWarning).
        check: WorkType[FileCheck] = functools.partial(self.probe, entry, text)
        self.run_worker(check, group=f"file-{entry.index}", exclusive=True, exit_on_error=False)

    async def probe(self, entry: DocumentEntry, text: str) -> FileCheck:
        check = await asyncio.to_thread(check_file, text)
        if entry.is_attached and entry.path_text == text:
            entry.checked = check
            entry.show_check(check)
        return check

    @on(Button.Pressed, "#doc-add")
    async def _add_document(self) -> None:
        entry = DocumentEntry(len(self.entries), None)
        await self.query_one("#documents", Vertical).mount(entry)
        entry.query_one(Input).focus()

    # --- the file picker ---

    @on(Button.Pressed, ".doc-browse")
    def _browse(self, event: Button.Pressed) -> None:
        entry = entry_of(event.button)
        if entry is None:
            return
        current = Path(entry.path_text).expanduser() if entry.path_text else None
        self._open_picker(entry, current.parent if current is not None else self._start_dir)

    @work(exclusive=True, group="wizard-picker", exit_on_error=False)
    async def _open_picker(self, entry: DocumentEntry, start: Path | None) -> None:
        def folder() -> Path:
            return start if start is not None and start.is_dir() else Path.cwd()

        def picked(path: Path | None) -> None:
            if path is not None:
                entry.set_path(str(path))

        self.app.push_screen(FilePicker(await asyncio.to_thread(folder)), picked)
