"""`vap login`, `vap logout` and `vap profiles`: keys into and out of the OS keyring.

Each command prints one clear line on failure (to stderr, prefixed ``vap <command>:``) and
returns 1, or 2 for a usage problem; never a traceback, never the key (masked to its last four).
"""

from __future__ import annotations

import getpass
import sys
from collections.abc import Callable
from typing import TextIO
from urllib.parse import urlsplit

from vap_console.credentials import (
    DEFAULT_BASE_URL,
    ENV_BASE_URL,
    ENV_KEY,
    CredentialsInputError,
    KeyringUnavailable,
    KeyStore,
    LocalIndex,
    ProfilesFileError,
    check_api_key,
    check_base_url,
    env_api_key,
    env_base_url,
    key_host_warning,
    mask,
)
from vap_console.literal import clean

EXIT_OK = 0
EXIT_FAILURE = 1
EXIT_USAGE = 2

# (base_url, key) -> None, raising vap_console.api.errors.ApiError when the key is not good.
Verifier = Callable[[str, str], None]


class _Fail(Exception):
    def __init__(self, message: str, code: int = EXIT_FAILURE) -> None:
        super().__init__(message)
        self.code = code


def _say(text: str, stream: TextIO | None = None) -> None:
    # Profile names, base URLs and server messages reach a terminal: control characters visible.
    print(clean(text), file=stream or sys.stdout)


def _host(base_url: str) -> str:
    return urlsplit(base_url).netloc or base_url


def keyring_ways_on(masked: str, host: str, profile: str, reason: str) -> str:
    """A good key with nowhere to keep it: what is true, and the three ways on, in one message."""
    return (
        f"key {masked} is good (verified at {host}) but was not stored: the OS keyring is "
        f"unavailable ({reason}). Ways on: set {ENV_KEY} (and {ENV_BASE_URL}) for this shell; or "
        f"run `vap --profile {profile}` and choose \"use this key for this session only\"; or install "
        "a Secret Service (`apt install gnome-keyring`) and run vap login again. Nothing was stored."
    )


def verify_key(base_url: str, key: str) -> None:
    # Imported here: the HTTP client and its models are for login only, not `vap profiles`.
    import asyncio

    from vap_console.credentials.verify import verify_key as check

    asyncio.run(check(base_url, key))


def _read_key(stream: TextIO, profile: str) -> str:
    if stream.isatty():
        try:
            typed = getpass.getpass(f"API key for profile {profile!r} (input hidden): ", stream=None)
        except EOFError:
            raise _Fail("no key entered") from None
    else:
        # `echo "$KEY" | vap login`: stdin is the key. Read a bounded amount: a key is at most
        # 512 characters, and a mistaken `vap login < big-file` must not read it all.
        typed = stream.read(2048)
    try:
        return check_api_key(typed)
    except CredentialsInputError as exc:
        where = "on stdin" if not stream.isatty() else "typed"
        raise _Fail(f"{exc} (key {where}); nothing was stored", EXIT_USAGE) from None


def login(
    profile: str | None = None,
    base_url: str | None = None,
    *,
    keystore: KeyStore | None = None,
    stdin: TextIO | None = None,
    verify: Verifier | None = None,
) -> int:
    """Ask for a key, verify it, store it in the keyring and record the profile."""
    store = keystore or KeyStore()
    try:
        name = store.profile_name(profile)
        config = store.profiles.load()
        existing = config.profiles.get(name)
        url_given = base_url or env_base_url(store.env)[0]
        if url_given:
            try:
                url = check_base_url(url_given)
            except CredentialsInputError as exc:
                flag = "--base-url" if base_url else env_base_url(store.env)[1]
                raise _Fail(f"{flag}: {exc}", EXIT_USAGE) from None
        elif existing:
            url = existing.base_url
        else:
            # The public service, so a person types only the key.
            url = DEFAULT_BASE_URL
            _say(f"Base URL: {url} (the public service; --base-url URL for another).", sys.stderr)
        # The key is checked before the keyring is touched: a wrong key is said as such even on a
        # machine with no keyring, and a good one is known good before the ways on are offered.
        key = _read_key(stdin or sys.stdin, name)
        warning = key_host_warning(key, url)
        if warning:
            _say(f"vap login: {warning}", sys.stderr)
        try:
            (verify or verify_key)(url, key)
        except Exception as exc:  # noqa: BLE001 - every failure becomes one line
            from vap_console.credentials.verify import explain_verify_error

            raise _Fail(f"{explain_verify_error(exc, url)}; nothing was stored") from None

        try:
            store.store_login(name, url, key)
        except KeyringUnavailable as exc:
            raise _Fail(keyring_ways_on(mask(key), _host(url), name, exc.reason)) from None
        except OSError as exc:
            raise _Fail(f"could not write {store.profiles.path} ({exc.strerror}); nothing was stored") from None
        active = store.profiles.active()
    except _Fail as fail:
        _say(f"vap login: {fail}", sys.stderr)
        return fail.code
    except KeyringUnavailable as exc:
        _say(f"vap login: {exc} Nothing was stored.", sys.stderr)
        return EXIT_FAILURE
    except (CredentialsInputError, ProfilesFileError) as exc:
        _say(f"vap login: {exc}", sys.stderr)
        return EXIT_USAGE if isinstance(exc, CredentialsInputError) else EXIT_FAILURE

    _say(f"Key {mask(key)} verified at {_host(url)} and stored in the OS keyring for profile {name!r}.")
    if active and active.name == name:
        _say(f"Active profile: {name}.")
    elif active:
        _say(f"Active profile is still {active.name!r}; use `vap --profile {name}` for this one.")
    if env_api_key(store.env):
        _say(f"Note: {ENV_KEY} is set in this shell and overrides the stored key.")
    return EXIT_OK


