"""Every error code of spec §7 reaches the caller as its own class, with the fields it carries."""

from __future__ import annotations

import pytest

from tests.api.conftest import error_body, json_response
from vap_console.api import errors

SPEC_CODES = [
    (401, "unauthorized", errors.Unauthorized),
    (402, "telephony_autopay_required", errors.AutopayRequired),
    (403, "forbidden_scope", errors.ForbiddenScope),
    (403, "telephony_account_ineligible", errors.AccountIneligible),
    (422, "telephony_document_invalid", errors.DocumentInvalid),
    (422, "invalid_request", errors.InvalidRequest),
    (429, "rate_limited", errors.RateLimited),
    (502, "telephony_plivo_error", errors.CarrierError),
    (502, "telephony_sandbox_error", errors.CarrierError),
    (503, "telephony_not_configured", errors.NotConfigured),
    (404, "agent_not_found", errors.AgentNotFound),
    (404, "agent_tool_not_found", errors.ToolNotFound),
]


@pytest.mark.parametrize(("status", "code", "cls"), SPEC_CODES, ids=[c for _, c, _ in SPEC_CODES])
async def test_each_spec_code_is_raised_as_its_class_by_the_client(make_client, status, code, cls):
    body = error_body(code, "What the server said.")
    headers = {"Retry-After": "7"} if status == 429 else {}
    if code == "rate_limited":
        body.update(limit=600, current=601)
    if code == "invalid_request":
        body["details"] = [{"loc": "body.requestedNumber", "message": "is required"}]
    # max_retries=0: the point here is the mapping, not the retrying.
    client, _ = make_client(json_response(status, body, headers), max_retries=0)
    with pytest.raises(errors.ApiError) as caught:
        await client.list_variables()
    error = caught.value
    assert type(error) is cls
    assert error.status == status
    assert error.code == code
    assert error.message == "What the server said."
    assert code in str(error)
    if code == "rate_limited":
        assert (error.retry_after, error.limit, error.current) == (7.0, 600, 601)
    if code == "invalid_request":
        assert [(d.loc, d.message) for d in error.details] == [("body.requestedNumber", "is required")]


def test_invalid_request_message_lists_every_failing_field():
    error = errors.error_from_body(422, error_body("invalid_request", "Validation failed", details=[
        {"loc": "body.endUser.name", "message": "is required"},
        {"loc": "body.documents", "message": "one entry per file"},
    ]))
    text = str(error)
    assert isinstance(error, errors.InvalidRequest)
    assert "body.endUser.name: is required" in text
    assert "body.documents: one entry per file" in text
    assert [d.field for d in error.details] == ["endUser.name", "documents"]


def test_unknown_code_keeps_the_code_and_message():
    error = errors.error_from_body(409, error_body("agent_busy", "The agent is busy"))
    assert type(error) is errors.ApiError
    assert error.code == "agent_busy"
    assert str(error) == "The agent is busy (HTTP 409, agent_busy)."


@pytest.mark.parametrize(("status", "cls"), [
    (401, errors.Unauthorized), (404, errors.NotFound), (429, errors.RateLimited),
    (500, errors.ServerError), (502, errors.ServerError),
])
def test_a_body_without_code_still_maps_by_status(status, cls):
    error = errors.error_from_body(status, None)
    assert type(error) is cls
    assert f"HTTP {status}" in str(error)


def test_messages_are_sentences_a_person_reads():
    error = errors.error_from_body(402, {"error": "", "code": "telephony_autopay_required"})
    assert str(error).startswith("Renting needs an auto-pay mandate")
    assert "telephony_autopay_required" in str(error)


def test_a_hint_the_server_already_gave_is_not_repeated():
    said_it = errors.error_from_body(
        502, {"error": "The carrier refused. Safe to retry later.", "code": "telephony_acme_error"}
    )
    assert str(said_it).lower().count("safe to retry later") == 1
    terse = errors.error_from_body(502, {"error": "Carrier down", "code": "telephony_acme_error"})
    assert str(terse).endswith("Safe to retry later.")


