"""A number-rental application: validated before a byte is sent, then sent as JSON or multipart.

Two request forms (spec 4.1): when no documents are attached (the account's KYC is already
verified) the body is the plain JSON ``{"requestedNumber": ...}``; otherwise it is
multipart/form-data with a ``data`` field holding the payload as a JSON string and one ``files``
part per document, in the same order. Files are streamed from disk in chunks so memory stays flat
however large the upload, and the caller hears about progress through ``on_progress(sent, total)``.

Every open, stat and read of a document file that happens while sending runs in a worker thread
(``asyncio.to_thread``), one chunk at a time: a slow or network disk never stalls the event loop.
``check_document_file_async`` is the same check as ``check_document_file`` for a loop's caller.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import secrets
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from pydantic import Field

from vap_console.api.limits import DOCUMENT_BYTES, DOCUMENTS
from vap_console.api.models import EndUser, SearchFilters, _Wire

MAX_FILE_BYTES = DOCUMENT_BYTES.high
CHUNK_BYTES = 64 * 1024

FileType = Literal["pdf", "jpeg", "png"]

CONTENT_TYPES: dict[str, str] = {
    "pdf": "application/pdf",
    "jpeg": "image/jpeg",
    "png": "image/png",
}

# Magic bytes, not extensions: a renamed text file must not reach the carrier as a "pdf".
_MAGIC: tuple[tuple[bytes, FileType], ...] = (
    (b"%PDF-", "pdf"),
    (b"\xff\xd8\xff", "jpeg"),
    (b"\x89PNG\r\n\x1a\n", "png"),
)

# The spec takes bare digits (as search returns them) or E.164.
_NUMBER_RE = re.compile(r"^\+?[0-9]{4,15}\Z")  # \Z: a $ would let a final newline through

ProgressCallback = Callable[[int, int], object]


def detect_file_type(path: str | os.PathLike[str]) -> FileType | None:
    """The type of a document by its first bytes: "pdf", "jpeg", "png", or None for anything else.

    Raises OSError when the file cannot be read (missing, a directory, no permission).
    """
    with open(path, "rb") as fh:
        head = fh.read(8)
    for magic, kind in _MAGIC:
        if head.startswith(magic):
            return kind
    return None


class RentalValidationError(ValueError):
    """The application cannot be sent as it is. ``problems`` lists (field, message) pairs."""

    def __init__(self, problems: list[tuple[str, str]]) -> None:
        self.problems = list(problems)
        super().__init__("; ".join(f"{field}: {message}" for field, message in self.problems))


class RentalDocument(_Wire):
    """One required document: its type, its data fields and the one local file that proves it."""

    document_type_id: str
    data_fields: dict[str, str] = Field(default_factory=dict)
    # Local only: never part of the payload sent to the server.
    path: Path | None = Field(default=None, exclude=True)


class RentalApplication(_Wire):
    requested_number: str
    search_filters: SearchFilters | None = None
    end_user: EndUser | None = None
    documents: list[RentalDocument] = Field(default_factory=list)

    @property
    def number(self) -> str:
        """The requested number as sent: spaces and dashes people type for readability removed."""
        return re.sub(r"[\s\-()]", "", self.requested_number)

    @property
    def sends_documents(self) -> bool:
        """False for the plain JSON form (KYC already verified on the account)."""
        return bool(self.documents)

    def problems(self) -> list[tuple[str, str]]:
        """Every reason the application cannot be sent, as (field, message); empty when it can."""
        found: list[tuple[str, str]] = []
        number = self.number
        if not number:
            found.append(("requestedNumber", "is required: pick or type a number"))
        elif not _NUMBER_RE.match(number):
            found.append(
                ("requestedNumber", "must be bare digits or E.164 (+ then 4 to 15 digits)")
            )
        if not self.documents:
            return found
        if self.end_user is None or not self.end_user.name.strip():
            found.append(("endUser.name", "is required when documents are sent: the legal name"))
        too_many = DOCUMENTS.problem(len(self.documents))
        if too_many:
            found.append(("documents", too_many))
        for index, document in enumerate(self.documents):
            where = f"documents[{index}]"
            if not document.document_type_id.strip():
                found.append((f"{where}.documentTypeId", "is required"))
            if document.path is None:
                found.append((f"{where}.path", "each document needs exactly one file"))
                continue
            found.extend(_file_problems(f"{where}.path", document.path))
        return found

    def validate_files(self) -> None:
        """Raise RentalValidationError naming each field and the rule it breaks; else return."""
        found = self.problems()
        if found:
            raise RentalValidationError(found)

    def payload(self) -> dict[str, Any]:
        """The rental payload as the server reads it: wire names, no local file paths."""
        if not self.documents:
            return {"requestedNumber": self.number}
        body = self.model_dump(mode="json", by_alias=True, exclude_none=True)
        body["requestedNumber"] = self.number
        return body

    def build_body(self, boundary: str | None = None) -> RequestBody:
        """The request body; call validate_files() first (VapClient.rent_number does)."""
        payload = json.dumps(self.payload(), ensure_ascii=False, separators=(",", ":"))
        if not self.documents:
            return RequestBody.of_json(payload.encode())
        files = []
        for index, document in enumerate(self.documents):
            assert document.path is not None  # validate_files() guarantees it
            kind = detect_file_type(document.path)
            files.append(
                _FilePart(
                    field=f"documents[{index}].path",
                    path=document.path,
                    size=document.path.stat().st_size,
                    content_type=CONTENT_TYPES[kind] if kind else "application/octet-stream",
                )
            )
        return MultipartBody(payload, files, boundary or secrets.token_hex(16))


def check_document_file(path: str | os.PathLike[str]) -> list[str]:
    """Why this file cannot be sent as a document (missing, empty, over 5 MB, not pdf/jpeg/png);
    empty when it can. The same rules rent_number applies, for checking one file as it is picked."""
    return [message for _, message in _file_problems("path", Path(path))]


async def check_document_file_async(path: str | os.PathLike[str]) -> list[str]:
    """check_document_file in a worker thread: for a UI checking a path as it is typed."""
    return await asyncio.to_thread(check_document_file, path)


def _file_problems(field: str, path: Path) -> list[tuple[str, str]]:
    name = path.name
    try:
        size = path.stat().st_size
    except FileNotFoundError:
        return [(field, f"file not found: {path}")]
    except OSError as exc:
        return [(field, f"cannot read {name}: {exc.strerror or exc}")]
    if not path.is_file():
        return [(field, f"{name} is not a file")]
    if size == 0:
        return [(field, f"{name} is empty")]
    if size > MAX_FILE_BYTES:
        return [
            (field, f"{name} is {size:,} bytes; the limit is 5 MB ({MAX_FILE_BYTES:,} bytes)")
        ]
    try:
        kind = detect_file_type(path)
    except OSError as exc:
        return [(field, f"cannot read {name}: {exc.strerror or exc}")]
    if kind is None:
        return [(field, f"{name} is not a PDF, JPEG or PNG file (checked by its content)")]
    return []


# --- request bodies ---


class RequestBody:
    """A request body that can be sent more than once (a POST retried after 429)."""

    def __init__(self, content_type: str, length: int) -> None:
        self.content_type = content_type
        self.length = length

    @classmethod
    def of_json(cls, data: bytes) -> RequestBody:
        return _BytesBody("application/json", data)

    @property
    def headers(self) -> dict[str, str]:
        return {"Content-Type": self.content_type, "Content-Length": str(self.length)}

    def stream(self, on_progress: ProgressCallback | None = None) -> AsyncIterator[bytes]:
        raise NotImplementedError


class _BytesBody(RequestBody):
    def __init__(self, content_type: str, data: bytes) -> None:
        super().__init__(content_type, len(data))
        self.data = data

    async def stream(self, on_progress: ProgressCallback | None = None) -> AsyncIterator[bytes]:
        if on_progress:
            on_progress(0, self.length)
        yield self.data
        if on_progress:
            on_progress(self.length, self.length)


@dataclass(frozen=True)
class _FilePart:
    field: str
    path: Path
    size: int
    content_type: str


def _quote_filename(name: str) -> str:
    # As browsers do (WHATWG form encoding): the header must stay one well-formed line.
    return name.replace("\r", "%0D").replace("\n", "%0A").replace('"', "%22")


class MultipartBody(RequestBody):
    """multipart/form-data: ``data`` (JSON string), then one ``files`` part per document."""

    def __init__(self, payload_json: str, files: list[_FilePart], boundary: str) -> None:
        self.boundary = boundary
        self._head = (
            f"--{boundary}\r\n"
            'Content-Disposition: form-data; name="data"\r\n'
            "\r\n"
        ).encode() + payload_json.encode() + b"\r\n"
        self._files = files
        self._part_heads = [
            (
                f"--{boundary}\r\n"
                f'Content-Disposition: form-data; name="files"; '
                f'filename="{_quote_filename(part.path.name)}"\r\n'
                f"Content-Type: {part.content_type}\r\n"
                "\r\n"
            ).encode()
            for part in files
        ]
        self._tail = f"--{boundary}--\r\n".encode()
        length = len(self._head) + len(self._tail)
        length += sum(len(h) + part.size + 2 for h, part in zip(self._part_heads, files))
        super().__init__(f"multipart/form-data; boundary={boundary}", length)

    async def stream(self, on_progress: ProgressCallback | None = None) -> AsyncIterator[bytes]:
        sent = 0
        total = self.length

        def progressed(n: int) -> None:
            nonlocal sent
            sent += n
            if on_progress:
                on_progress(sent, total)

        if on_progress:
            on_progress(0, total)
        yield self._head
        progressed(len(self._head))
        for head, part in zip(self._part_heads, self._files):
            yield head
            progressed(len(head))
            async for chunk in _read_exactly(part):
                yield chunk
                progressed(len(chunk))
            yield b"\r\n"
            progressed(2)
        yield self._tail
        progressed(len(self._tail))


async def _read_exactly(part: _FilePart) -> AsyncIterator[bytes]:
    """The file's bytes in chunks, exactly as many as announced in Content-Length.

    The open and each read run in a worker thread, one chunk at a time (never the whole file).
    A file removed or changed after validation surfaces as RentalValidationError on its field,
    like any other problem with a document; the server sees a truncated body and drops it.
    """
    remaining = part.size
    try:
        fh = await asyncio.to_thread(open, part.path, "rb")
        try:
            while remaining:
                chunk = await asyncio.to_thread(fh.read, min(CHUNK_BYTES, remaining))
                if not chunk:
                    break
                remaining -= len(chunk)
                yield chunk
            grew = bool(await asyncio.to_thread(fh.read, 1))
        finally:
            fh.close()
    except OSError as exc:
        problem = f"{part.path.name} could not be read while sending: {exc.strerror or exc}"
    else:
        if not remaining and not grew:
            return
        problem = f"{part.path.name} changed while it was being sent; choose it again"
    raise RentalValidationError([(part.field, problem)])
