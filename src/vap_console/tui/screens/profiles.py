"""Profiles: every profile, its base URL and where its key comes from; add, use and remove.

Keyring calls can block (a locked Secret Service), so every one runs in a thread worker and
comes back as a message. Keys are only ever shown masked to their last four characters.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from functools import partial
from typing import Any

from rich.console import Group
from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.message import Message
from textual.screen import Screen
from textual.widgets import Static

from vap_console.credentials import (
    ENV_KEY,
    KeyringUnavailable,
    KeyStore,
    LocalIndex,
    ProfilesFileError,
    ResolvedCredentials,
    env_api_key,
)
from vap_console.tui import untrusted
from vap_console.tui.pairs import Pairs
from vap_console.tui.screens.base import ListScreen
from vap_console.tui.screens.dialog import Confirm, confirm_then
from vap_console.tui.screens.login import AsyncVerifier, LoginScreen
from vap_console.tui.services import Services, services_of
from vap_console.tui.untrusted import Literal
from vap_console.tui.widgets.banner import Banner
from vap_console.tui.widgets.key_bar import KeyBar
from vap_console.tui.widgets.rows import Column, RowTable, make_row
from vap_console.tui.widgets.status_bar import StatusBar


def in_browser_note(profile: str) -> str:
    return (f"This console is served to a browser (`vap web`) for profile {profile!r} only: profiles are "
            "added, switched and removed with `vap login`, `vap profiles` and `vap logout` on the machine "
            "that serves it.")


REMOVE_NOTE = (
    "Removes its key from the OS keyring, the profile from profiles.toml and its local id index. "
    "Nothing changes on the server."
)


@dataclass(frozen=True)
class ProfileRow:
    name: str
    base_url: str
    active: bool
    source: str  # env | session | keyring | none | unavailable
    masked: str


class ProfilesScreen(Screen[None]):
    LABEL = "Profiles"
    AUTO_FOCUS = "#profile-rows"
    COLUMNS = (
        # Floors so the headings stand apart even with no rows (the sandbox has none); narrow,
        # the key's source goes before the server.
        Column("Active", 6, 6),
        Column("Profile", 20, min_width=10),
        Column("Base URL", 40, min_width=20, drop=1),
        Column("Key", 24, min_width=12, drop=2),
    )
    BINDINGS = [
        Binding("a", "add", "Add", id="profiles.add", tooltip="Add a profile with a verified API key"),
        Binding("u", "use", "Use", id="profiles.use",
                tooltip="Make the highlighted profile active and point the console at it"),
        Binding("d", "remove", "Remove", id="profiles.remove",
                tooltip="Remove the highlighted profile and its key from the keyring"),
        Binding("r", "reload", "Refresh", id="profiles.refresh", tooltip="Read profiles and keys again"),
        Binding("escape", "back", "Back", id="profiles.back", tooltip="Back to the area you came from"),
    ]

    class Loaded(Message):
        def __init__(self, rows: list[ProfileRow], problem: str) -> None:
            super().__init__()
            self.rows = rows
            self.problem = problem

    class Resolved(Message):
        """The highlighted profile's credentials, read to switch to it (or why they cannot be)."""

        def __init__(self, name: str, credentials: ResolvedCredentials | None, problem: str,
                     keyring_failed: bool) -> None:
            super().__init__()
            self.name = name
            self.credentials = credentials
            self.problem = problem
            self.keyring_failed = keyring_failed

    class Removed(Message):
        def __init__(self, name: str, problem: str) -> None:
            super().__init__()
            self.name = name
            self.problem = problem

    def __init__(self, *, verify: AsyncVerifier | None = None, services: Services | None = None) -> None:
        super().__init__()
        self._services = services
        self._verify = verify
        self.rows: dict[str, ProfileRow] = {}
        self._focus_after_load: str | None = None

    @property
    def services(self) -> Services:
        return self._services if self._services is not None else services_of(self.app)

    @property
    def keystore(self) -> KeyStore | None:
        store = self.services.credentials
        return store if isinstance(store, KeyStore) else None

    def compose(self) -> ComposeResult:
        # Laid out as the areas are: the list in a panel, the highlighted profile beside it.
        yield StatusBar(self.LABEL, self.services)
        yield Banner()
        with Horizontal(id="body"):
            with Vertical(id="list-pane") as pane:
                pane.border_title = "Profiles"
                yield RowTable(self.COLUMNS, id="profile-rows")
                yield Static("", id="profiles-note")
            with VerticalScroll(id="detail-pane"):
                yield Literal(id="profile-detail")
        yield KeyBar()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Keys that cannot work here are not offered: none on the sandbox, which has no
        profiles; none that changes profiles in a browser; Use and Remove only with a profile
        highlighted."""
        if action in ("add", "use", "remove", "reload") and self.keystore is None:
            return False
        if action in ("add", "use", "remove") and self.services.in_browser:
            return False
        if action in ("use", "remove") and not self.rows:
            return None
        return True

    def _refused_in_browser(self) -> bool:
        """Under `vap web`: say why profiles cannot be changed here (True), else False."""
        if not self.services.in_browser:
            return False
        self.query_one(Banner).show(in_browser_note(self.services.profile_name), info=True)
        return True

    @on(RowTable.Highlighted, "#profile-rows")
    def _highlighted(self, event: RowTable.Highlighted) -> None:
        self._show_detail(self.rows.get(event.key or ""))

    def _show_detail(self, row: ProfileRow | None) -> None:
        detail = self.query_one("#profile-detail", Literal)
        if row is None:
            detail.update("")
            return
        in_use = row.name == self.services.profile_name
        source = {"env": f"{ENV_KEY} (overrides the stored key)", "session": "this session only",
                  "keyring": "the OS keyring", "none": "none stored: u asks for one",
                  "unavailable": "the OS keyring, which is unavailable"}.get(row.source, row.source)
        detail.update(Group(
            Text(row.name, style="bold"),
            Pairs([
                ("base URL", row.base_url),
                ("key", f"{row.masked} from {source}".strip() if row.masked else source),
                ("active", "yes: `vap` starts with it" if row.active else "no"),
                ("this console", "uses it now" if in_use else "u switches to it"),
            ]),
        ))

    def on_mount(self) -> None:
        if self.keystore is None:
            self.query_one(Banner).show(
                "This console runs on the embedded sandbox: no profiles and no keyring are used. "
                "Start `vap` without --sandbox to manage profiles.",
                info=True,
            )
            return
        self._refused_in_browser()
        self.action_reload()

    # --- reading ---

    def action_reload(self) -> None:
        if self.keystore is not None:
            self.query_one("#profiles-note", Static).update("Reading profiles and the keyring…")
            self.load()

    @work(thread=True, exclusive=True, group="profiles", exit_on_error=False, description="read profiles")
    def load(self) -> None:
        store = self.keystore
        assert store is not None
        try:
            config = store.profiles.load()
        except ProfilesFileError as exc:
            self.post_message(self.Loaded([], str(exc)))
            return
        problem = ""
        rows = []
        # In a browser, the one profile it serves: the others are not this page's to see.
        shown = [p for p in config.profiles.values()
                 if not self.services.in_browser or p.name == self.services.profile_name]
        for profile in shown:
            if problem:
                source, masked = "unavailable", ""
            else:
                try:
                    source, masked = store.key_source(profile.name)
                except KeyringUnavailable as exc:
                    # One timeout is enough: the other rows say "unavailable" without waiting again.
                    problem = str(exc)
                    source, masked = "unavailable", ""
            rows.append(ProfileRow(profile.name, profile.base_url, profile.name == config.active,
                                   source, masked))
        self.post_message(self.Loaded(rows, problem))

    @on(Loaded)
    def _loaded(self, message: Loaded) -> None:
        self.rows = {row.name: row for row in message.rows}
        table = self.query_one(RowTable)
        keep = self._focus_after_load or table.cursor_key or self.services.profile_name
        self._focus_after_load = None
        table.set_rows(
            [make_row(r.name, ("*" if r.active else "", r.name, r.base_url, f"{r.source} {r.masked}".strip()))
             for r in message.rows],
            keep_key=keep,
        )
        if message.problem:
            self.query_one(Banner).show(message.problem)
        elif not self._refused_in_browser():
            self.query_one(Banner).clear()
        self.query_one("#profiles-note", Static).update(untrusted.content(self._note()))  # names profiles
        self._show_detail(self.rows.get(table.cursor_key or ""))
        self.refresh_bindings()

    def _note(self) -> str:
        if self.services.in_browser:
            return f"The console uses profile {self.services.profile_label!r}."
        if not self.rows:
            return "No profiles yet. Press a to add one."
        note = f"The console uses profile {self.services.profile_label!r}. * marks the one `vap` starts with."
        store = self.keystore
        if store is not None and env_api_key(store.env):
            note += f" {ENV_KEY} is set: it overrides every profile's stored key."
        return note

    # --- adding ---

    def action_add(self) -> None:
        store = self.keystore
        if store is None or self._refused_in_browser():
            return
        self.app.push_screen(
            LoginScreen(store, title="Add a profile", verify=self._verify,
                        reason="The key is verified before it is kept."),
            self._added,
        )

    def _added(self, credentials: ResolvedCredentials | None) -> None:
        if credentials is None:
            return
        where = "for this session only" if credentials.source == "session" else "in the OS keyring"
        try:
            active = self.keystore.profiles.active() if self.keystore is not None else None
        except ProfilesFileError:
            active = None
        # The first profile added becomes the active one: the console follows it.
        follow = active is not None and active.name == credentials.profile != self.services.profile_name
        self.notify(f"Profile {credentials.profile!r} added; key {credentials.masked} kept {where}. "
                    + ("It is the active profile now: the console uses it." if follow else "Press u to use it."))
        self._focus_after_load = credentials.profile
        if follow:
            self.resolve_for_switch(credentials.profile)  # reads the list again once switched
        else:
            self.action_reload()

    # --- switching ---

    def action_use(self) -> None:
        name = self.query_one(RowTable).cursor_key
        if name is None or self.keystore is None or self._refused_in_browser():
            return
        self.resolve_for_switch(name)

    @on(RowTable.Selected, "#profile-rows")
    def _selected(self, event: RowTable.Selected) -> None:
        event.stop()
        if not self._refused_in_browser():
            self.resolve_for_switch(event.key)

    @work(thread=True, exclusive=True, group="profiles", exit_on_error=False, description="resolve a profile")
    def resolve_for_switch(self, name: str) -> None:
        store = self.keystore
        assert store is not None
        try:
            credentials = store.resolve(name)
        except KeyringUnavailable as exc:
            self.post_message(self.Resolved(name, None, str(exc), True))
            return
        except (ProfilesFileError, ValueError) as exc:
            self.post_message(self.Resolved(name, None, str(exc), False))
            return
        self.post_message(self.Resolved(name, credentials, "", False))

    @on(Resolved)
    def _resolved(self, message: Resolved) -> None:
        creds = message.credentials
        store = self.keystore
        assert store is not None
        if creds is not None and creds.usable:
            self._switch(creds)
            return
        if creds is None and not message.keyring_failed:
            self.query_one(Banner).show(message.problem)
            return
        # No key for it (or the keyring failing): ask for one, then switch.
        row = self.rows.get(message.name)
        reason = message.problem or f"No API key for profile {message.name!r}: enter one to use it."
        self.app.push_screen(
            LoginScreen(store, profile=message.name, base_url=row.base_url if row else None,
                        reason=reason, verify=self._verify, keyring_failed=message.keyring_failed),
            lambda result: self._switch(result) if result is not None else None,
        )

    def _switch(self, credentials: ResolvedCredentials) -> None:
        store = self.keystore
        assert store is not None
        try:
            store.profiles.set_active(credentials.profile)
        except (OSError, ProfilesFileError, ValueError) as exc:
            self.query_one(Banner).show(f"Could not make {credentials.profile!r} active: {exc}")
            return
        self.switch_console(credentials)

    @work(exclusive=True, group="switch", exit_on_error=False, description="switch profile")
    async def switch_console(self, credentials: ResolvedCredentials) -> None:
        # Shielded: leaving Profiles (an area key) cancels this screen's workers, and a switch cut
        # half way left the console on the new key with the old profile's calls ledger and the old
        # client still open. It finishes whatever becomes of this screen.
        await asyncio.shield(self.services.switch_profile(credentials))
        self.notify(f"Now using profile {credentials.profile!r} ({credentials.source} {credentials.masked}).")
        self.action_reload()
        # The area underneath loads from the new server now, so the top line says whether it
        # answers (rather than "connecting" until Profiles is left) and its rows are the new ones.
        beneath = self.app.screen_stack[-2] if len(self.app.screen_stack) > 1 else None
        if isinstance(beneath, ListScreen):
            beneath.reload()

    # --- removing ---

    def action_remove(self) -> None:
        name = self.query_one(RowTable).cursor_key
        if name is None or self.keystore is None or self._refused_in_browser():
            return
        if name == self.services.profile_name:
            self.query_one(Banner).show(
                f"Profile {name!r} is the one the console uses: switch to another (u) before removing it.",
                info=True,
            )
            return
        confirm_then(self.app, Confirm(REMOVE_NOTE, title=f"Remove profile {name!r}?",
                                             yes="Remove", no="Keep", danger=True),
                     partial(self.remove_profile, name))

    @work(thread=True, exclusive=True, group="profiles", exit_on_error=False, description="remove a profile")
    def remove_profile(self, name: str) -> None:
        store = self.keystore
        assert store is not None
        try:
            store.delete(name)
        except KeyringUnavailable as exc:
            self.post_message(self.Removed(name, f"{exc} Nothing was changed."))
            return
        store.forget_session(name)
        try:
            store.profiles.remove(name)
            LocalIndex(name).drop()
        except (OSError, ProfilesFileError) as exc:
            self.post_message(self.Removed(name, f"The key is removed but the profile is not: {exc}"))
            return
        self.post_message(self.Removed(name, ""))

    @on(Removed)
    def _removed(self, message: Removed) -> None:
        if message.problem:
            # Reading again would only replace this sentence with the keyring's general one.
            self.query_one(Banner).show(message.problem)
            return
        self.notify(f"Profile {message.name!r} removed.")
        self.action_reload()

    def action_back(self) -> None:
        self.app.pop_screen()

    def on_worker_state_changed(self, event: Any) -> None:
        # Expected failures come back as messages; anything else is a bug shown as one line.
        worker = event.worker
        if worker.error is not None and worker.is_finished:
            self.services.worker_failed(worker, self)
