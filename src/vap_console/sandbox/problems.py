"""Error answers in the spec's shape (section 2.9): raised anywhere, rendered once by the app."""

from __future__ import annotations

from typing import Any

from starlette.responses import JSONResponse


class Problem(Exception):
    """An error answer: status, code, a sentence for a person, and extras of the error body."""

    def __init__(
        self,
        status: int,
        code: str,
        message: str,
        *,
        details: list[dict[str, str]] | None = None,
        headers: dict[str, str] | None = None,
        **extra: Any,
    ) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message
        self.details = details
        self.headers = headers or {}
        self.extra = extra

    def body(self) -> dict[str, Any]:
        body: dict[str, Any] = {"error": self.message, "code": self.code}
        if self.details is not None:
            body["details"] = self.details
        body.update(self.extra)
        return body

    def response(self) -> JSONResponse:
        return JSONResponse(self.body(), status_code=self.status, headers=self.headers)


class FieldProblems:
    """Collects every failing field so one 422 lists them all, as the spec asks."""

    def __init__(self) -> None:
        self.details: list[dict[str, str]] = []

    def add(self, loc: str, message: str) -> None:
        """``loc`` is a body field (``name``, ``config.url``) unless it names its place itself."""
        if not loc.startswith(("body", "query.", "header.")):
            loc = f"body.{loc}"
        self.details.append({"loc": loc, "message": message})

    def __bool__(self) -> bool:
        return bool(self.details)

    def raise_if_any(self) -> None:
        if self.details:
            raise invalid(self.details)


def invalid(details: list[dict[str, str]]) -> Problem:
    fields = ", ".join(d["loc"] for d in details)
    return Problem(422, "invalid_request", f"Invalid request: check {fields}.", details=details)


def invalid_field(loc: str, message: str) -> Problem:
    problems = FieldProblems()
    problems.add(loc, message)
    return invalid(problems.details)


def json_object(body: Any, hint: str | None = None) -> dict[str, Any]:
    """``body`` as a JSON object, or a 422 naming the body (``hint``: what to send instead of the
    generic "check body")."""
    if isinstance(body, dict):
        return body
    if hint is None:
        raise invalid_field("body", "must be a JSON object")
    raise Problem(422, "invalid_request", hint, details=[{"loc": "body", "message": "must be a JSON object"}])


def not_found(what: str) -> Problem:
    return Problem(404, "not_found", f"No {what} here.")


def whole(value: Any) -> int | None:
    """A JSON whole number (5 or 5.0: the same number in JSON) as an int; None for anything else."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return None
