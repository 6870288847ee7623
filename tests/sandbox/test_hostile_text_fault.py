"""--faults hostile_text=1: every string the sandbox serves carries terminal control (over HTTP and
on the agent socket), dates stay dates, and an id read from a hostile answer and sent back as it
came still reaches its record."""

from __future__ import annotations

import json
from urllib.parse import quote

import httpx
import pytest
import websockets

from tests.talk.cli import LONG_CALLS, SPEED
from vap_console.api.realtime import socket_url
from vap_console.sandbox.app import create_app
from vap_console.sandbox.clock import VirtualClock
from vap_console.sandbox.faults import Faults, FaultSpecError
from vap_console.sandbox.hostile_text import HOSTILE_KEY, PREFIX, SUFFIX
from vap_console.sandbox.openapi import build_document
from vap_console.sandbox.server import start_in_thread

from .conftest import auth


def test_the_setting_is_parsed_and_named_in_the_banner() -> None:
    assert Faults.parse("hostile_text=1").hostile_text and not Faults.parse("hostile_text=0").hostile_text
    assert Faults.parse(str(Faults.parse("latency=5,hostile_text=1"))) == Faults(latency_ms=5, hostile_text=True)
    with pytest.raises(FaultSpecError, match="hostile_text must be 0 or 1, not 'yes'"):
        Faults.parse("hostile_text=yes")


def test_the_openapi_document_lists_it_with_the_other_faults() -> None:
    listed = build_document()["info"]["x-sandbox-faults"]
    assert "terminal control" in listed["--faults hostile_text="]
    assert {"--faults latency=", "--faults socket_start_error="} <= set(listed)


def client(app) -> httpx.AsyncClient:
    return httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://s", headers=auth())


async def test_every_string_is_hostile_but_dates_and_ids_still_work() -> None:
    async with client(create_app(clock=VirtualClock(), faults="hostile_text=1")) as c:
        rentals = (await c.get("/v1/phone-numbers")).json()
        rental = rentals["items"][0]
        assert rental["status"].startswith(PREFIX) and rental["status"].endswith(SUFFIX)
        assert rental[HOSTILE_KEY] and HOSTILE_KEY in rentals  # a hostile key in every object
        assert not rental["createdAt"].startswith(PREFIX)  # dates stay dates
        # The id as served, sent back: the same rental (path), the same agent (JSON body).
        again = await c.get(f"/v1/phone-numbers/{quote(rental['id'], safe='')}")  # encoded, as clients do
        assert again.status_code == 200 and again.json()["id"] == rental["id"]
        agent = (await c.get("/v1/agents")).json()["items"][0]
        call = await c.post("/v1/register-call", json={"agent_id": agent["id"]})
        assert call.status_code == 201, call.text
        refused = await c.get("/v1/agents/nobody")  # errors are hostile too
        assert refused.status_code == 404 and refused.json()["error"].startswith(PREFIX)
    async with client(create_app(clock=VirtualClock())) as plain:
        assert "\x1b" not in (await plain.get("/v1/phone-numbers")).text  # and only with the fault


async def test_the_agent_sockets_text_is_hostile_and_its_token_still_works() -> None:
    with start_in_thread(speed=SPEED, faults=f"hostile_text=1,{LONG_CALLS}") as live:
        async with httpx.AsyncClient(base_url=live.base_url, headers=auth()) as c:
            agent = next(a for a in (await c.get("/v1/agents")).json()["items"] if a["deployed"])
            call = (await c.post("/v1/register-call", json={"agent_id": agent["id"]})).json()
        seen: list[dict] = []
        # The token as served (decorated), in the socket's URL: the call still connects.
        async with websockets.connect(socket_url(live.base_url, call["access_token"])) as ws:
            while not any(f["type"] == "transcript" for f in seen):
                seen.append(json.loads(await ws.recv()))
            await ws.send(json.dumps({"type": "session.close"}))
        created = seen[0]
        assert created["type"] == "session.created" and created["call_id"].startswith(PREFIX)
        said = next(f for f in seen if f["type"] == "transcript")
        assert said["role"] == PREFIX + "assistant" + SUFFIX and said["text"].startswith(PREFIX + "Namaste")
