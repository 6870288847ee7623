"""Against real servers on 127.0.0.1: real sockets, real HTTP parsing on the other side."""

from __future__ import annotations

import hashlib

import pytest

from tests.api.conftest import API_KEY
from tests.api.loopback import HangUpServer
from vap_console.api import RentalApplication, VapClient, errors


async def test_multipart_rental_arrives_as_the_server_parses_it(loopback, pdf_file, png_file, tmp_path):
    big = tmp_path / "scan.pdf"
    big.write_bytes(b"%PDF-1.4\n" + bytes(range(256)) * 12_000)
    app = RentalApplication.model_validate({
        "requestedNumber": "919876500001",
        "endUser": {"name": "Acme Traders"},
        "documents": [{"documentTypeId": t, "path": str(p)}
                      for t, p in (("gst", pdf_file), ("pan", png_file), ("scan", big))],
    })
    async with VapClient(loopback.url, API_KEY) as client:
        rental = await client.rent_number(app, idempotency_key="key-123")
    received = rental.model_extra["received"]
    assert received["idempotencyKey"] == "key-123"
    assert received["contentType"] == "multipart/form-data"
    assert received["transferEncoding"] is None  # Content-Length known up front, not chunked
    parts = received["parts"]
    assert parts[0] == {"name": "data", "value":
                        '{"requestedNumber":"919876500001","endUser":{"name":"Acme Traders"},'
                        '"documents":[{"documentTypeId":"gst"},{"documentTypeId":"pan"},'
                        '{"documentTypeId":"scan"}]}'}
    assert [(p["name"], p["filename"], p["contentType"], p["size"], p["sha256"]) for p in parts[1:]] == [
        ("files", path.name, kind, path.stat().st_size, hashlib.sha256(path.read_bytes()).hexdigest())
        for path, kind in ((pdf_file, "application/pdf"), (png_file, "image/png"), (big, "application/pdf"))
    ]


async def test_plain_json_rental_over_the_wire(loopback):
    async with VapClient(loopback.url, API_KEY) as client:
        rental = await client.rent_number(RentalApplication(requested_number="+919876500001"))
    assert rental.model_extra["received"]["json"] == {"requestedNumber": "+919876500001"}


async def test_list_variables_over_the_wire(loopback):
    async with VapClient(loopback.url, API_KEY) as client:
        pages = [await client.list_variables() for _ in range(5)]
    assert [v.name for v in pages[-1].items] == ["customer_name", "city", "plan"]


async def test_connection_dropped_after_a_post_is_outcome_unknown_and_sent_once():
    with HangUpServer() as server:
        async with VapClient(server.url, API_KEY, max_retries=5) as client:
            with pytest.raises(errors.OutcomeUnknown):
                await client.rent_number(RentalApplication(requested_number="+919876500001"))
    assert len(server.requests) == 1
    assert server.requests[0].startswith(b"POST /v1/phone-numbers HTTP/1.1")


async def test_a_get_dropped_by_the_server_is_retried_then_reported(sleeps):
    with HangUpServer() as server:
        async with VapClient(server.url, API_KEY, max_retries=2, sleep=sleeps) as client:
            with pytest.raises(errors.ConnectionFailed):
                await client.list_variables()
    assert len(server.requests) == 3
    assert len(sleeps.waits) == 2


async def test_concurrent_calls_share_one_client(loopback):
    import asyncio

    async with VapClient(loopback.url, API_KEY) as client:
        pages = await asyncio.gather(*(client.list_variables() for _ in range(20)))
    assert {page.count for page in pages} == {3}