def logout(
    profile: str | None = None, forget: bool = False, *, keystore: KeyStore | None = None
) -> int:
    """Remove a profile's key from the keyring; with ``forget`` also the profile and its index."""
    store = keystore or KeyStore()
    try:
        name = store.profile_name(profile)
        known = store.profiles.get(name) is not None
        removed = store.delete(name)
        store.forget_session(name)
        if not known and not removed:
            raise _Fail(f"no profile named {name!r} and no key for it in the keyring")
        if forget:
            store.profiles.remove(name)
            LocalIndex(name).drop()
    except _Fail as fail:
        _say(f"vap logout: {fail}", sys.stderr)
        return fail.code
    except KeyringUnavailable as exc:
        _say(f"vap logout: {exc} Nothing was changed.", sys.stderr)
        return EXIT_FAILURE
    except (CredentialsInputError, ProfilesFileError) as exc:
        _say(f"vap logout: {exc}", sys.stderr)
        return EXIT_USAGE if isinstance(exc, CredentialsInputError) else EXIT_FAILURE

    if removed:
        _say(f"Removed the key for profile {name!r} from the OS keyring.")
    else:
        _say(f"Profile {name!r} had no key in the OS keyring.")
    if forget and known:
        _say(f"Forgot profile {name!r} and its local index.")
    if env_api_key(store.env):
        _say(f"Note: {ENV_KEY} is still set in this shell, so commands still have a key.")
    return EXIT_OK


def profiles(*, keystore: KeyStore | None = None) -> int:
    """List profiles: active marker, name, base URL, where the key comes from, masked key."""
    store = keystore or KeyStore()
    try:
        config = store.profiles.load()
    except ProfilesFileError as exc:
        _say(f"vap profiles: {exc}", sys.stderr)
        return EXIT_FAILURE
    env_key = env_api_key(store.env)
    env_url = env_base_url(store.env)[0]

    if not config.profiles:
        _say("No profiles yet: run `vap login` to add one (the public service; --base-url URL for another).")
        if env_key:
            target = env_url or f"no base URL: set {ENV_BASE_URL}"
            _say(f"{ENV_KEY} is set ({mask(env_key)}) and is used with {target}.")
        return EXIT_OK

    failure: KeyringUnavailable | None = None
    rows = [("", "PROFILE", "BASE URL", "KEY")]
    for p in config.profiles.values():
        if failure and not env_key:
            where = "unavailable"
        else:
            try:
                where = " ".join(store.key_source(p.name)).strip()
            except KeyringUnavailable as exc:
                # One hang is enough: do not wait the timeout again for every profile.
                failure = exc
                where = "unavailable"
        rows.append(("*" if p.name == config.active else "", p.name, p.base_url, where))
    widths = [max(len(r[i]) for r in rows) for i in range(3)]
    for row in rows:
        _say("  ".join(cell.ljust(w) for cell, w in zip(row[:3], widths)) + "  " + row[3])
    if env_key:
        _say(f"{ENV_KEY} is set: it overrides every profile's stored key.")
    if env_url:
        _say(f"{ENV_BASE_URL} is set: {env_url} replaces every profile's base URL.")
    if failure:
        _say(f"vap profiles: {failure}", sys.stderr)
        return EXIT_FAILURE
    return EXIT_OK
