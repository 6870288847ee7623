"""A hostile agent socket on a real loopback port, in a thread of its own (its own event loop, so
the console's loop under test has to cope with it as with a remote server).

``HostileSocket(behaviour)`` serves every connection with ``behaviour(peer)``, an async function
given a ``Peer``: the connection, what the client has sent so far (``peer.received``, frames as
dicts) and an event set once ``session.close`` arrives (``peer.hung_up``). ``polite`` answers like
a plain agent (greeting, an answer to each typed turn, ``session.closed`` on hang-up) after
whatever ``before`` and ``each_turn`` frames the test plants.

``ElsewhereSocket`` is a ``VapClient`` whose HTTP goes to the sandbox it was made for and whose
agent socket goes to the hostile server: register-call is real, the call is the hostile one.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import threading
from collections.abc import Awaitable, Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from websockets.asyncio.server import ServerConnection, serve
from websockets.exceptions import ConnectionClosed

from vap_console.api import VapClient
from vap_console.api.realtime import AgentSocket, RegisteredCall, socket_url


def frame(**fields: object) -> str:
    return json.dumps(fields)


CREATED = frame(type="session.created", session_id="s_hostile", call_id="call_hostile", sample_rate=24000,
                channels=1)
GREETING = "Hello, this is the hostile agent."


@dataclass
class Peer:
    ws: ServerConnection
    server: HostileSocket
    received: list[dict[str, Any]] = field(default_factory=list)
    hung_up: asyncio.Event = field(default_factory=asyncio.Event)
    turns: asyncio.Queue[str] = field(default_factory=asyncio.Queue)

    def created(self) -> str:
        """session.created with this connection's own call id (``call_hostile_<n>``, n from 1)."""
        number = self.server.peers.index(self) + 1
        return frame(type="session.created", session_id=f"s_{number}", call_id=f"call_hostile_{number}",
                     sample_rate=24000, channels=1)

    async def listen(self) -> None:
        """Record what the client sends (kept in ``received``), until the connection ends."""
        with contextlib.suppress(ConnectionClosed):
            async for raw in self.ws:
                message = json.loads(raw)
                self.received.append(message)
                if message.get("type") == "session.close":
                    self.hung_up.set()
                elif message.get("type") == "input_text.send":
                    await self.turns.put(message.get("text", ""))

    async def say(self, text: str) -> None:
        await self.ws.send(frame(type="agent_start_talking"))
        await self.ws.send(frame(type="transcript.delta", role="assistant", text=text))
        await self.ws.send(frame(type="transcript", role="assistant", text=text))
        await self.ws.send(frame(type="agent_stop_talking"))

    async def goodbye(self) -> None:
        with contextlib.suppress(ConnectionClosed):
            await self.ws.send(frame(type="session.closed", reason="client_requested"))
            await self.ws.close()


Behaviour = Callable[[Peer], Awaitable[None]]


def polite(before: Sequence[str | bytes] = (), each_turn: Sequence[str | bytes] = (),
           created: str | None = "") -> Behaviour:
    """An agent that answers: ``created`` ("": a session.created with a call id of its own for
    each connection, ``call_hostile_<n>``; None: none sent), ``before``, the greeting, then for
    each typed turn ``each_turn`` and an answer; ``session.closed`` once hung up."""

    async def behave(peer: Peer) -> None:
        listening = asyncio.create_task(peer.listen())
        if created == "":
            await peer.ws.send(peer.created())
        elif created is not None:
            await peer.ws.send(created)
        for item in before:
            await peer.ws.send(item)
        await peer.say(GREETING)
        while not peer.hung_up.is_set():
            turn = asyncio.create_task(peer.turns.get())
            hang = asyncio.create_task(peer.hung_up.wait())
            done, pending = await asyncio.wait({turn, hang}, return_when=asyncio.FIRST_COMPLETED)
            for task in pending:
                task.cancel()
            if turn in done:
                for item in each_turn:
                    await peer.ws.send(item)
                await peer.say(f"You said: {turn.result()}")
        await peer.goodbye()
        listening.cancel()

    return behave


class HostileSocket:
    """``with HostileSocket(behaviour) as server:`` serves on 127.0.0.1 until the block ends."""

    def __init__(self, behaviour: Behaviour) -> None:
        self.behaviour = behaviour
        self.peers: list[Peer] = []
        self.port = 0
        self.ready = threading.Event()
        self.sent = 0  # frames sent by flooding behaviours (they count them here)
        self._loop: asyncio.AbstractEventLoop | None = None
        self._stop: asyncio.Event | None = None
        self._thread = threading.Thread(target=self._run, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def received(self) -> list[dict[str, Any]]:
        return [m for peer in self.peers for m in peer.received]

    def _run(self) -> None:
        asyncio.run(self._serve())

    async def _serve(self) -> None:
        self._loop = asyncio.get_running_loop()
        self._stop = stop = asyncio.Event()

        async def handler(ws: ServerConnection) -> None:
            peer = Peer(ws, self)
            self.peers.append(peer)
            # A behaviour waiting for a turn or a hang-up that never comes (the client just closed)
            # ends when the server does: the server waits for its handlers, and the thread's join
            # waited its whole 30 s for one (a test took 31 s for 1 s of work).
            behaving = asyncio.ensure_future(self.behaviour(peer))
            stopping = asyncio.ensure_future(stop.wait())
            await asyncio.wait({behaving, stopping}, return_when=asyncio.FIRST_COMPLETED)
            stopping.cancel()
            behaving.cancel()
            with contextlib.suppress(ConnectionClosed, asyncio.CancelledError):
                await behaving

        async with serve(handler, "127.0.0.1", 0, max_size=None, compression=None) as server:
            self.port = next(iter(server.sockets)).getsockname()[1]
            self.ready.set()
            await self._stop.wait()
            server.close(close_connections=False)
            for connection in list(server.connections):
                connection.transport.abort()

    def __enter__(self) -> HostileSocket:
        self._thread.start()
        if not self.ready.wait(30):
            raise RuntimeError("the hostile socket did not start")
        return self

    def __exit__(self, *exc: object) -> None:
        if self._loop is not None and self._stop is not None:
            self._loop.call_soon_threadsafe(self._stop.set)
        self._thread.join(30)


class ElsewhereSocket(VapClient):
    """HTTP to the server the client was made for; the agent socket to ``socket_base``."""

    socket_base = ""

    def agent_socket(self, registered: RegisteredCall | str, *, connect: Any = None) -> AgentSocket:
        token = registered if isinstance(registered, str) else registered.access_token
        return AgentSocket(socket_url(self.socket_base, token))


def client_kind(server: HostileSocket, base: type[VapClient] = VapClient) -> type[VapClient]:
    """A ``base`` whose agent sockets reach ``server``."""
    return type("ToHostile", (ElsewhereSocket, base), {"socket_base": server.url})


@contextlib.contextmanager
def hostile(behaviour: Behaviour) -> Iterator[HostileSocket]:
    with HostileSocket(behaviour) as server:
        yield server
