"""One logical submission, one Idempotency-Key: an unchanged resend keeps it, a changed body gets a
new one, and a caller's key no header could carry is refused before anything is sent."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from tests.api.conftest import json_response, wire_rental
from vap_console.api import RentalApplication
from vap_console.api.idempotency import Submission
from vap_console.api.rental_form import Submission as RentalSubmission


def test_a_resent_body_keeps_its_key_and_a_changed_one_gets_a_new_key() -> None:
    submission = Submission()
    assert submission.key is None  # nothing sent yet
    first = submission.key_for('{"name":"Kabir"}')
    assert len(first) == 36 and submission.key == first
    assert submission.key_for(b'{"name":"Kabir"}') == first  # the same bytes, as str or bytes
    second = submission.key_for('{"name":"Priya"}')
    assert second != first and submission.key == second
    # Back to the first body: a new submission, not the first one again.
    assert submission.key_for('{"name":"Kabir"}') not in (first, second)


def test_a_rental_application_changed_in_any_field_gets_a_new_key() -> None:
    submission = RentalSubmission(lambda: datetime(2026, 1, 2, tzinfo=UTC))
    application = RentalApplication(requested_number="+918045670001")
    first = submission.start(application, {})
    assert submission.key == first and submission.start(application, {}) == first
    assert submission.start(RentalApplication(requested_number="+918045670002"), {}) != first


@pytest.mark.parametrize("key", ["", "two words", "line\n", "tab\there", "é-accent", "x" * 256])
async def test_a_key_no_header_could_carry_is_refused_before_sending(make_client, key) -> None:
    client, server = make_client(json_response(201, wire_rental()))
    with pytest.raises(ValueError, match="1 to 255 printable ASCII characters"):
        await client.rent_number(RentalApplication(requested_number="+918045670001"), idempotency_key=key)
    assert server.requests == []


async def test_a_key_of_255_printable_characters_is_sent_as_given(make_client) -> None:
    key = "!" + "k" * 253 + "~"
    client, server = make_client(json_response(201, wire_rental()))
    await client.rent_number(RentalApplication(requested_number="+918045670001"), idempotency_key=key)
    assert server.requests[0].headers["Idempotency-Key"] == key
