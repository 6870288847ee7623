"""`vap numbers rent` rents at most once per run, and a person's own retry after a lost answer can
go out under the same Idempotency-Key: the key is printed, never resent by the command itself."""

from __future__ import annotations

from pathlib import Path

import httpx

from tests.scripting.conftest import Vap
from tests.scripting.test_rent import application, files, write  # noqa: F401 - files is a fixture
from vap_console.sandbox.keys import SANDBOX_KEYS


class LoseFirstRental(httpx.AsyncBaseTransport):
    """The first POST /v1/phone-numbers reaches the sandbox, which rents and charges; its answer
    is lost on the way back. Every Idempotency-Key sent is kept."""

    def __init__(self, inner: httpx.AsyncBaseTransport, keys: list[str | None]) -> None:
        self.inner = inner
        self.keys = keys

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        if request.method == "POST" and request.url.path == "/v1/phone-numbers":
            self.keys.append(request.headers.get("Idempotency-Key"))
            if len(self.keys) == 1:
                await (await self.inner.handle_async_request(request)).aread()
                raise httpx.ReadError("connection reset by peer")
        return await self.inner.handle_async_request(request)


def test_a_lost_rental_answer_prints_its_key_and_the_rerun_with_it_charges_once(
    vap: Vap, tmp_path: Path, files: list[str],  # noqa: F811 - the fixture
) -> None:
    keys: list[str | None] = []
    vap.wrap = lambda inner: LoseFirstRental(inner, keys)
    account = vap.app.state.sandbox.account(SANDBOX_KEYS[vap.key])
    before = account.balance()
    data = write(tmp_path, application())
    result = vap("numbers", "rent", "--data", data, *files, "--yes")
    assert result.code == 1 and result.out == ""
    assert vap.sent.count("POST /v1/phone-numbers") == 1
    err = " ".join(result.err.split())
    assert "The number may be rented and the first month charged" in err
    assert "`vap numbers list` shows whether it is" in err and "Nothing was sent again" in err
    assert keys[0] and f"--idempotency-key {keys[0]}:" in err
    charged = before - account.balance()
    assert charged > 0  # the lost try did rent
    again = vap("numbers", "rent", "--data", data, *files, "--yes", "--idempotency-key", keys[0], "--json")
    assert again.code == 0, again.err
    assert keys == [keys[0], keys[0]]
    assert before - account.balance() == charged  # the same rental, charged once
    mine = [r for r in vap.api("GET", "/v1/phone-numbers")["items"] if r["requestedNumber"] == "+918045670101"]
    assert [r["id"] for r in mine] == [again.json()["id"]]
