"""Rental applications: refused before a byte is sent when they cannot succeed, and otherwise sent
as exactly the body the spec describes."""

from __future__ import annotations

import asyncio
import errno
import itertools
import json
import os
from pathlib import Path

import httpx
import pytest
from python_multipart.multipart import MultipartParser, parse_options_header

from tests.api.conftest import json_response, wire_rental
from vap_console.api import RentalApplication, RentalValidationError, detect_file_type
from vap_console.api.rental import MAX_FILE_BYTES


def parse_multipart(request: httpx.Request) -> list[dict]:
    """Parse a request body back with python-multipart (what Starlette servers use)."""
    content_type, options = parse_options_header(request.headers["content-type"])
    assert content_type == b"multipart/form-data"
    parts: list[dict] = []
    header: dict[str, bytes] = {}
    state: dict = {}

    def on_part_begin() -> None:
        state["headers"], state["data"] = {}, b""

    def on_header_field(data: bytes, start: int, end: int) -> None:
        header["field"] = header.get("field", b"") + data[start:end]

    def on_header_value(data: bytes, start: int, end: int) -> None:
        header["value"] = header.get("value", b"") + data[start:end]

    def on_header_end() -> None:
        state["headers"][header.pop("field").decode().lower()] = header.pop("value", b"").decode()

    def on_part_data(data: bytes, start: int, end: int) -> None:
        state["data"] += data[start:end]

    def on_part_end() -> None:
        _, disposition = parse_options_header(state["headers"]["content-disposition"])
        parts.append({
            "name": disposition[b"name"].decode(),
            "filename": disposition[b"filename"].decode() if b"filename" in disposition else None,
            "content_type": state["headers"].get("content-type"),
            "data": state["data"],
        })

    parser = MultipartParser(options[b"boundary"], {
        "on_part_begin": on_part_begin, "on_header_field": on_header_field,
        "on_header_value": on_header_value, "on_header_end": on_header_end,
        "on_part_data": on_part_data, "on_part_end": on_part_end,
    })
    parser.write(request.content)
    parser.finalize()
    return parts


def application(*documents: tuple[str, Path], **overrides) -> RentalApplication:
    body = {
        "requestedNumber": "+919876500001",
        "searchFilters": {"pattern": "98765", "city": "Pune"},
        "endUser": {"name": "Acme Traders Pvt Ltd", "email": "ops@acme.example", "postal_code": "411001"},
        "documents": [
            {"documentTypeId": type_id, "dataFields": {"number": f"{type_id}-42"}, "path": str(path)}
            for type_id, path in documents
        ],
    }
    body.update(overrides)
    return RentalApplication.model_validate(body)


async def test_multipart_body_parsed_back_equals_what_was_built(make_client, pdf_file, png_file, jpeg_file):
    client, server = make_client(json_response(201, wire_rental()))
    app = application(("gst", pdf_file), ("pan", png_file), ("address", jpeg_file))
    assert app.sends_documents
    rental = await client.rent_number(app)
    assert rental.status == "kyc_submitted"

    request = server.requests[0]
    assert request.url.path == "/v1/phone-numbers"
    assert int(request.headers["Content-Length"]) == len(request.content)
    parts = parse_multipart(request)
    assert [p["name"] for p in parts] == ["data", "files", "files", "files"]

    data = json.loads(parts[0]["data"])
    assert data == {
        "requestedNumber": "+919876500001",
        "searchFilters": {"pattern": "98765", "city": "Pune"},
        "endUser": {"name": "Acme Traders Pvt Ltd", "email": "ops@acme.example", "postal_code": "411001"},
        "documents": [
            {"documentTypeId": "gst", "dataFields": {"number": "gst-42"}},
            {"documentTypeId": "pan", "dataFields": {"number": "pan-42"}},
            {"documentTypeId": "address", "dataFields": {"number": "address-42"}},
        ],
    }
    # No local path leaks into what the server receives.
    assert str(pdf_file.parent) not in parts[0]["data"].decode()

    files = parts[1:]
    assert [(f["filename"], f["content_type"]) for f in files] == [
        ("certificate.pdf", "application/pdf"),
        ("id card.png", "image/png"),
        ("utility-bill.jpg", "image/jpeg"),
    ]
    assert [f["data"] for f in files] == [pdf_file.read_bytes(), png_file.read_bytes(), jpeg_file.read_bytes()]


