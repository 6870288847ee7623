"""validate_in_pieces gives exactly model_validate_json's result or error, whatever the body: it
only changes how long each call holds the GIL."""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st
from pydantic import ValidationError

from tests.api.conftest import wire_rental, wire_variable
from tests.api.methods import VOICES
from vap_console.api import pieces as pieces_module
from vap_console.api.models import Page, Rental, Variable, VoiceCatalog
from vap_console.api.pieces import validate_in_pieces

MODELS = [Page[Variable], Rental, VoiceCatalog]
GOOD = {
    Page[Variable]: {"items": [wire_variable(name=f"v{i}") for i in range(5)], "count": 5},
    Rental: wire_rental(events=[{"type": "x", "at": "2026-01-01T00:00:00Z"}] * 3),
    VoiceCatalog: VOICES,
}

scalars = st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=10)
values = st.recursive(scalars, lambda c: st.lists(c, max_size=3) | st.dictionaries(st.text(max_size=6), c, max_size=3),
                      max_leaves=8)


@st.composite
def bodies(draw: st.DrawFn) -> tuple[type, bytes]:
    model = draw(st.sampled_from(MODELS))
    body = json.loads(json.dumps(GOOD[model]))
    for _ in range(draw(st.integers(0, 3))):  # break or bend the shape here and there
        key = draw(st.sampled_from(sorted(body)) | st.text(max_size=6))
        body[key] = draw(values)
    if isinstance(body.get("items"), list) and draw(st.booleans()):
        body["items"].insert(draw(st.integers(0, len(body["items"]))), draw(values))
    text = json.dumps(body, indent=draw(st.sampled_from([None, 0, 2])),
                      separators=draw(st.sampled_from([(",", ":"), (", ", ": "), (" ,\n", " :\t")])))
    trick = draw(st.sampled_from(["none", "none", "none", "duplicate", "nan", "surrogate", "bom",
                                  "trailing", "truncate", "control", "not utf-8"]))
    if trick == "duplicate":
        text = text.replace("{", '{"items": [], ', 1)
    elif trick == "nan":
        text = text.replace("5", "NaN", 1)
    elif trick == "surrogate":
        text = text.replace('"v1"', '"\\ud800"', 1).replace('"ira"', '"\\udfff"', 1)
    elif trick == "bom":
        text = "\ufeff" + text
    elif trick == "trailing":
        text += draw(st.sampled_from([" ", "\n", "x", "}", ",{}"]))
    elif trick == "truncate":
        text = text[: draw(st.integers(0, len(text)))]
    elif trick == "control":
        text = text.replace('"v2"', '"v\x01"', 1)
    data = text.encode()
    if trick == "not utf-8":
        data = data.replace(b"v3", b"\xffv3", 1)
    return model, data


def _outcome(call):
    try:
        return "ok", call().model_dump(mode="json", by_alias=True)
    except ValidationError as exc:
        return "error", exc.errors(include_url=False, include_input=False)


@pytest.fixture
def small_pieces(monkeypatch):
    monkeypatch.setattr(pieces_module, "PIECE_CHARS", 200)


# The fixture only shrinks the pieces (the same for every input): safe to share across inputs.
@settings(max_examples=300, deadline=None, derandomize=True, database=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(bodies())
def test_the_same_outcome_as_model_validate_json(small_pieces, case):
    model, data = case
    expected = _outcome(lambda: model.model_validate_json(data))
    assert _outcome(lambda: validate_in_pieces(model, bytearray(data))) == expected
    try:
        pieces_module._pieces(model, pieces_module._list_fields(model), data.decode())
        event("validated in pieces")
    except ValueError:
        event(f"validated whole ({expected[0]})")


def test_a_model_without_list_fields_is_validated_whole():
    from tests.api.methods import WEBCALL
    from vap_console.api.models import WebCallSession

    data = json.dumps(WEBCALL).encode()
    assert validate_in_pieces(WebCallSession, data) == WebCallSession.model_validate_json(data)
