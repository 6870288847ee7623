"""The login dialog: profile name, base URL and a masked API key, verified before it is kept.

It is the console's first screen when there is no usable key (``LoginApp``, run by the
launcher before the console opens a client), and the Profiles screen's "add" dialog. When the
keyring fails it says why and offers to keep the key in memory for this session only — never
in a file.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import TypedDict

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, VerticalScroll
from textual.message import Message
from textual.validation import ValidationResult, Validator
from textual.widgets import Button, Input, Label, Static

from vap_console.api import errors
from vap_console.credentials import (
    DEFAULT_BASE_URL,
    ENV_BASE_URL,
    ENV_KEY,
    CredentialsInputError,
    KeyringUnavailable,
    KeyStore,
    ProfilesFileError,
    ResolvedCredentials,
    check_api_key,
    check_base_url,
    check_profile_name,
    key_host_warning,
)
from vap_console.credentials.verify import explain_verify_error, verify_key
from vap_console.tui import untrusted
from vap_console.tui.screens.dialog import Dialog
from vap_console.tui.untrusted import LiteralApp

# (base_url, key) -> None; raises the client's ApiError when the key is not good.
AsyncVerifier = Callable[[str, str], Awaitable[None]]


class Checked(Validator):
    """A textual validator over one of the credentials layer's check functions."""

    def __init__(self, check: Callable[[str], str]) -> None:
        super().__init__()
        self._check = check

    def validate(self, value: str) -> ValidationResult:
        try:
            self._check(value)
        except CredentialsInputError as exc:
            return self.failure(str(exc))
        return self.success()


FIELDS = (
    # (input id, label, check)
    ("profile", "Profile name", check_profile_name),
    ("base-url", "Base URL", check_base_url),
    ("key", "API key", check_api_key),
)