async def test_verified_kyc_sends_plain_json_with_only_the_number(make_client):
    client, server = make_client(json_response(201, wire_rental()))
    plain = RentalApplication.model_validate(
        {"requestedNumber": " 91 98765-00001 ", "searchFilters": {"pattern": "98"}})
    assert not plain.sends_documents  # what the wizard's review says before sending
    await client.rent_number(plain)
    request = server.requests[0]
    assert request.headers["Content-Type"] == "application/json"
    assert json.loads(request.content) == {"requestedNumber": "919876500001"}


async def test_progress_reports_climb_to_the_total(make_client, pdf_file, png_file):
    client, server = make_client(json_response(201, wire_rental()))
    seen: list[tuple[int, int]] = []
    await client.rent_number(application(("gst", pdf_file), ("pan", png_file)),
                             on_progress=lambda sent, total: seen.append((sent, total)))
    total = len(server.requests[0].content)
    assert seen[0] == (0, total)
    assert seen[-1] == (total, total)
    sent = [s for s, _ in seen]
    assert sent == sorted(sent)
    assert {t for _, t in seen} == {total}


async def test_large_files_are_streamed_in_chunks(make_client, tmp_path):
    big = tmp_path / "scan.pdf"
    big.write_bytes(b"%PDF-1.7\n" + b"x" * (MAX_FILE_BYTES - 9))
    client, server = make_client(json_response(201, wire_rental()))
    seen: list[int] = []
    await client.rent_number(application(("gst", big)), on_progress=lambda s, t: seen.append(s))
    steps = [b - a for a, b in itertools.pairwise(seen)]
    assert max(steps) <= 64 * 1024
    assert len(seen) > 80
    assert parse_multipart(server.requests[0])[1]["data"] == big.read_bytes()


async def _refused(make_client, app: RentalApplication) -> RentalValidationError:
    client, server = make_client(json_response(201, wire_rental()))
    with pytest.raises(RentalValidationError) as caught:
        await client.rent_number(app)
    assert server.requests == []
    return caught.value


async def test_file_of_5_mb_plus_one_byte_is_refused_before_sending(make_client, tmp_path):
    big = tmp_path / "too-big.pdf"
    big.write_bytes(b"%PDF-1.7\n" + b"x" * (MAX_FILE_BYTES + 1 - 9))
    error = await _refused(make_client, application(("gst", big)))
    assert error.problems == [("documents[0].path",
                               "too-big.pdf is 5,242,881 bytes; the limit is 5 MB (5,242,880 bytes)")]


async def test_exactly_5_mb_is_accepted(make_client, tmp_path):
    edge = tmp_path / "edge.pdf"
    edge.write_bytes(b"%PDF-1.7\n" + b"x" * (MAX_FILE_BYTES - 9))
    assert edge.stat().st_size == MAX_FILE_BYTES
    client, server = make_client(json_response(201, wire_rental()))
    await client.rent_number(application(("gst", edge)))
    assert len(server.requests) == 1


async def test_a_pdf_that_is_really_text_is_refused(make_client, tmp_path):
    fake = tmp_path / "statement.pdf"
    fake.write_text("just some text, not a PDF\n")
    error = await _refused(make_client, application(("gst", fake)))
    assert error.problems == [("documents[0].path",
                               "statement.pdf is not a PDF, JPEG or PNG file (checked by its content)")]
    assert "documents[0].path" in str(error)


async def test_a_missing_file_is_refused(make_client, tmp_path, pdf_file):
    missing = tmp_path / "gone.pdf"
    error = await _refused(make_client, application(("gst", pdf_file), ("pan", missing)))
    assert error.problems == [("documents[1].path", f"file not found: {missing}")]


async def test_end_user_name_is_required_when_documents_are_sent(make_client, pdf_file):
    error = await _refused(make_client, application(("gst", pdf_file), endUser={"name": "  "}))
    assert error.problems == [("endUser.name", "is required when documents are sent: the legal name")]
    error = await _refused(make_client, application(("gst", pdf_file), endUser=None))
    assert [f for f, _ in error.problems] == ["endUser.name"]


async def test_each_document_needs_exactly_one_file(make_client, pdf_file):
    app = RentalApplication.model_validate({
        "requestedNumber": "+919876500001", "endUser": {"name": "Acme"},
        "documents": [{"documentTypeId": "gst", "path": str(pdf_file)}, {"documentTypeId": "pan"}],
    })
    error = await _refused(make_client, app)
    assert error.problems == [("documents[1].path", "each document needs exactly one file")]


