"""A huge server for the console: list pages of 5,000–50,000 records, strings of 10,000 characters,
Devanagari, CJK and emoji, served through an httpx transport (no sockets, no sandbox serialising).

Records are copies of the sandbox seed's own records (so every shape is one the console already
parses), with ids, names and the long strings changed. Bodies are encoded once, up front; the
transport streams them in chunks after a fixed latency, the same way for the seed bodies the
baseline runs on, so the only difference between the two runs is the data.

Also used by tests/tui/test_scale*.py with smaller counts.
"""

from __future__ import annotations

import asyncio
import copy
import json
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass

import httpx

LIST_PATHS = {
    "numbers": "/v1/phone-numbers",
    "tools": "/v1/tools",
    "variables": "/v1/variables",
    "voices": "/v1/voices",
    "templates": "/v1/agents/templates",
    "agents": "/v1/agents",
}

# Scripts the issue names: Devanagari with its combining marks and conjuncts, CJK (two cells a
# character), emoji (two cells, some joined by ZWJ into one glyph), mixed with plain ASCII.
WORDS = (
    "नमस्ते", "ग्राहक", "क्लिनिक", "हिन्दी", "दंत‌चिकित्सा",
    "歯科", "予約", "受付", "東京", "客服",
    "🦷", "📞", "👩‍⚕️", "🇮🇳", "✨",
    "appointment", "reception", "https://example.com/path?q=1", "Pune", "callback",
)


_BASE = " ".join(WORDS[(i * 7) % len(WORDS)] + ("" if i % 3 else f" {i}") for i in range(6_000))


def long_text(seed: int, length: int = 10_000) -> str:
    """``length`` characters of mixed scripts, different for each seed."""
    start = (seed * 37) % (len(_BASE) - length)
    return f"{seed}: " + _BASE[start:start + length - len(str(seed)) - 2]


def short_name(seed: int) -> str:
    """A short name in one of the scripts: what a table row shows."""
    return (
        f"ग्राहक_नाम_{seed}", f"顧客名_{seed}", f"🦷 clinic {seed}", f"caller_{seed:05d}",
        f"नमस्ते 東京 {seed}", f"plain_name_{seed}",
    )[seed % 6]


@dataclass(frozen=True)
class Sizes:
    variables: int = 50_000
    tools: int = 5_000
    rentals: int = 5_000
    agents: int = 5_000
    templates: int = 1_000
    engines: int = 40
    # Style descriptions per voice engine, and events / history entries on the busiest rentals.
    descriptions: int = 30
    events: int = 2_000
    long: int = 10_000


def is_long(i: int) -> bool:
    """Which records carry 10,000-character strings: many among the first rows (the ones the
    cursor moves over), then one in 250."""
    return (i < 120 and i % 4 == 1) or i % 250 == 7


async def seed_bodies(key: str | None = None) -> dict[str, bytes]:
    """The sandbox seed's list bodies, as the sandbox answers them."""
    from vap_console.sandbox.app import create_app
    from vap_console.sandbox.clock import VirtualClock
    from vap_console.sandbox.keys import DEFAULT_KEY

    transport = httpx.ASGITransport(app=create_app(clock=VirtualClock()))
    headers = {"Authorization": f"Bearer {key or DEFAULT_KEY}"}
    async with httpx.AsyncClient(transport=transport, base_url="http://seed", headers=headers) as client:
        return {area: (await client.get(path)).content for area, path in LIST_PATHS.items()}


