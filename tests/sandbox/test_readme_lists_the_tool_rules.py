"""README.md's sandbox rules list every rule the sandbox enforces on a tool where the spec is
silent, in the words of its 422s: each refusal below (one per rule, through the served app) must be
a row of the README's Tools table (`loc` in its first cell, the message in its second)."""

from __future__ import annotations

import re
from pathlib import Path

import httpx
import pytest

from vap_console.api import limits

from .conftest import auth

README = (Path(__file__).resolve().parents[2] / "README.md").read_text(encoding="utf-8")
GOOD = {"name": "order_lookup", "description": "Looks an order up", "kind": "during_call",
        "config": {"url": "https://shop.example/o"}}


def _config(**fields: object) -> dict:
    return {**GOOD, "config": {**GOOD["config"], **fields}}


def _pairs(name: str, second: str) -> list[dict]:
    long = "x" * (limits.TOOL_PAIR_NAME.high + 1)
    return [_config(**{name: "x"}), _config(**{name: [7]}), _config(**{name: [{}] * (limits.TOOL_LIST.high + 1)}),
            _config(**{name: [{"name": "", second: "v"}]}), _config(**{name: [{"name": long, second: "v"}]}),
            _config(**{name: [{"name": "a"}]}), _config(**{name: [{"name": "a", second: long}]})]


REFUSED = [
    {}, {**GOOD, "name": 7}, {**GOOD, "name": "x" * 65}, {**GOOD, "name": "9lives"}, {**GOOD, "description": ""},
    {**GOOD, "kind": "after_call"}, {**GOOD, "config": "x"},
    _config(method="get"), _config(url="ftp://x"), _config(url="h" * 2049), _config(action="x" * 65),
    _config(performedAction="x" * 65), _config(curl="x" * 20001), _config(body="x" * 20001), _config(timeoutMs=0),
    _config(waitForResponse="yes"), _config(llmParams="x"),
    *_pairs("params", "value"), *_pairs("headers", "value"), *_pairs("outputs", "path"),
    _config(outputs=[{"name": "9a", "path": "p"}]), _config(outputs=[{"name": "a", "path": "p"}, {"name": "a", "path": "q"}]),
    _config(outputs=[{"name": "customer_name", "path": "p"}]),  # a seeded tool feeds it already
    _config(auth="x"), _config(auth={"type": "oauth"}), _config(auth={"type": "x" * 33}),
    _config(auth={"headerName": "h" * 257}), _config(auth={"username": "u" * 257}),
    _config(auth={"token": "t" * 2049}), _config(auth={"password": "p" * 2049}),
]


def readme_rules() -> dict[str, set[str]]:
    """loc → the messages the README's Tools table gives it."""
    rules: dict[str, set[str]] = {}
    for row in re.findall(r"^  \| (`body[^|]*) \| ([^|]*) \|$", README, re.MULTILINE):
        for loc in re.findall(r"`([^`]+)`", row[0]):
            rules.setdefault(loc, set()).update(m.strip() for m in row[1].split("; "))
    return rules


def test_the_readme_no_longer_says_auth_type_is_any_string() -> None:
    assert "any string" not in README
    assert "must be one of none, bearer, basic, api_key" in readme_rules()["body.config.auth.type"]


@pytest.mark.parametrize("body", REFUSED, ids=range(len(REFUSED)))
async def test_each_refusal_is_a_row_of_the_readme(client: httpx.AsyncClient, body: dict) -> None:
    answer = await client.post("/v1/tools", json=body, headers=auth())
    assert answer.status_code == 422, answer.text
    rules = readme_rules()
    for detail in answer.json()["details"]:
        loc = re.sub(r"\.\d+(?=\.|$)", ".<i>", detail["loc"])
        message = re.sub(r"^variable \S+ is already fed by tool \S+$", "variable NAME is already fed by tool TOOL",
                         detail["message"])
        assert message in rules.get(loc, set()), (loc, message)
