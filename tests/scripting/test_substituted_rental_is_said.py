"""`vap numbers show` says when the carrier bought another number than the one asked for (it was
taken meanwhile), as the console's rental screen does; `vap numbers watch` says it too
(tests/test_watch.py)."""

from __future__ import annotations

import asyncio

import httpx

from tests.scripting.conftest import Vap
from vap_console.api import RentalApplication, VapClient
from vap_console.api.models import SearchFilters

TAKEN = "912260000004"  # the sandbox's "number taken meanwhile" scenario


def _rent(vap: Vap, key: str) -> str:
    async def go() -> str:
        async with VapClient("http://127.0.0.1:9", key, transport=httpx.ASGITransport(app=vap.app)) as client:
            application = RentalApplication(requested_number=TAKEN, search_filters=SearchFilters(city="Mumbai"))
            return (await client.rent_number(application)).id

    return asyncio.run(go())


def test_show_names_the_number_asked_for_and_the_one_bought(vap: Vap, sandbox_clock) -> None:
    rental_id = _rent(vap, "sk_sandbox_verified")
    sandbox_clock.advance(600)  # well past purchase
    shown = vap("numbers", "show", rental_id, key="sk_sandbox_verified")
    assert shown.code == 0, shown.err
    bought = vap.api("GET", f"/v1/phone-numbers/{rental_id}", key="sk_sandbox_verified")["number"]
    assert bought != TAKEN
    line = next(line for line in shown.out.splitlines() if line.startswith("requested"))
    assert line.split(None, 1)[1] == f"+{TAKEN} was taken meanwhile; +{bought} was bought instead"


def test_show_says_nothing_of_it_for_the_number_asked_for(vap: Vap) -> None:
    active = next(r for r in vap.api("GET", "/v1/phone-numbers")["items"] if r["status"] == "active")
    shown = vap("numbers", "show", active["id"])
    assert shown.code == 0 and "requested" not in shown.out and "taken meanwhile" not in shown.out
