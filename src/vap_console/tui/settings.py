"""The console's own settings: config.toml next to the profiles, holding the theme and a keymap.

    theme = "nord"

    [keymap]
    "list.refresh" = "f5"        # binding id = key(s), comma-separated

No secret is ever written here.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field
from pathlib import Path

import platformdirs
import tomli_w

DEFAULT_THEME = "textual-dark"


def default_path() -> Path:
    return platformdirs.user_config_path("vap-console") / "config.toml"


@dataclass
class Settings:
    theme: str = DEFAULT_THEME
    keymap: dict[str, str] = field(default_factory=dict)
    # None keeps the settings in memory only (tests, benchmarks).
    path: Path | None = None
    # Why the file could not be read, shown once as a notification instead of failing start-up.
    problem: str | None = None

    @classmethod
    def load(cls, path: Path | None = None) -> Settings:
        path = path or default_path()
        settings = cls(path=path)
        if not path.exists():
            return settings
        try:
            data = tomllib.loads(path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
            settings.problem = f"{path}: could not be read ({exc}); using defaults"
            return settings
        theme = data.get("theme")
        if isinstance(theme, str) and theme:
            settings.theme = theme
        keymap = data.get("keymap", {})
        if isinstance(keymap, dict):
            bad = [k for k, v in keymap.items() if not isinstance(v, str) or not v.strip()]
            settings.keymap = {k: v.strip() for k, v in keymap.items() if k not in bad}
            if bad:
                settings.problem = f"{path}: keymap entries {', '.join(sorted(bad))} must be key strings; ignored"
        return settings

    def save(self) -> None:
        if self.path is None:
            return
        self.path.parent.mkdir(parents=True, exist_ok=True)
        data: dict[str, object] = {"theme": self.theme}
        if self.keymap:
            data["keymap"] = dict(self.keymap)
        tmp = self.path.with_suffix(".toml.tmp")
        tmp.write_text(tomli_w.dumps(data), encoding="utf-8")
        tmp.replace(self.path)
