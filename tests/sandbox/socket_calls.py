"""Helpers for the agent socket's tests: mint a token, dial it with the websockets client (as the
vendor's reference client does), read events, and move the sandbox's virtual clock."""

from __future__ import annotations

import asyncio
import base64
import json
import time
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import asynccontextmanager, contextmanager
from datetime import timedelta
from typing import Any

import httpx
import websockets

from vap_console.sandbox.catalog import template_by_slug
from vap_console.sandbox.clock import VirtualClock
from vap_console.sandbox.keys import by_name
from vap_console.sandbox.server import RunningSandbox, start_in_thread
from vap_console.sandbox.voice import speech
from vap_console.sandbox.voice.register import sockets_of

# The seeded agents' voices (their templates' ttsConfig: a preset, else a description).
VOICES = {name: str(t[5].get("voice") or t[5].get("description") or "default")
          for name, t in (("Priya", template_by_slug("clinic-receptionist")), ("Kabir", template_by_slug("feedback-survey")))
          if t is not None}
# A sandbox's agents answer DEFAULT_DELAY_MS after the caller's turn (sandbox/agent_pace.py). Tests
# that move a VirtualClock by hand to the instants of the socket's mechanics (frames, stamps,
# stalls) start their sandbox with this, so those instants are what they were before the default;
# the default's own tests (test_agent_delay_and_price_settings.py) and every test on a sped-up real
# clock keep it.
INSTANT_AGENTS = "agent_delay_ms=*:0"


def instant(faults: str = "") -> str:
    """``faults`` with every agent answering at once (a setting of the test's own wins)."""
    return f"{INSTANT_AGENTS},{faults}" if faults else INSTANT_AGENTS


PRIYA_GREETING = "Namaste! You've reached Sharma Dental Clinic. This is Priya, how may I help you today?"


def agent_ref(sandbox: RunningSandbox, name: str, key: str = "agent") -> str:
    account = sandbox.state.account(by_name(key))
    return next(a.handle for a in account.agents.values() if a.name.startswith(name))


def account_of(sandbox: RunningSandbox, key: str = "agent"):
    return sandbox.state.account(by_name(key))


def spoken(text: str, agent: str = "Priya") -> bytes:
    """``text`` in the voice of the seeded agent ``agent`` (its ttsConfig), as the socket says it."""
    return speech.synthesize(text, voice=VOICES[agent])


def speaking_seconds(text: str, agent: str = "Priya") -> float:
    """How long the agent takes to say ``text``: its speech in 20 ms frames."""
    return frame_count(text, agent) * speech.FRAME_MS / 1000


def frame_count(text: str, agent: str = "Priya") -> int:
    return len(speech.frames(spoken(text, agent)))


