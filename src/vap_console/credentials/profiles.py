"""Profiles: a name and a base URL each, plus which one is active, in ``profiles.toml``.

The file lives in the platformdirs config dir and never holds a secret: keys are in the OS
keyring (see ``keystore``). Example::

    active = "default"

    [profiles.default]
    base_url = "https://silk-api.rumik.ai"
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import platformdirs

from vap_console.credentials.index import APP_NAME, write_atomically
from vap_console.credentials.names import (
    CredentialsInputError,
    check_base_url,
    check_profile_name,
)


class ProfilesFileError(Exception):
    """profiles.toml exists but cannot be read; the message names the file and the fault."""


class UnknownProfile(CredentialsInputError):
    def __init__(self, name: str, known: list[str]) -> None:
        self.name = name
        hint = f" (known: {', '.join(known)})" if known else " (none yet: run `vap login`)"
        super().__init__(f"profile {name!r}: no such profile{hint}")


@dataclass(frozen=True)
class Profile:
    name: str
    base_url: str


@dataclass
class ProfilesConfig:
    """What profiles.toml holds, in file order."""

    profiles: dict[str, Profile] = field(default_factory=dict)
    active: str | None = None

    def names(self) -> list[str]:
        return list(self.profiles)

    def active_profile(self) -> Profile | None:
        return self.profiles.get(self.active) if self.active else None


def default_config_dir() -> Path:
    return platformdirs.user_config_path(APP_NAME)


class ProfileStore:
    """Reads and writes profiles.toml. Every change is a whole-file atomic replace."""

    def __init__(self, config_dir: Path | None = None) -> None:
        self.path = (config_dir or default_config_dir()) / "profiles.toml"

    def __repr__(self) -> str:
        return f"ProfileStore(path={str(self.path)!r})"

    def load(self) -> ProfilesConfig:
        try:
            text = self.path.read_text(encoding="utf-8")
        except FileNotFoundError:
            return ProfilesConfig()
        except (OSError, UnicodeDecodeError) as exc:
            raise ProfilesFileError(f"{self.path}: cannot be read ({exc.__class__.__name__})") from None
        import tomllib  # only when there is a file: a script on VAP_API_KEY alone never parses TOML

        try:
            raw = tomllib.loads(text)
        except tomllib.TOMLDecodeError as exc:
            raise ProfilesFileError(f"{self.path}: not valid TOML ({exc}); fix or delete it") from None
        config = ProfilesConfig()
        table = raw.get("profiles", {})
        if not isinstance(table, dict):
            raise ProfilesFileError(f"{self.path}: 'profiles' must be a table of [profiles.NAME]")
        for name, entry in table.items():
            url = entry.get("base_url") if isinstance(entry, dict) else None
            if not isinstance(url, str):
                raise ProfilesFileError(f"{self.path}: [profiles.{name}] needs base_url = \"https://…\"")
            try:
                config.profiles[check_profile_name(name)] = Profile(name, check_base_url(url))
            except CredentialsInputError as exc:
                raise ProfilesFileError(f"{self.path}: [profiles.{name}]: {exc}") from None
        active = raw.get("active")
        if isinstance(active, str) and active in config.profiles:
            config.active = active
        elif config.profiles:
            # A hand-edited file may name a removed profile; fall back rather than fail.
            config.active = next(iter(config.profiles))
        return config

    def save(self, config: ProfilesConfig) -> None:
        import tomli_w  # only `vap login` and the console's profile forms write: no command that reads pays

        doc: dict[str, object] = {}
        if config.active:
            doc["active"] = config.active
        doc["profiles"] = {p.name: {"base_url": p.base_url} for p in config.profiles.values()}
        write_atomically(self.path, tomli_w.dumps(doc))

    def get(self, name: str) -> Profile | None:
        return self.load().profiles.get(name)

    def active(self) -> Profile | None:
        return self.load().active_profile()

    def add(self, name: str, base_url: str) -> Profile:
        """Add a profile or change its base URL. The first profile becomes the active one."""
        profile = Profile(check_profile_name(name), check_base_url(base_url))
        config = self.load()
        config.profiles[profile.name] = profile
        if config.active is None:
            config.active = profile.name
        self.save(config)
        return profile

    def remove(self, name: str) -> bool:
        """Drop a profile; False when there was none. If it was active, the next one is."""
        config = self.load()
        if name not in config.profiles:
            return False
        del config.profiles[name]
        if config.active == name:
            config.active = next(iter(config.profiles), None)
        self.save(config)
        return True

    def set_active(self, name: str) -> Profile:
        config = self.load()
        if name not in config.profiles:
            raise UnknownProfile(name, config.names())
        config.active = name
        self.save(config)
        return config.profiles[name]
