"""Issue 4, point 6: a key written through every path — `vap login`, "this session only" and
the Profiles screen — is afterwards nowhere: not in any file under the config, data, cache or
state dirs, not in the logs, not in any screen shown, not in a snapshot SVG."""

from __future__ import annotations

import asyncio
import functools
import logging
from pathlib import Path

import keyring.errors
import pytest
from textual.widgets import Input

from tests.credentials.backends import FailingKeyring, MemoryKeyring, isolate_xdg
from tests.credentials.fake_api import fresh_key, verify_async, voices_server
from tests.tui.console_scenes import click, fill_login, laid_out, settle, until
from vap_console import auth_cli
from vap_console.api import VapClient
from vap_console.credentials import KeyStore
from vap_console.tui.app import make_app
from vap_console.tui.screens.login import LoginApp
from vap_console.tui.screens.profiles import ProfilesScreen
from vap_console.tui.widgets.rows import RowTable

ROOT = Path(__file__).resolve().parents[2]
SIZE = (110, 32)


class Pipe:
    def __init__(self, text: str) -> None:
        self.text = text

    def isatty(self) -> bool:
        return False

    def read(self, size: int = -1) -> str:
        return self.text


@pytest.fixture
def log_file(tmp_path: Path):
    """Every log record of every library, at DEBUG, into one file to scan."""
    path = tmp_path / "xdg" / "state" / "vap-console" / "test.log"
    path.parent.mkdir(parents=True, exist_ok=True)
    handler = logging.FileHandler(path, encoding="utf-8")
    handler.setFormatter(logging.Formatter("%(name)s %(levelname)s %(message)s %(args)s"))
    root = logging.getLogger()
    old_level = root.level
    root.addHandler(handler)
    root.setLevel(logging.DEBUG)
    yield path
    root.removeHandler(handler)
    root.setLevel(old_level)
    handler.close()


async def test_a_key_written_through_every_path_is_nowhere(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capfd: pytest.CaptureFixture[str],
    live_sandbox, log_file: Path,
) -> None:
    xdg = isolate_xdg(tmp_path, monkeypatch)
    keys = {"cli": fresh_key(), "session": fresh_key(), "screen": fresh_key()}
    screens: list[str] = []
    backend = MemoryKeyring()

    # 1. `vap login`, its key piped on stdin, checked over real HTTP. In a thread: the CLI runs
    #    its own event loop, as it does outside a test.
    with voices_server() as url:
        store = KeyStore(backend=backend)
        login = functools.partial(auth_cli.login, keystore=store)
        assert await asyncio.to_thread(login, "cli", url, stdin=Pipe(keys["cli"] + "\n")) == 0
        assert auth_cli.profiles(keystore=store) == 0
        # A failed login of the same key elsewhere: error paths must not leak it either.
        assert await asyncio.to_thread(login, "cli2", "http://127.0.0.1:9", stdin=Pipe(keys["cli"])) == 1

    # 2. The keyring fails; the key is used for this session only.
    broken = KeyStore(backend=FailingKeyring(keyring.errors.NoKeyringError("none")))
    login_app = LoginApp(broken, profile="temp", base_url="https://api.example.com",
                         verify=verify_async, keyring_failed=True)
    async with login_app.run_test(size=SIZE) as pilot:
        login_app.screen.query_one("#key", Input).value = keys["session"]
        screens.append(login_app.export_screenshot())
        await click(pilot, "#login-session")
        await settle(pilot)
    assert login_app.return_value is not None and login_app.return_value.source == "session"

    # 3. The Profiles screen: add a profile, then switch the console to it (its key is then
    #    refused by the sandbox, so the console's error paths run with it too).
    store = KeyStore(backend=backend)
    store.store_login("main", live_sandbox.base_url, "sk_sandbox_agent")
    app = make_app(
        client_factory=lambda: VapClient(live_sandbox.base_url, "sk_sandbox_agent", max_retries=0),
        profile_name="main", base_url=live_sandbox.base_url, credentials=store, start_screen="voices",
    )
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        app.push_screen(ProfilesScreen(verify=verify_async))
        await settle(pilot)
        await pilot.press("a")
        await until(pilot, lambda: laid_out(app, "LoginScreen #login-save"))
        login = app.screen
        fill_login(login, "added", live_sandbox.base_url, keys["screen"])
        screens.append(app.export_screenshot())
        await click(pilot, "#login-save")
        await settle(pilot)
        profiles = app.screen
        assert isinstance(profiles, ProfilesScreen)
        screens.append(app.export_screenshot())
        profiles.query_one(RowTable).move_to_key("added")
        await pilot.press("u")
        await settle(pilot)
        assert app.profile_name == "added"
        await pilot.press("escape")
        await settle(pilot)
        await pilot.press("1")
        await settle(pilot)
        screens.append(app.export_screenshot())
        assert app.connection == "rejected"

    # The keys did go where they belong...
    assert backend.items[("vap-console", "cli")] == keys["cli"]
    assert backend.items[("vap-console", "added")] == keys["screen"]
    # ...and nowhere else.
    captured = capfd.readouterr()
    places: dict[str, str] = {"stdout": captured.out, "stderr": captured.err}
    for n, svg in enumerate(screens):
        places[f"screen {n}"] = svg
    scanned_files = [p for d in xdg.values() for p in d.rglob("*") if p.is_file()]
    assert log_file in scanned_files and log_file.stat().st_size > 0
    assert any(p.name == "profiles.toml" for p in scanned_files)
    svgs = [p for d in ("tests/tui/__snapshots__", "screenshots") for p in (ROOT / d).rglob("*.svg")]
    assert svgs, "no snapshot SVGs found to scan"
    for path in scanned_files + svgs:
        places[str(path)] = path.read_text(encoding="utf-8", errors="replace")
    for which, key in keys.items():
        found = [where for where, text in places.items() if key in text]
        assert not found, f"the {which} key leaked into: {found}"
    # The masked form is what the person sees.
    assert f"…{keys['cli'][-4:]}" in captured.out
