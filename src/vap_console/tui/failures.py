"""How a failure is put into words, and the one message that carries it to the one handler.

A worker that fails lands in ``VapApp.worker_failed``: the screen it ran on may show it in its
own words (``api_failed``), else it becomes an :class:`ApiFailed` carrying the error and what
Retry runs (``retry_for``), handled in one place. Code that is not a worker posts the message.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol, cast, runtime_checkable

from textual.app import App
from textual.message import Message
from textual.screen import Screen
from textual.worker import Worker

from vap_console.api import errors
from vap_console.tui.widgets.banner import Banner


def error_title(error: BaseException) -> str:
    if isinstance(error, errors.ApiError):
        return f"{error.status_label} · {error.code}" if error.status_label else error.code
    return type(error).__name__


def describe_error(error: BaseException) -> str:
    """A sentence naming the code; never the request, never the key."""
    if isinstance(error, errors.ApiError):
        return str(error)
    # A bug, not an API answer: say so plainly rather than crash the console.
    return f"Unexpected {type(error).__name__}: {error}"


class ApiFailed(Message):
    """A failure to show: the error, and what Retry runs (None: no Retry). It bubbles to the app,
    whose one handler puts it in ``origin``'s banner, or in a toast where there is none."""

    def __init__(self, error: BaseException, retry: Callable[[], object] | None = None, *,
                 origin: Screen[Any] | None = None) -> None:
        super().__init__()
        self.error = error
        self.retry = retry
        self.origin = origin


class ShowsFailures:
    """The one handler of :class:`ApiFailed`, mixed into an App (the console, and any host of its
    screens): the message in the origin screen's banner with its Retry, else in a toast."""

    def on_api_failed(self, failure: ApiFailed) -> None:
        app = cast("App[Any]", self)
        message = describe_error(failure.error)
        banners = (failure.origin or app.screen).query(Banner)
        if banners:
            banners.first().show(message, failure.retry)
        else:
            app.notify(message, title=error_title(failure.error), severity="error", timeout=8)


@runtime_checkable
class HandlesFailures(Protocol):
    """A screen whose workers' failures the app reports (screens.base.ForwardsWorkerFailures)."""

    def api_failed(self, worker: Worker[Any], error: BaseException) -> bool:
        """Show ``error`` in the screen's own words; False leaves it to the app's handler."""
        ...

    def retry_for(self, group: str) -> Callable[[], object] | None:
        """What Retry runs after a failed worker of ``group``: the request that failed, again."""
        ...


@runtime_checkable
class HoldsUnsentInput(Protocol):
    """A screen holding what was typed and not sent (the rental wizard): quitting asks first."""

    def is_dirty(self) -> bool: ...
