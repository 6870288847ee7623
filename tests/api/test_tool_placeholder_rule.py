"""The spec's placeholder rule (2.4), as a table of cases taken from it, and the builder's other
halves: the auth header of each kind, the outputs read from an answer.

"Placeholder rule: a {token} inside url, params, headers and body is filled first from the model's
arguments, then from the account's variables, then from the context params." Context params are
{call_id}, {agent_id}, {phone_number} (reference/real-service.md).
"""

from __future__ import annotations

import base64
from typing import Any

import pytest

from vap_console.api.models import Tool
from vap_console.api.tool_call import (
    ARGUMENT,
    CONTEXT,
    VARIABLE,
    BadHeader,
    Sources,
    UnfilledPlaceholders,
    build_request,
    open_tokens,
    parse_json,
    read_outputs,
    value_at,
)


def tool(auth: dict[str, Any] | None = None, **config: Any) -> Tool:
    return Tool.model_validate({
        "id": "t1", "name": "lookup", "description": "d", "kind": "during_call",
        "config": {"method": "GET", "url": "https://hooks.example/x", **config,
                   **({"auth": auth} if auth is not None else {})},
    })


SOURCES = Sources(
    arguments={"date": "Friday", "city": "Mumbai"},
    variables={"city": "Pune", "business_name": "Sharma Dental", "call_id": "from-a-variable"},
    context={"call_id": "c-1", "agent_id": "a-1", "phone_number": "+912071706120"},
)

# (case, the tool's config, what the request holds after filling)
RULE = [
    ("a token in the url", {"url": "https://hooks.example/slots/{date}"},
     lambda r: r.url == "https://hooks.example/slots/Friday"),
    ("a token in a param's value", {"params": [{"name": "d", "value": "{date}"}]},
     lambda r: r.params == (("d", "Friday"),)),
    ("a token in a header's value", {"headers": [{"name": "X-Biz", "value": "{business_name}"}]},
     lambda r: r.headers == (("X-Biz", "Sharma Dental"),)),
    ("a token in the body", {"body": '{"when": "{date}"}'}, lambda r: r.body == '{"when": "Friday"}'),
    ("the model's arguments first: an argument beats the variable of its name", {"url": "https://h.example/{city}"},
     lambda r: r.url.endswith("/Mumbai") and r.filled[0].source == ARGUMENT),
    ("then the account's variables", {"url": "https://h.example/{business_name}"},
     lambda r: r.filled[0].source == VARIABLE),
    ("a variable beats the context param of its name", {"url": "https://h.example/{call_id}"},
     lambda r: r.url.endswith("/from-a-variable") and r.filled[0].source == VARIABLE),
    ("then the context params", {"url": "https://h.example/{agent_id}?p={phone_number}"},
     lambda r: r.url == "https://h.example/a-1?p=+912071706120" and {f.source for f in r.filled} == {CONTEXT}),
    ("a JSON body's own braces are not tokens", {"body": '{"a": {"b": "{date}"}, "c": {}}'},
     lambda r: r.body == '{"a": {"b": "Friday"}, "c": {}}'),
    ("every occurrence is filled", {"url": "https://h.example/{date}/{date}"},
     lambda r: r.url == "https://h.example/Friday/Friday"),
    ("a value is put in as it is, never filled again", {"url": "https://h.example/{date}"},
     lambda r: build_request(tool(url="https://h.example/{date}"),
                             Sources(arguments={"date": "{city}"}, variables={"city": "Pune"})).url
     == "https://h.example/{city}"),
    ("a param's name is not filled", {"params": [{"name": "{date}", "value": "1"}]},
     lambda r: r.params == (("{date}", "1"),)),
]


@pytest.mark.parametrize(("case", "config", "holds"), RULE, ids=[c[0] for c in RULE])
def test_the_placeholder_rule(case: str, config: dict[str, Any], holds: Any) -> None:
    request = build_request(tool(**config), SOURCES)
    assert holds(request), (case, request)


def test_a_token_nothing_fills_is_named_with_every_place_it_is_written() -> None:
    config = {"url": "https://h.example/{slot}", "headers": [{"name": "X-Slot", "value": "{slot}"}],
              "body": "{doctor} at {slot}"}
    with pytest.raises(UnfilledPlaceholders) as caught:
        build_request(tool(**config), SOURCES)
    assert caught.value.where == {"slot": ["url", "headers.X-Slot", "body"], "doctor": ["body"]}
    assert "{slot} in url, headers.X-Slot, body" in str(caught.value)