async def test_every_problem_is_reported_at_once(make_client, tmp_path):
    fake = tmp_path / "a.png"
    fake.write_bytes(b"GIF89a....")
    app = application(("gst", fake), ("pan", tmp_path / "none.jpg"), endUser=None, requestedNumber="call me")
    error = await _refused(make_client, app)
    assert [f for f, _ in error.problems] == [
        "requestedNumber", "endUser.name", "documents[0].path", "documents[1].path"]


def test_detect_file_type_by_magic_bytes_not_extension(tmp_path, pdf_file, png_file, jpeg_file):
    assert detect_file_type(pdf_file) == "pdf"
    assert detect_file_type(png_file) == "png"
    assert detect_file_type(jpeg_file) == "jpeg"
    renamed = tmp_path / "photo.png"
    renamed.write_bytes(pdf_file.read_bytes())
    assert detect_file_type(renamed) == "pdf"
    text = tmp_path / "notes.pdf"
    text.write_text("hello")
    assert detect_file_type(text) is None
    with pytest.raises(OSError):
        detect_file_type(tmp_path / "missing.pdf")


async def test_a_renamed_pdf_is_sent_as_a_pdf(make_client, tmp_path, pdf_file):
    renamed = tmp_path / "photo.png"
    renamed.write_bytes(pdf_file.read_bytes())
    client, server = make_client(json_response(201, wire_rental()))
    await client.rent_number(application(("gst", renamed)))
    assert parse_multipart(server.requests[0])[1]["content_type"] == "application/pdf"


async def test_429_resends_the_whole_multipart_body(make_client, sleeps, pdf_file):
    client, server = make_client(
        json_response(429, {"error": "slow down", "code": "rate_limited"}, {"Retry-After": "1"}),
        json_response(201, wire_rental()),
    )
    await client.rent_number(application(("gst", pdf_file)))
    first, second = server.requests
    assert first.headers["Idempotency-Key"] == second.headers["Idempotency-Key"]
    assert parse_multipart(first) == parse_multipart(second)
    assert parse_multipart(second)[1]["data"] == pdf_file.read_bytes()


async def test_a_file_deleted_after_validation_is_reported_on_its_field(make_client, pdf_file, png_file):
    client, _ = make_client(json_response(201, wire_rental()))

    def delete_second(sent: int, total: int) -> None:
        if png_file.exists():
            png_file.unlink()

    with pytest.raises(RentalValidationError) as caught:
        await client.rent_number(application(("gst", pdf_file), ("pan", png_file)), on_progress=delete_second)
    assert caught.value.problems == [
        ("documents[1].path", "id card.png could not be read while sending: No such file or directory")]


async def test_a_file_that_grows_after_validation_is_not_sent_truncated(make_client, pdf_file):
    client, _server = make_client(json_response(201, wire_rental()))

    def grow(sent: int, total: int) -> None:
        if sent == 0:
            with pdf_file.open("ab") as fh:
                fh.write(b"more bytes")

    with pytest.raises(RentalValidationError, match="changed while it was being sent"):
        await client.rent_number(application(("gst", pdf_file)), on_progress=grow)


def test_check_document_file_applies_the_same_rules_to_one_file(tmp_path, pdf_file):
    from vap_console.api.rental import check_document_file

    assert check_document_file(pdf_file) == []
    assert check_document_file(tmp_path / "nope.png") == [f"file not found: {tmp_path / 'nope.png'}"]
    empty = tmp_path / "empty.pdf"
    empty.write_bytes(b"")
    assert check_document_file(empty) == ["empty.pdf is empty"]
    assert check_document_file(tmp_path) == [f"{tmp_path.name} is not a file"]


async def test_the_multipart_form_sends_the_number_without_the_spaces_typed(make_client, pdf_file):
    client, server = make_client(json_response(201, wire_rental()))
    await client.rent_number(application(("gst", pdf_file), requestedNumber=" +91 98765-00001 "))
    data = json.loads(parse_multipart(server.requests[0])[0]["data"])
    assert data["requestedNumber"] == "+919876500001"