def loud(seconds: float) -> bytes:
    """A square wave far above the voice threshold."""
    samples = round(speech.SAMPLE_RATE * seconds)
    return b"".join((8000 if (i // 20) % 2 else -8000).to_bytes(2, "little", signed=True) for i in range(samples))


def quiet(seconds: float, level: int = 100) -> bytes:
    samples = round(speech.SAMPLE_RATE * seconds)
    return b"".join((level if i % 2 else -level).to_bytes(2, "little", signed=True) for i in range(samples))


async def eventually(predicate: Callable[[], bool], timeout: float = 10, what: str = "the state") -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError(f"{what} was not reached within {timeout} s")
        await asyncio.sleep(0.002)


async def register(sandbox: RunningSandbox, agent: str = "Priya", key: str = "agent",
                   field: str = "agent_id") -> dict[str, Any]:
    async with httpx.AsyncClient(base_url=sandbox.base_url, headers={"Authorization": f"Bearer sk_sandbox_{key}"}) as c:
        answer = await c.post("/v1/register-call", json={field: agent_ref(sandbox, agent, key)})
    assert answer.status_code == 201, answer.text
    return answer.json()


async def limits(sandbox: RunningSandbox, key: str = "agent") -> dict[str, Any]:
    async with httpx.AsyncClient(base_url=sandbox.base_url, headers={"Authorization": f"Bearer sk_sandbox_{key}"}) as c:
        return (await c.get("/v1/agent/limits")).json()


class Call:
    """One socket call from the client's side: every event it received, in order."""

    def __init__(self, ws: Any, sandbox: RunningSandbox) -> None:
        self.ws = ws
        self.sandbox = sandbox
        self.events: list[dict[str, Any]] = []
        self.close_code: int | None = None
        self.agent = "Priya"  # whose voice the clock is moved on by

    @property
    def clock(self) -> VirtualClock:
        clock = self.sandbox.state.clock
        assert isinstance(clock, VirtualClock)
        return clock

    async def next(self, timeout: float = 10) -> dict[str, Any]:
        while True:
            raw = await asyncio.wait_for(self.ws.recv(), timeout)
            if isinstance(raw, bytes):  # the reference client ignores binary frames; none are sent
                raise AssertionError("the sandbox sent a binary frame")
            event = json.loads(raw)
            self.events.append(event)
            return event

    async def until(self, kind: str, timeout: float = 10) -> list[dict[str, Any]]:
        """Events up to and including the next one of type ``kind``."""
        seen: list[dict[str, Any]] = []
        while True:
            event = await self.next(timeout)
            seen.append(event)
            if event["type"] == kind:
                return seen

    async def to_close(self, timeout: float = 10) -> list[dict[str, Any]]:
        """Every event until the server closes; the close code lands in ``close_code``."""
        seen: list[dict[str, Any]] = []
        try:
            while True:
                seen.append(await self.next(timeout))
        except websockets.ConnectionClosed as closed:
            self.close_code = closed.rcvd.code if closed.rcvd else None
        return seen

    async def send(self, **message: Any) -> None:
        await self.ws.send(json.dumps(message))

    async def append(self, pcm: bytes) -> None:
        for i in range(0, len(pcm), 48_000):
            await self.send(type="input_audio_buffer.append", audio=base64.b64encode(pcm[i:i + 48_000]).decode())

    def waiting(self) -> list[tuple[str, Any]]:
        return sockets_of(self.sandbox.app).pacer.waiting()

    async def speaker_waits(self, seconds: float) -> None:
        """Until the agent's speaker sleeps for the frame ``seconds`` after the clock's start: every
        frame before it has been written to the socket by then."""
        target = self.clock.start + timedelta(seconds=seconds)
        await eventually(lambda: any(label.startswith("speaker:") and abs((at - target).total_seconds()) < 1e-6
                                     for label, at in self.waiting()),
                         what=f"the speaker waiting for {seconds} s")

    async def probe(self) -> list[dict[str, Any]]:
        """Events up to the answer to a probe (an unknown message type gets an error frame)."""
        await self.send(type="sandbox.probe")
        seen = await self.until("error")
        assert seen[-1]["code"] == "unknown_type", seen[-1]
        return seen[:-1]

    async def greeted(self, greeting: str = PRIYA_GREETING) -> list[dict[str, Any]]:
        """The greeting played whole: the clock moved on by its length once it starts."""
        seen = await self.until("agent_start_talking")
        return seen + await self.played(greeting)

    async def played(self, text: str) -> list[dict[str, Any]]:
        """After agent_start_talking: the clock moved on by the time ``text`` takes to say."""
        self.clock.advance(speaking_seconds(text, self.agent))
        return await self.until("agent_stop_talking")

    async def answered(self, text: str, reply: str) -> list[dict[str, Any]]:
        """A typed turn and the agent's whole answer to it."""
        await self.send(type="input_text.send", text=text)
        seen = await self.until("agent_start_talking")
        return seen + await self.played(reply)


@asynccontextmanager
async def dialled(sandbox: RunningSandbox, token: str) -> AsyncIterator[Call]:
    url = sandbox.base_url.replace("http://", "ws://") + "/v1/agent/connect?token=" + token
    async with websockets.connect(url, max_size=None) as ws:
        yield Call(ws, sandbox)


@contextmanager
def sandbox_with(clock: VirtualClock, faults: str = "") -> Iterator[RunningSandbox]:
    with start_in_thread(clock=clock, faults=instant(faults)) as running:
        yield running


def deltas(events: list[dict[str, Any]]) -> list[bytes]:
    return [base64.b64decode(e["audio"]) for e in events if e["type"] == "output_audio.delta"]


def types(events: list[dict[str, Any]]) -> list[str]:
    return [e["type"] for e in events]