@pytest.mark.parametrize(("request_id", "shown"), [
    # The real service's ids, as long as they come: the first 8 characters, marked as cut.
    ("7f3c1a2b-9d4e-4f00-8a1b-0123456789ab", "request 7f3c1a2b…"),
    ("0123456789abcdef0123456789abcdef", "request 01234567…"),
    # The sandbox's (and any short one): whole.
    ("sbx_1c9e04a7", "request sbx_1c9e04a7"),
])
async def test_the_sentence_names_the_request_for_support(make_client, request_id, shown):
    body = error_body("agent_tool_not_found", "No tool nope on this account")
    client, _ = make_client(json_response(404, body, {"x-request-id": request_id}), max_retries=0)
    with pytest.raises(errors.ApiError) as caught:
        await client.list_variables()
    assert caught.value.request_id == request_id  # whole, for the CLI's one line
    assert caught.value.request_ref == shown
    assert str(caught.value) == f"No tool nope on this account (HTTP 404, agent_tool_not_found, {shown})."


def test_no_request_id_no_mention():
    error = errors.error_from_body(409, error_body("agent_busy", "The agent is busy"))
    assert error.request_ref == "" and "request" not in str(error)


@pytest.mark.parametrize("hostile", ["[b]x[/b]", "[@click=app.quit]", "abc\x1b[2Jdef", "a b", "x" * 129])
async def test_an_implausible_request_id_is_never_quoted(make_client, hostile):
    # The id is shown to people (banners, list states, the CLI's line): only a plausible one is.
    body = error_body("agent_tool_not_found", "No tool nope")
    client, _ = make_client(json_response(404, body, {"x-request-id": hostile}), max_retries=0)
    with pytest.raises(errors.ApiError) as caught:
        await client.list_variables()
    assert caught.value.request_id is None and "request" not in str(caught.value)


# --- said once (issue 28, point 7): the one description, for the console and for `vap` ---


def _lost_body_of_a_post() -> errors.ApiError:
    from vap_console.api.answers import attempt_failure

    return attempt_failure("POST /v1/tools", True, 200, None, True, False, base_url="https://api.example.test",
                           request_timeout=30, total_timeout=120, max_response_bytes=1024)


SAID_TWICE = [
    # The server's message is the field problem the details list again.
    errors.error_from_body(422, {"error": "name: must be at most 64 characters", "code": "invalid_request",
                                 "details": [{"loc": "body.name", "message": "must be at most 64 characters"}]}),
    # The server's message already gives the client's hint.
    errors.error_from_body(401, {"error": "Check the API key: it may be mistyped, revoked or expired.",
                                 "code": "unauthorized"}),
    errors.error_from_body(502, {"error": "The carrier refused. Safe to retry later.", "code": "telephony_x_error"}),
    # A POST whose outcome is unknown: its hint and the maybe-applied warning are one sentence.
    _lost_body_of_a_post(),
]


def _sentences(text: str) -> list[str]:
    import re

    return [s.strip().lower() for s in re.split(r"(?<=[.?!])\s+", text) if s.strip()]


@pytest.mark.parametrize("error", SAID_TWICE, ids=lambda e: e.code)
def test_an_error_never_says_a_sentence_twice_in_the_console_or_in_vap(error: errors.ApiError) -> None:
    from vap_console.scripting.base import describe

    for text in (str(error), describe(error)[0]):
        sentences = _sentences(text)
        assert len(sentences) == len(set(sentences)), text
        for phrase in ("must be at most 64 characters", "check the api key", "safe to retry later",
                       "may have taken effect"):
            assert text.lower().count(phrase) <= 1, text


def test_a_lost_body_is_not_labelled_with_its_2xx_status() -> None:
    from vap_console.scripting.base import describe
    from vap_console.tui.failures import error_title

    error = _lost_body_of_a_post()
    assert "answered HTTP 200 but the body did not arrive" in str(error)  # said once, as what happened
    for text in (str(error), describe(error)[0], error_title(error)):
        assert "(HTTP 200" not in text and "HTTP 200 ·" not in text, text
    refused = errors.error_from_body(422, {"error": "Bad", "code": "invalid_request"})
    assert "(HTTP 422, invalid_request)" in str(refused) and error_title(refused) == "HTTP 422 · invalid_request"