def huge_bodies(seed: dict[str, bytes], sizes: Sizes = Sizes()) -> dict[str, bytes]:
    """Bodies for every list, grown from the seed's records."""
    pages = {area: json.loads(body) for area, body in seed.items()}
    n = sizes.long
    out: dict[str, object] = {}

    rentals = []
    templates_r = pages["numbers"]["items"]
    for i in range(sizes.rentals):
        r = copy.deepcopy(templates_r[i % len(templates_r)])
        r["id"] = f"00000000-0000-4000-8000-{i:012d}"
        r["city"] = long_text(i, n) if is_long(i) else short_name(i)
        if is_long(i):
            r["alias"] = long_text(i + 1, n)
            r["lastError"] = long_text(i + 2, n)
        events = r.get("events") or []
        if i % 1000 == 5 and events:
            events = [dict(events[k % len(events)], note=f"event {k} " + WORDS[k % len(WORDS)])
                      for k in range(sizes.events)]
        if is_long(i) and events:
            events = [*events, dict(events[-1], note=long_text(i + 3, n))]
        r["events"] = events
        c = r.get("compliance")
        if c is not None:
            history = c.get("history") or [{"status": "submitted", "at": r["createdAt"]}]
            if i % 1000 == 5:
                history = [dict(history[k % len(history)], note=f"review {k}") for k in range(sizes.events)]
            if is_long(i):
                history = [*history, dict(history[-1], note=long_text(i + 4, n))]
            c["history"] = history
        rentals.append(r)
    out["numbers"] = {"items": rentals, "count": len(rentals)}

    tools = []
    seed_tools = [t for t in pages["tools"]["items"] if not t["id"].startswith("default-")]
    builtins = [t for t in pages["tools"]["items"] if t["id"].startswith("default-")]
    tools.extend(builtins)
    for i in range(sizes.tools - len(builtins)):
        t = copy.deepcopy(seed_tools[i % len(seed_tools)])
        t["id"] = f"10000000-0000-4000-8000-{i:012d}"
        t["name"] = f"tool_{i:05d}_" + ("x" * n if i % 500 == 7 else short_name(i))
        if is_long(i):
            t["description"] = long_text(i, n)
            t["config"]["url"] = "https://example.com/" + long_text(i + 1, n).replace(" ", "/")
            t["config"]["body"] = long_text(i + 2, n)
        tools.append(t)
    out["tools"] = {"items": tools, "count": len(tools)}

    variables = []
    seed_vars = pages["variables"]["items"]
    tool_ids = [t["id"] for t in tools[len(builtins):]]
    for i in range(sizes.variables):
        v = dict(seed_vars[i % len(seed_vars)])
        v["id"] = f"20000000-0000-4000-8000-{i:012d}"
        v["name"] = long_text(i, n) if i % 500 == 7 else short_name(i)
        v["defaultValue"] = long_text(i + 1, n) if is_long(i) else f"value {i} {WORDS[i % len(WORDS)]}"
        if v.get("toolId"):
            v["toolId"] = tool_ids[i % len(tool_ids)]
        variables.append(v)
    out["variables"] = {"items": variables, "count": len(variables)}

    voices = pages["voices"]
    engines = []
    for i in range(sizes.engines):
        e = copy.deepcopy(voices["models"][i % len(voices["models"])])
        e["id"] = voices["defaultModel"] if i == 0 else f"engine_{i:03d}"
        e["label"] = short_name(i) + (" " + long_text(i, n) if i % 10 == 3 else "")
        base = e["descriptions"] or [{"id": "style", "label": "Style", "subtitle": "", "description": ""}]
        e["descriptions"] = [
            dict(base[k % len(base)], id=f"style_{k}", label=short_name(k),
                 description=long_text(i * 100 + k, n))
            for k in range(sizes.descriptions)
        ]
        engines.append(e)
    out["voices"] = {"defaultModel": voices["defaultModel"], "models": engines}

    templates = []
    seed_templates = pages["templates"]["items"]
    for i in range(sizes.templates):
        t = copy.deepcopy(seed_templates[i % len(seed_templates)])
        t["id"] = f"30000000-0000-4000-8000-{i:012d}"
        t["slug"] = f"template-{i:04d}"
        t["name"] = short_name(i)
        t["sortOrder"] = i
        if is_long(i):
            t["description"] = long_text(i, n)
            t["systemInstruction"] = long_text(i + 1, n)
            t["greeting"] = long_text(i + 2, n)
        templates.append(t)
    out["templates"] = {"items": templates, "count": len(templates)}

    agents = []
    seed_agents = pages["agents"]["items"]
    for i in range(sizes.agents):
        a = copy.deepcopy(seed_agents[i % len(seed_agents)])
        a["id"] = f"40000000-0000-4000-8000-{i:012d}"
        a["handle"] = f"ua_{i:012d}"
        a["name"] = long_text(i, n) if is_long(i) else short_name(i)
        if is_long(i):
            a["systemInstruction"] = long_text(i + 1, n)
            a["greeting"] = long_text(i + 2, n)
        agents.append(a)
    out["agents"] = {"items": agents, "count": len(agents)}

    return {area: json.dumps(page, ensure_ascii=False).encode() for area, page in out.items()}


class _Chunks(httpx.AsyncByteStream):
    def __init__(self, body: bytes, chunk: int, pause: float) -> None:
        self.body, self.chunk, self.pause = body, chunk, pause

    async def __aiter__(self) -> AsyncIterator[bytes]:
        for start in range(0, len(self.body), self.chunk):
            yield self.body[start:start + self.chunk]
            await asyncio.sleep(self.pause)


class ListServer(httpx.AsyncBaseTransport):
    """Answers the list GETs with fixed bodies, as a network would: the first byte after ``latency``,
    then ``chunk`` bytes every ``pause`` seconds (256 KiB / 5 ms ≈ 50 MB/s); the rest goes to
    ``inner`` (the sandbox)."""

    def __init__(self, inner: httpx.AsyncBaseTransport, bodies: dict[str, bytes], *,
                 latency: float = 0.05, chunk: int = 256 * 1024, pause: float = 0.005) -> None:
        self.inner = inner
        self.bodies = {LIST_PATHS[area]: body for area, body in bodies.items()}
        self.latency, self.chunk, self.pause = latency, chunk, pause
        self.requests: dict[str, int] = {}

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        body = self.bodies.get(request.url.path) if request.method == "GET" else None
        if body is None:
            return await self.inner.handle_async_request(request)
        self.requests[request.url.path] = self.requests.get(request.url.path, 0) + 1
        await asyncio.sleep(self.latency)
        return httpx.Response(200, headers={"content-type": "application/json",
                                            "content-length": str(len(body))},
                              stream=_Chunks(body, self.chunk, self.pause))


def serving(bodies: dict[str, bytes], **options: float) -> Callable[[httpx.AsyncBaseTransport], ListServer]:
    """A ``transport_wrapper`` for tests.tui.console_scenes.build_console."""
    return lambda inner: ListServer(inner, bodies, **options)  # type: ignore[arg-type]