class LoginScreen(Dialog[ResolvedCredentials | None]):
    """Dismisses with the credentials to use (source "keyring" or "session"), or None."""
    LABEL = "Log in"

    DEFAULT_CSS = """
    LoginScreen { align: center middle; }
    LoginScreen #login-dialog {
        width: 76; max-width: 100%; height: auto; max-height: 100%;
        border: thick $primary; background: $surface; padding: 1 2;
    }

    LoginScreen #login-title { text-style: bold; margin-bottom: 1; }
    LoginScreen #login-reason { color: $text-muted; margin-bottom: 1; height: auto; }
    LoginScreen Label { margin-top: 1; }
    LoginScreen .field-error { color: $error; height: auto; }
    LoginScreen #login-status { height: auto; margin-top: 1; }
    LoginScreen #key-warning { color: $warning; height: auto; display: none; }
    LoginScreen #key-warning.-shown { display: block; }
    LoginScreen #login-status.-error { color: $error; }
    LoginScreen #login-buttons { dock: bottom; height: auto; margin-top: 1; background: $surface; }
    LoginScreen #login-buttons Button { margin-right: 1; }
    LoginScreen #login-session { display: none; }
    LoginScreen.-keyring-failed #login-session { display: block; }
    /* Under 30 rows: title, reason and all three fields on screen at once, without scrolling. */
    LoginScreen.-short #login-dialog { padding: 0 1; }
    LoginScreen.-short Label { margin-top: 0; }
    LoginScreen.-short #login-buttons Button { height: 1; border: none !important; }
    """
    BINDINGS = [
        Binding("escape", "cancel", "Cancel", id="login.cancel", tooltip="Close without saving a key"),
    ]
    AUTO_FOCUS = "Input"

    class Refused(Message):
        """The key was not accepted, or could not be checked."""

        def __init__(self, text: str) -> None:
            super().__init__()
            self.text = text

    class KeyringFailed(Message):
        """The key is good but the OS keyring would not keep it."""

        def __init__(self, text: str) -> None:
            super().__init__()
            self.text = text

    class Saved(Message):
        def __init__(self, credentials: ResolvedCredentials) -> None:
            super().__init__()
            self.credentials = credentials

    def __init__(
        self,
        keystore: KeyStore,
        *,
        profile: str | None = None,
        base_url: str | None = None,
        reason: str = "",
        title: str = "Log in",
        verify: AsyncVerifier | None = None,
        cancel_label: str = "Cancel",
        keyring_failed: bool = False,
    ) -> None:
        super().__init__()
        self._keyring_known_broken = keyring_failed
        self.keystore = keystore
        # The public service's address is offered, so a person types only the key.
        self._initial = {"profile": profile or "", "base-url": base_url or DEFAULT_BASE_URL, "key": ""}
        self._reason = reason
        self._title = title
        self._verify = verify or verify_key
        self._cancel_label = cancel_label
        # The verified (profile, base URL, key), held only so "session only" need not re-check.
        self._verified: tuple[str, str, str] | None = None

    def compose(self) -> ComposeResult:
        # The dialog scrolls when the terminal is short; its buttons, docked, stay in view.
        with VerticalScroll(id="login-dialog"):
            with Horizontal(id="login-buttons"):
                yield Button("Verify and save", id="login-save", variant="primary")
                yield Button("Use this key for this session only", id="login-session", variant="warning")
                yield Button(self._cancel_label, id="login-cancel")
            yield Static(self._title, id="login-title")
            if self._reason:
                yield Static(untrusted.content(self._reason), id="login-reason")  # names the server
            for field_id, label, check in FIELDS:
                yield Label(label, id=f"{field_id}-label")
                # The profile's name and URL come from the config or the environment: shown with
                # their control characters visible (and refused by the checks if sent like that).
                yield untrusted.LiteralInput(
                    self._initial[field_id],
                    id=field_id,
                    password=field_id == "key",
                    placeholder={"profile": "e.g. work", "base-url": "https://…", "key": "rk_live_…"}[field_id],
                    validators=[Checked(check)],
                    validate_on=["submitted"],
                )
                yield Static("", id=f"{field_id}-error", classes="field-error")
            yield Static("", id="key-warning")
            yield Static(
                "The key is checked with GET /v1/voices, then kept in the OS keyring.",
                id="login-status",
            )

    def on_mount(self) -> None:
        # Known broken keyring: offer the session-only way from the start.
        self.set_class(self._keyring_known_broken, "-keyring-failed")
        # Start on the first empty field: on a re-login only the key is missing.
        for field_id, _, _ in FIELDS:
            box = self.query_one(f"#{field_id}", Input)
            if not box.value:
                box.focus()
                break

    # --- submit: every field re-checked, then the key verified and stored ---

    def _values(self) -> dict[str, str] | None:
        values: dict[str, str] = {}
        first_bad: Input | None = None
        for field_id, _, check in FIELDS:
            box = self.query_one(f"#{field_id}", Input)
            error = self.query_one(f"#{field_id}-error", Static)
            try:
                values[field_id] = check(box.value)
                error.update("")
            except CredentialsInputError as exc:
                error.update(untrusted.content(exc))  # quotes what was typed
                first_bad = first_bad or box
        if first_bad is not None:
            first_bad.focus()
            return None
        return values

    @on(Input.Changed, "#key, #base-url")
    def _warn_on_mismatch(self) -> None:
        # A sandbox key for a real host, or a live key for a local one: one line, as it is typed.
        key = self.query_one("#key", Input).value.strip()
        url = self.query_one("#base-url", Input).value
        warning = key_host_warning(key, url) if key else None
        line = self.query_one("#key-warning", Static)
        line.update(untrusted.content(warning or ""))  # quotes the host as typed
        line.set_class(bool(warning), "-shown")

    @on(Input.Submitted)
    def _submitted(self, event: Input.Submitted) -> None:
        event.stop()
        following = {"profile": "#base-url", "base-url": "#key"}.get(event.input.id or "")
        if following and not self.query_one(following, Input).value:
            self.query_one(following, Input).focus()
            return
        self._save()

    @on(Button.Pressed, "#login-save")
    def _save(self) -> None:
        values = self._values()
        if values is None:
            return
        self._start_check(values, session_only=False)

    def _start_check(self, values: dict[str, str], *, session_only: bool) -> None:
        self._verified = None
        self._status("Checking the key with GET /v1/voices…")
        self.query_one("#login-save", Button).disabled = True
        self.check_and_keep(values["profile"], values["base-url"], values["key"], session_only)

    # An explicit description: Textual's default one repr()s the arguments, and one is the key.
    @work(exclusive=True, group="login", exit_on_error=False, description="check and keep a key")
    async def check_and_keep(self, name: str, url: str, key: str, session_only: bool) -> None:
        try:
            await self._verify(url, key)
        except Exception as exc:  # noqa: BLE001 - every failure is shown as one sentence
            self.post_message(self.Refused(explain_verify_error(exc, url)))
            return
        self._verified = (name, url, key)
        if session_only:
            await self._keep_for_session(name, url, key)
            return
        try:
            # The keyring can block (a locked Secret Service); KeyStore bounds it with a timeout.
            credentials = await asyncio.to_thread(self.keystore.store_login, name, url, key)
        except KeyringUnavailable as exc:
            self.post_message(self.KeyringFailed(str(exc)))
            return
        except (OSError, ProfilesFileError) as exc:
            self.post_message(self.Refused(f"The key is good but the profile could not be saved: {exc}"))
            return
        self.post_message(self.Saved(credentials))

    @on(Refused)
    def _refused(self, message: Refused) -> None:
        self.query_one("#login-save", Button).disabled = False
        self._status(message.text[:1].upper() + message.text[1:] + ". Nothing was stored.", error=True)
        self.query_one("#key", Input).focus()

    @on(KeyringFailed)
    def _keyring_failed(self, message: KeyringFailed) -> None:
        self.query_one("#login-save", Button).disabled = False
        self.add_class("-keyring-failed")
        self._status(f"The key is valid. {message.text}", error=True)
        self.query_one("#login-session", Button).focus()

    @on(Saved)
    def _saved(self, message: Saved) -> None:
        self.dismiss(message.credentials)

    # --- the keyring failed: keep the verified key in memory only ---

    @on(Button.Pressed, "#login-session")
    def _session_only(self) -> None:
        values = self._values()
        if values is None:
            return
        if self._verified == (values["profile"], values["base-url"], values["key"]):
            self.keep_verified_for_session()
        else:
            self._start_check(values, session_only=True)

    @work(exclusive=True, group="login", exit_on_error=False, description="keep a key for the session")
    async def keep_verified_for_session(self) -> None:
        assert self._verified is not None
        await self._keep_for_session(*self._verified)

    async def _keep_for_session(self, name: str, url: str, key: str) -> None:
        self.keystore.remember_for_session(name, key)
        # The profile holds no secret, so it is kept even when the key cannot be.
        try:
            await asyncio.to_thread(self.keystore.profiles.add, name, url)
        except (OSError, ProfilesFileError) as exc:
            self.notify(f"The profile could not be saved ({exc}); the key works for this session.",
                        severity="warning")
        self.post_message(self.Saved(ResolvedCredentials(key, "session", url, name)))

    @on(Button.Pressed, "#login-cancel")
    def action_cancel(self) -> None:
        self.workers.cancel_group(self, "login")
        self.dismiss(None)

    def _status(self, text: str, *, error: bool = False) -> None:
        status = self.query_one("#login-status", Static)
        status.update(untrusted.content(text))  # quotes the server's answer
        status.set_class(error, "-error")


