"""A rental POST whose answer cannot be used (not JSON, a broken encoding) may still have rented
the number: the wizard never stays on "Sending…", looks for the rental before anything is sent
again, and lets the person go on."""

from __future__ import annotations

import httpx
import pytest

from tests.tui.wizard_host import Action, confirm_rent, rental_screen, to_review, until, wizard_of

pytestmark = pytest.mark.usefixtures("fast_polls")


def served_then(status: int, content: bytes, headers: dict[str, str]) -> Action:
    """The sandbox takes the POST (the number is rented), then the answer arrives mangled."""

    async def act(inner: httpx.AsyncBaseTransport, request: httpx.Request) -> httpx.Response:
        response = await inner.handle_async_request(request)
        await response.aread()
        return httpx.Response(status, content=content, headers=headers)

    return act


@pytest.mark.parametrize(
    ("content", "headers"),
    [
        (b"<html><body>Welcome to the hotel wifi</body></html>", {"content-type": "text/html"}),
        (b"this is not gzip", {"content-type": "application/json", "content-encoding": "gzip"}),
    ],
    ids=["html", "broken-gzip"],
)
async def test_an_unusable_answer_is_checked_before_anything_is_sent_again(make_host, content, headers):
    app = make_host()
    app.spy.plan.append(served_then(201, content, headers))
    async with app.run_test(size=(120, 36)) as pilot:
        wizard = wizard_of(app)
        await to_review(pilot, wizard)
        await confirm_rent(pilot, wizard)
        await until(pilot, lambda: rental_screen(app) is not None)
        assert len(app.spy.posts) == 1  # found by looking, never sent twice
        assert any("created after all" in toast for toast in app.toasts)