def test_a_dotted_token_is_a_token_nothing_fills() -> None:
    # Nothing can be named data.name (variables and arguments hold no dot): refused, not sent as is.
    with pytest.raises(UnfilledPlaceholders):
        build_request(tool(url="https://h.example/{data.name}"), SOURCES)


def test_a_header_that_a_value_would_split_is_refused() -> None:
    config = {"headers": [{"name": "X-City", "value": "{city}"}]}
    with pytest.raises(BadHeader, match="X-City"):
        build_request(tool(**config), Sources(variables={"city": "Pune\r\nX-Evil: 1"}))


def test_open_tokens_lists_each_once_in_order() -> None:
    config = {"url": "https://h.example/{a}/{b}", "body": "{a}{c}"}
    assert open_tokens(tool(**config)) == ["a", "b", "c"]


# --- auth ---


@pytest.mark.parametrize(("auth", "header", "value"), [
    ({"type": "bearer", "hasSecret": True}, "Authorization", "Bearer s3cret-value-1234"),
    ({"type": "basic", "username": "desk", "hasSecret": True}, "Authorization",
     "Basic " + base64.b64encode(b"desk:s3cret-value-1234").decode()),
    ({"type": "api_key", "headerName": "X-Shop-Key", "hasSecret": True}, "X-Shop-Key", "s3cret-value-1234"),
    ({"type": "api_key", "hasSecret": True}, "X-API-Key", "s3cret-value-1234"),
], ids=["bearer", "basic", "api_key headerName", "api_key default header"])
def test_each_auth_kind_makes_its_header_and_shows_it_masked(auth: dict[str, Any], header: str, value: str) -> None:
    request = build_request(tool(auth), Sources(), "s3cret-value-1234")
    assert (header, value) in request.send_headers()
    shown = dict(request.shown_headers())[header]
    assert "s3cret" not in shown and shown.endswith("…1234")
    assert "s3cret" not in repr(request)
    echoed = f"you sent {value} and s3cret-value-1234"
    assert "s3cret" not in request.mask(echoed) and base64.b64encode(b"desk:s3").decode()[:6] not in request.mask(echoed)


def test_without_a_secret_the_request_goes_without_its_auth_header() -> None:
    request = build_request(tool({"type": "bearer", "hasSecret": True}), Sources(), None)
    assert request.secret_missing and request.send_headers() == []


def test_the_auth_header_replaces_a_configured_one_of_its_name() -> None:
    config = {"headers": [{"name": "authorization", "value": "stale"}]}
    request = build_request(tool({"type": "bearer"}, **config), Sources(), "s3cret-value-1234")
    assert request.send_headers() == [("Authorization", "Bearer s3cret-value-1234")]


# --- outputs ---

DOC = {"data": {"name": "Asha", "visits": [{"date": "2026-01-05"}], "count": 3, "vip": False, "none": None}}


@pytest.mark.parametrize(("path", "value"), [
    ("data.name", "Asha"), ("data.visits.0.date", "2026-01-05"), ("data.count", 3), ("data.vip", False),
    ("data.none", None), ("", DOC),
])
def test_a_dotted_path_reads_into_objects_and_lists(path: str, value: Any) -> None:
    assert value_at(DOC, path) == value


@pytest.mark.parametrize("path", ["data.email", "data.visits.1.date", "data.name.first", "data.visits.x", "nope"])
def test_a_path_that_is_not_there_is_missing(path: str) -> None:
    assert value_at(DOC, path) is value_at(DOC, "data.nothing")


def test_outputs_fill_text_as_it_is_and_other_values_as_json() -> None:
    t = tool(outputs=[{"name": "n", "path": "data.name"}, {"name": "c", "path": "data.count"},
                      {"name": "m", "path": "data.email"}])
    reads = read_outputs(t, *reversed(parse_json(b'{"data": {"name": "Asha", "count": 3}}')))
    assert [(o.name, o.value) for o in reads] == [("n", "Asha"), ("c", "3"), ("m", None)]


def test_an_answer_that_is_not_json_gives_no_output() -> None:
    t = tool(outputs=[{"name": "n", "path": ""}])
    is_json, document = parse_json(b"<html>")
    assert not is_json and read_outputs(t, document, is_json)[0].found is False
