"""API keys in the OS keyring (service ``vap-console``, user = profile name), never in a file.

Every keyring call runs in its own daemon thread with a timeout: a locked Secret Service can
block forever waiting for an unlock prompt nobody sees. Any keyring failure — no backend
(NoKeyringError), a broken one (InitError), any other KeyringError, or a hang — becomes one
``KeyringUnavailable`` whose message says how to fix it. There is no plaintext fallback; the
console instead offers to keep a key in memory for the session only.
"""

from __future__ import annotations

import os
import sys
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal, TypeVar

from vap_console.credentials.names import (
    DEFAULT_PROFILE,
    CredentialsInputError,
    check_base_url,
    check_profile_name,
)
from vap_console.credentials.profiles import ProfileStore
from vap_console.masking import visible_tail

SERVICE = "vap-console"
DEFAULT_TIMEOUT = 5.0
ENV_KEY = "VAP_API_KEY"
ENV_BASE_URL = "VAP_BASE_URL"
# The vendor's own SDK reads these; honoured when the VAP_ ones are unset, so one shell serves both.
ENV_KEY_FALLBACK = "RUMIK_API_KEY"
ENV_BASE_URL_FALLBACK = "RUMIK_BASE_URL"


def env_api_key(env: Mapping[str, str]) -> str:
    """The key the environment supplies: VAP_API_KEY, else RUMIK_API_KEY; "" when neither."""
    return env.get(ENV_KEY, "").strip() or env.get(ENV_KEY_FALLBACK, "").strip()


def env_base_url(env: Mapping[str, str]) -> tuple[str, str]:
    """(value, variable name) of the base URL the environment supplies; ("", "") when none."""
    for name in (ENV_BASE_URL, ENV_BASE_URL_FALLBACK):
        value = env.get(name, "").strip()
        if value:
            return value, name
    return "", ""

KeySource = Literal["env", "keyring", "session", "none"]

FIX_HINT = (
    "Unlock your keyring or install a Secret Service such as gnome-keyring "
    "(`apt install gnome-keyring`), or install `keyrings.alt`, "
    f"or set {ENV_KEY} for this shell."
)

if TYPE_CHECKING:
    from keyring.backend import KeyringBackend

T = TypeVar("T")


class KeyringUnavailable(Exception):
    """The OS keyring cannot be used right now. ``str()`` is one line naming the fix."""

    def __init__(self, reason: str) -> None:
        self.reason = reason
        super().__init__(f"The OS keyring is unavailable: {reason}. {FIX_HINT}")


def mask(key: str | None) -> str:
    """``…abcd``: the last four characters only; short keys show nothing of themselves
    (the rule: vap_console.masking)."""
    if not key:
        return ""
    return "…" + (visible_tail(key) or "•" * 4)


def check_api_key(key: str) -> str:
    """The key as typed or piped, stripped; raises naming the rule it breaks (never the key)."""
    key = key.strip()
    if not key:
        raise CredentialsInputError("API key: must not be empty")
    if len(key) > 512:
        raise CredentialsInputError("API key: must be at most 512 characters")
    if any(ch.isspace() or not ch.isprintable() for ch in key):
        raise CredentialsInputError("API key: must be one word, with no spaces or control characters")
    return key


@dataclass(frozen=True)
class ResolvedCredentials:
    """The key to use and the truth about where it came from. The key is left out of repr."""

    key: str | None = field(repr=False)
    source: KeySource
    base_url: str | None
    profile: str

    @property
    def masked(self) -> str:
        return mask(self.key)

    @property
    def usable(self) -> bool:
        return bool(self.key) and bool(self.base_url)

    def __str__(self) -> str:
        return f"profile {self.profile} ({self.source} {self.masked or 'no key'}) at {self.base_url or 'no base URL'}"


