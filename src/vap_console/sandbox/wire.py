"""Reading requests without ever letting bad input become a 500, and writing list answers."""

from __future__ import annotations

import json
import math
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse

from vap_console.sandbox.problems import Problem, invalid_field
from vap_console.sandbox.state import Account, SandboxState

JSON_BODY_MAX = 1024 * 1024


def _no_constants(name: str) -> Any:
    raise ValueError(f"{name} is not valid JSON")


def _finite(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):  # 1e400 parses as inf, which no JSON answer could carry back
        raise ValueError("number out of range")
    return value


def parse_json(raw: bytes | str, loc: str = "body") -> Any:
    """Strict JSON: no NaN or infinities, and only text that can be written back as UTF-8
    (a lone surrogate escape such as \\ud800 parses but could never be answered)."""
    try:
        value = json.loads(raw, parse_constant=_no_constants, parse_float=_finite)
        json.dumps(value, ensure_ascii=False).encode("utf-8")
    except (ValueError, RecursionError, UnicodeError):
        raise invalid_field(loc, "must be valid JSON in UTF-8") from None
    return value


async def read_json(request: Request) -> Any:
    content_type = request.headers.get("content-type", "application/json").split(";")[0].strip().lower()
    if content_type != "application/json" and not content_type.endswith("+json"):
        raise Problem(415, "unsupported_media_type", "Send the body as application/json.")
    raw = await request.body()
    if len(raw) > JSON_BODY_MAX:
        raise Problem(413, "payload_too_large", f"The body is larger than {JSON_BODY_MAX} bytes.")
    if not raw.strip():
        raise invalid_field("body", "is required")
    return parse_json(raw)


def account_of(request: Request) -> Account:
    account: Account = request.scope["state"]["account"]
    return account


def sandbox_of(request: Request) -> SandboxState:
    state: SandboxState = request.app.state.sandbox
    return state


def page(items: list[dict[str, Any]]) -> JSONResponse:
    return JSONResponse({"items": items, "count": len(items)})
