"""Guards for two claims about uploads: a document is never held whole in memory, and no file is
opened, stat'ed or read on the event loop's thread while a rental is checked and sent."""

from __future__ import annotations

import os
import sys
import threading
import tracemalloc
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.api.conftest import API_KEY, BASE_URL, json_response, wire_rental
from vap_console.api import RentalApplication, VapClient
from vap_console.api import rental as rental_module

MB = 1024 * 1024
DOCUMENT_BYTES = 5 * MB


class Sink(httpx.AsyncBaseTransport):
    """Takes the request body chunk by chunk and keeps none of it, as a socket would."""

    def __init__(self) -> None:
        self.received = 0
        self.largest_chunk = 0

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        async for chunk in request.stream:  # type: ignore[union-attr]
            self.received += len(chunk)
            self.largest_chunk = max(self.largest_chunk, len(chunk))
        return json_response(201, wire_rental())


def three_documents(tmp_path: Path) -> RentalApplication:
    paths = []
    for index, magic in enumerate((b"%PDF-1.7\n", b"\x89PNG\r\n\x1a\n", b"\xff\xd8\xff\xe0")):
        path = tmp_path / f"document-{index}"
        with path.open("wb") as fh:
            fh.write(magic + os.urandom(64 * 1024))
            fh.truncate(DOCUMENT_BYTES)  # the rest sparse: quick to make, read like any bytes
        paths.append(path)
    return RentalApplication.model_validate({
        "requestedNumber": "+919876500001", "endUser": {"name": "Acme Traders"},
        "documents": [{"documentTypeId": f"type-{i}", "path": str(p)} for i, p in enumerate(paths)],
    })


async def test_an_upload_of_three_5_mb_documents_never_holds_a_file_in_memory(tmp_path):
    application = three_documents(tmp_path)
    sink = Sink()
    async with VapClient(BASE_URL, API_KEY, transport=sink) as client:
        # Once untraced-for-the-claim: lazy imports, pydantic validators built on first use, the
        # worker threads of asyncio.to_thread.
        await client.rent_number(application)
        tracemalloc.start()
        try:
            baseline, _ = tracemalloc.get_traced_memory()
            tracemalloc.reset_peak()
            await client.rent_number(application)
            _, peak = tracemalloc.get_traced_memory()
        finally:
            tracemalloc.stop()
    assert sink.received > 2 * 3 * DOCUMENT_BYTES  # both uploads went through, whole
    assert sink.largest_chunk <= rental_module.CHUNK_BYTES
    over = peak - baseline
    print(f"tracemalloc peak over baseline during a 3 x 5 MB upload: {over:,} bytes")
    # Reading a file whole would be 5 MB at once; chunked it is a few 64 KiB buffers.
    assert over < 1 * MB


class FileAccess:
    """Which thread opens, stats and reads the documents: an audit hook sees every open(), a
    wrapper around os.stat every stat, and the rental module's open() hands out files whose
    reads are recorded."""

    _active: FileAccess | None = None
    _hooked = False

    def __init__(self, folder: Path) -> None:
        self.folder = str(folder)
        self.seen: list[tuple[str, str, int]] = []  # (what, path, thread)

    def _mine(self, path: Any) -> bool:
        return isinstance(path, (str, bytes, os.PathLike)) and os.fsdecode(path).startswith(self.folder)

    def record(self, what: str, path: Any) -> None:
        if self._mine(path):
            self.seen.append((what, os.fsdecode(path), threading.get_ident()))

    @classmethod
    def _audit(cls, event: str, args: tuple[Any, ...]) -> None:
        if event == "open" and cls._active is not None:
            cls._active.record("open", args[0])

    def __enter__(self) -> FileAccess:
        if not FileAccess._hooked:  # an audit hook cannot be removed: one, switched by _active
            sys.addaudithook(FileAccess._audit)
            FileAccess._hooked = True
        FileAccess._active = self
        return self

    def __exit__(self, *exc: object) -> None:
        FileAccess._active = None


class _RecordedFile:
    def __init__(self, fh: Any, access: FileAccess, path: Any) -> None:
        self._fh, self._access, self._path = fh, access, path

    def read(self, *args: Any) -> bytes:
        self._access.record("read", self._path)
        return self._fh.read(*args)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._fh, name)

    def __enter__(self) -> _RecordedFile:
        return self

    def __exit__(self, *exc: object) -> None:
        self._fh.close()


async def test_rent_number_opens_stats_and_reads_files_only_off_the_loop_thread(tmp_path, monkeypatch):
    application = three_documents(tmp_path)
    loop_thread = threading.get_ident()
    real_stat, real_open = os.stat, open

    with FileAccess(tmp_path) as access:
        def stat(path: Any, *args: Any, **kwargs: Any) -> os.stat_result:
            access.record("stat", path)
            return real_stat(path, *args, **kwargs)

        def recorded_open(path: Any, *args: Any, **kwargs: Any) -> Any:
            return _RecordedFile(real_open(path, *args, **kwargs), access, path)

        monkeypatch.setattr(os, "stat", stat)
        monkeypatch.setattr(rental_module, "open", recorded_open, raising=False)
        async with VapClient(BASE_URL, API_KEY, transport=Sink()) as client:
            await client.rent_number(application)

    kinds = {what for what, _, _ in access.seen}
    assert kinds == {"open", "stat", "read"}, access.seen
    assert {path for _, path, _ in access.seen} == {str(d.path) for d in application.documents}
    on_loop = [(what, Path(path).name) for what, path, thread in access.seen if thread == loop_thread]
    assert on_loop == []
    # The upload's reads alone: 5 MB in 64 KiB chunks, three files.
    assert sum(1 for what, _, _ in access.seen if what == "read") >= 3 * DOCUMENT_BYTES // (64 * 1024)


async def test_check_document_file_async_runs_off_the_loop(tmp_path, monkeypatch):
    from vap_console.api.rental import check_document_file_async

    application = three_documents(tmp_path)
    path = application.documents[0].path
    with FileAccess(tmp_path) as access:
        assert await check_document_file_async(path) == []
    assert access.seen and all(thread != threading.get_ident() for _, _, thread in access.seen)


def test_the_file_access_recorder_sees_work_done_on_the_loop_thread(tmp_path):
    """The recorder itself has teeth: a check made on the calling thread is seen there."""
    application = three_documents(tmp_path)
    with FileAccess(tmp_path) as access:
        application.validate_files()
    assert any(thread == threading.get_ident() for _, _, thread in access.seen)


@pytest.fixture(autouse=True)
def _no_leftover_recorder():
    yield
    FileAccess._active = None