class LoginScreenArgs(TypedDict):
    """LoginApp's arguments for its one LoginScreen (tests read them to see why login was asked)."""

    profile: str | None
    base_url: str | None
    reason: str
    verify: AsyncVerifier | None
    cancel_label: str
    keyring_failed: bool


class LoginApp(LiteralApp[ResolvedCredentials | None]):
    """The console's first screen when no usable key exists; returns the credentials or None."""

    TITLE = "vap console · log in"

    def __init__(
        self,
        keystore: KeyStore,
        *,
        profile: str | None = None,
        base_url: str | None = None,
        reason: str = "",
        verify: AsyncVerifier | None = None,
        keyring_failed: bool = False,
    ) -> None:
        super().__init__()
        self._screen_args: LoginScreenArgs = {
            "profile": profile, "base_url": base_url, "reason": reason, "verify": verify,
            "cancel_label": "Quit", "keyring_failed": keyring_failed,
        }
        self.keystore = keystore

    def on_mount(self) -> None:
        self.push_screen(LoginScreen(self.keystore, **self._screen_args), callback=self.exit)


def no_key_reason(resolved: ResolvedCredentials | None, failure: KeyringUnavailable | None) -> str:
    """Why the login screen is shown, in a sentence."""
    if failure is not None:
        return f"{failure} You can still use a key for this session only."
    if resolved is None or not resolved.base_url:
        return ("No profile yet: enter a name and an API key (rk_live_…); the base URL is the public "
                "service's unless you change it.")
    return f"No API key for profile {resolved.profile!r}: enter one to continue."