class KeyStore:
    """Keys for profiles: the environment, the session, then the OS keyring.

    ``backend`` pins a keyring backend (tests); by default keyring picks the platform's. ``env``
    stands in for ``os.environ``. Session-only keys live in this object and die with it.
    """

    def __init__(
        self,
        *,
        profiles: ProfileStore | None = None,
        timeout: float = DEFAULT_TIMEOUT,
        backend: KeyringBackend | None = None,
        env: Mapping[str, str] | None = None,
    ) -> None:
        self.profiles = profiles or ProfileStore()
        self.timeout = timeout
        self._backend = backend
        self._env = env
        self._session: dict[str, str] = {}

    def __repr__(self) -> str:
        return f"KeyStore(profiles={self.profiles!r}, session_profiles={sorted(self._session)!r})"

    @property
    def env(self) -> Mapping[str, str]:
        return os.environ if self._env is None else self._env

    # --- keyring calls, each bounded by the timeout ---

    def _call(self, what: str, fn: Callable[[KeyringBackend], T], secret: str = "") -> T:
        # Imported on first use: keyring costs ~150 ms to import, which VAP_API_KEY users never need.
        import keyring
        import keyring.errors

        box: dict[str, object] = {}
        done = threading.Event()

        def run() -> None:
            try:
                backend = self._backend or keyring.get_keyring()
                box["value"] = fn(backend)
            except BaseException as exc:  # noqa: BLE001 - handed to the caller's thread
                box["error"] = exc
            finally:
                done.set()

        # A daemon thread, not an executor: a hung D-Bus call must not keep the process alive.
        threading.Thread(target=run, name=f"keyring-{what}", daemon=True).start()
        if not done.wait(self.timeout):
            raise KeyringUnavailable(f"it did not answer within {self.timeout:g} s (is it locked?)")
        error = box.get("error")
        if error is None:
            return box["value"]  # type: ignore[return-value]  # what fn returned: a T
        if isinstance(error, keyring.errors.NoKeyringError):
            raise KeyringUnavailable(_no_backend_reason(self.env)) from None
        if isinstance(error, keyring.errors.KeyringLocked):
            raise KeyringUnavailable("it is locked") from None
        if isinstance(error, keyring.errors.InitError):
            raise KeyringUnavailable(f"it failed to start ({_scrub(error, secret)})") from None
        if isinstance(error, Exception):
            # Any other KeyringError, and what D-Bus and backend libraries raise of their own
            # (jeepney, secretstorage, OSError).
            raise KeyringUnavailable(f"{what} failed ({_scrub(error, secret)})") from None
        raise error  # type: ignore[misc]  # KeyboardInterrupt and friends

    def get(self, profile: str) -> str | None:
        user = check_profile_name(profile)
        return self._call("reading the key", lambda b: b.get_password(SERVICE, user))

    def set(self, profile: str, key: str) -> None:
        user = check_profile_name(profile)
        key = check_api_key(key)
        self._call("storing the key", lambda b: b.set_password(SERVICE, user, key), secret=key)

    def delete(self, profile: str) -> bool:
        """Remove the profile's key; False when the keyring held none."""
        user = check_profile_name(profile)

        def delete(b: KeyringBackend) -> bool:
            if b.get_password(SERVICE, user) is None:
                return False
            b.delete_password(SERVICE, user)
            return True

        return self._call("deleting the key", delete)

    def store_login(self, profile: str, base_url: str, key: str) -> ResolvedCredentials:
        """Keep a verified key in the keyring and record its profile; on failure, neither changes."""
        name = check_profile_name(profile)
        previous = self.get(name)
        self.set(name, key)
        try:
            self.profiles.add(name, base_url)
        except BaseException:
            # Put the keyring back as it was so a failed login leaves nothing behind.
            if previous:
                self.set(name, previous)
            else:
                self.delete(name)
            raise
        return ResolvedCredentials(check_api_key(key), "keyring", check_base_url(base_url), name)

    # --- session-only keys: for when the keyring fails and the user still wants to work ---

    def remember_for_session(self, profile: str, key: str) -> None:
        self._session[check_profile_name(profile)] = check_api_key(key)

    def forget_session(self, profile: str) -> None:
        self._session.pop(profile, None)

    # --- resolution ---

    def key_source(self, profile: str) -> tuple[KeySource, str]:
        """Where ``profile``'s key would come from, and that key masked (for listings).

        Raises KeyringUnavailable only when the keyring had to be asked.
        """
        env_key = env_api_key(self.env)
        if env_key:
            return "env", mask(env_key)
        if profile in self._session:
            return "session", mask(self._session[profile])
        key = self.get(profile)
        return ("keyring", mask(key)) if key else ("none", "")

    def profile_name(self, profile: str | None = None) -> str:
        """The profile a command means: the one named, else the active one, else ``default``."""
        if profile:
            return check_profile_name(profile)
        active = self.profiles.active()
        return active.name if active else DEFAULT_PROFILE

    def missing_profile(self, profile: str | None = None) -> str | None:
        """What a command should say before it asks the keyring for a key no profile can hold:
        there are no profiles at all, or none by that name. None when the key may be found (an
        environment key, a session key, a known profile). Never asks the keyring, so a machine
        without one hears what to do rather than that its keyring is unavailable."""
        if env_api_key(self.env):
            return None
        name = self.profile_name(profile)
        if name in self._session:
            return None
        profiles = self.profiles.load().profiles
        if name in profiles:
            return None
        if not profiles and not profile:
            return (f"No profiles yet: run `vap login` to add one, or set {ENV_KEY} (and "
                    f"{ENV_BASE_URL}) for this shell")
        listed = "`vap profiles` lists them" if profiles else "there are no profiles yet"
        return f"No profile {name}: {listed}; `vap login --profile {name}` adds it"

    def resolve(self, profile: str | None = None) -> ResolvedCredentials:
        """Which key and base URL to use, and where the key came from.

        Order: VAP_API_KEY (else RUMIK_API_KEY), then a session-only key, then the keyring.
        VAP_BASE_URL (else RUMIK_BASE_URL) overrides the profile's base URL. Raises KeyringUnavailable
        only when the keyring had to be asked.
        """
        name = self.profile_name(profile)
        stored = self.profiles.get(name)
        env_url, env_name = env_base_url(self.env)
        if env_url:
            try:
                env_url = check_base_url(env_url)
            except CredentialsInputError as exc:
                raise CredentialsInputError(f"{env_name}: {exc}") from None
        base_url = env_url or (stored.base_url if stored else None)
        env_key = env_api_key(self.env)
        if env_key:
            return ResolvedCredentials(env_key, "env", base_url, name)
        if name in self._session:
            return ResolvedCredentials(self._session[name], "session", base_url, name)
        key = self.get(name)
        if key:
            return ResolvedCredentials(key, "keyring", base_url, name)
        return ResolvedCredentials(None, "none", base_url, name)


def _no_backend_reason(env: Mapping[str, str]) -> str:
    # On Linux the usual cause is not a missing package but a missing D-Bus session (ssh, a
    # container, a CI job), which the Secret Service needs: say so rather than "install".
    if sys.platform.startswith("linux") and not env.get("DBUS_SESSION_BUS_ADDRESS"):
        return "no keyring backend was found (there is no D-Bus session, which a Secret Service needs)"
    return "no keyring backend was found"


def _scrub(error: BaseException, secret: str) -> str:
    text = f"{type(error).__name__}: {error}" if str(error) else type(error).__name__
    if secret:
        text = text.replace(secret, mask(secret))
    return text.splitlines()[0][:200] if text else type(error).__name__