@pytest.mark.parametrize("name", ['bill"; name="data.pdf', "bill\r\nContent-Type: text-html.pdf", "a\nb.pdf"])
async def test_a_file_name_with_a_line_break_or_quote_stays_one_file_part(make_client, tmp_path, name):
    odd = tmp_path / name
    odd.write_bytes(b"%PDF-1.7\n%%EOF\n")
    client, server = make_client(json_response(201, wire_rental()))
    await client.rent_number(application(("gst", odd)))
    parts = parse_multipart(server.requests[0])
    # Still the data part, then one file part of this file's type and bytes; the name readable.
    assert [(p["name"], p["content_type"]) for p in parts] == [("data", None), ("files", "application/pdf")]
    assert parts[1]["data"] == odd.read_bytes()
    assert parts[1]["filename"] == name.replace("\r", "%0D").replace("\n", "%0A").replace('"', "%22")


async def test_a_file_that_shrinks_while_sending_is_reported_not_waited_on(make_client, pdf_file):
    client, _server = make_client(json_response(201, wire_rental()))

    def shrink(sent: int, total: int) -> None:
        if sent == 0:
            pdf_file.write_bytes(b"%PDF-1.7\n")

    with pytest.raises(RentalValidationError) as caught:
        await asyncio.wait_for(client.rent_number(application(("gst", pdf_file)), on_progress=shrink), 10)
    assert caught.value.problems == [
        ("documents[0].path", "certificate.pdf changed while it was being sent; choose it again")]


def test_a_file_the_system_refuses_to_read_is_named_as_unreadable_not_missing(tmp_path, pdf_file, monkeypatch):
    from vap_console.api import rental
    from vap_console.api.rental import check_document_file

    def refused(path, *args, **kwargs):
        raise PermissionError(errno.EACCES, os.strerror(errno.EACCES), str(path))

    # As a file whose mode keeps this user out (the tests may run as root, whom chmod does not stop).
    monkeypatch.setattr(rental, "open", refused, raising=False)
    assert check_document_file(pdf_file) == ["cannot read certificate.pdf: Permission denied"]


async def test_fields_left_empty_in_an_application_file_are_not_sent_as_nulls(make_client, pdf_file):
    # As `vap numbers rent --data` reads them: a JSON file may say null for what it leaves out.
    client, server = make_client(json_response(201, wire_rental()))
    await client.rent_number(application(("gst", pdf_file), searchFilters=None,
                                         endUser={"name": "Acme", "email": None, "city": None}))
    data = json.loads(parse_multipart(server.requests[0])[0]["data"])
    assert data["endUser"] == {"name": "Acme"} and "searchFilters" not in data


async def test_a_document_without_a_file_does_not_stop_the_next_being_checked(make_client, tmp_path, pdf_file):
    app = RentalApplication.model_validate({
        "requestedNumber": "+919876500001", "endUser": {"name": "Acme"},
        "documents": [{"documentTypeId": "gst"}, {"documentTypeId": "pan", "path": str(tmp_path / "gone.pdf")}],
    })
    error = await _refused(make_client, app)
    assert error.problems == [("documents[0].path", "each document needs exactly one file"),
                              ("documents[1].path", f"file not found: {tmp_path / 'gone.pdf'}")]


def test_a_path_that_runs_through_a_file_is_named_as_unreadable(pdf_file):
    from vap_console.api.rental import check_document_file

    assert check_document_file(pdf_file / "scan.pdf") == ["cannot read scan.pdf: Not a directory"]


async def test_progress_of_a_plain_rental_goes_from_nothing_to_all(make_client):
    client, server = make_client(json_response(201, wire_rental()))
    seen: list[tuple[int, int]] = []
    await client.rent_number(RentalApplication(requested_number="+919876500001"),
                             on_progress=lambda sent, total: seen.append((sent, total)))
    total = len(server.requests[0].content)
    assert seen == [(0, total), (total, total)]


async def test_each_upload_has_its_own_unguessable_boundary(make_client, pdf_file):
    # A fixed boundary could occur inside a document and cut it short at the server.
    client, server = make_client(json_response(201, wire_rental()))
    await client.rent_number(application(("gst", pdf_file)))
    await client.rent_number(application(("gst", pdf_file)))
    boundaries = [r.headers["content-type"].partition("boundary=")[2] for r in server.requests]
    assert boundaries[0] != boundaries[1]
    assert all(len(b) >= 32 and b.encode() not in pdf_file.read_bytes() for b in boundaries)