def stored_key_rejected(resolved: ResolvedCredentials, verify: AsyncVerifier | None = None) -> str | None:
    """Why the server refuses a stored key (revoked, expired, lacking the scope), or None.

    Anything else (the server unreachable, a 5xx) is for the console to show, not a reason to
    ask for another key: None then too.
    """
    assert resolved.key is not None and resolved.base_url is not None
    try:
        base_url, key = resolved.base_url, resolved.key

        async def check() -> None:  # asyncio.run takes a coroutine; a verifier returns any awaitable
            await (verify or verify_key)(base_url, key)

        asyncio.run(check())
    except (errors.Unauthorized, errors.ForbiddenScope) as exc:
        return (f"The key stored for profile {resolved.profile!r} was refused: "
                f"{explain_verify_error(exc, resolved.base_url)}. Enter a new one to continue.")
    except Exception:  # noqa: BLE001 - the console says what is wrong with the server
        return None
    return None


def resolve_or_login(
    keystore: KeyStore, profile: str | None = None, *, verify: AsyncVerifier | None = None,
    check_stored: bool = False,
) -> ResolvedCredentials | None:
    """The credentials to open the console with: resolved, or asked for on a login screen.

    None when the user quits the login screen. For the launcher; not for use inside a running app.
    Raises CredentialsInputError for a bad VAP_BASE_URL, or VAP_API_KEY set with no base URL.
    ``check_stored``: a stored key is first tried against the server; a refused one (revoked,
    expired) opens the login screen saying so, rather than a console that can only say "rejected".
    """
    failure: KeyringUnavailable | None = None
    resolved: ResolvedCredentials | None = None
    try:
        resolved = keystore.resolve(profile)
    except KeyringUnavailable as exc:
        failure = exc
    if resolved is not None and resolved.usable:
        # VAP_API_KEY would shadow any key typed now: the console reports its refusal instead.
        refused = stored_key_rejected(resolved, verify) if check_stored and resolved.source != "env" else None
        if refused is None:
            return resolved
        app = LoginApp(keystore, profile=resolved.profile, base_url=resolved.base_url, reason=refused,
                       verify=verify)
        return app.run()
    if resolved is not None and resolved.source == "env":
        # A key typed now would be shadowed by VAP_API_KEY anyway; the base URL is what is missing.
        raise CredentialsInputError(
            f"{ENV_KEY} is set but profile {resolved.profile!r} has no base URL: set {ENV_BASE_URL}"
        )
    name = resolved.profile if resolved else keystore.profile_name(profile)
    url = resolved.base_url if resolved else None
    if url is None:
        stored = keystore.profiles.get(name)
        url = stored.base_url if stored else None
    app = LoginApp(keystore, profile=name, base_url=url, reason=no_key_reason(resolved, failure),
                   verify=verify, keyring_failed=failure is not None)
    return app.run()
