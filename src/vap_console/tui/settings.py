"""The console's own settings: config.toml next to the profiles, holding the theme, a keymap and
the API client's network limits.

    theme = "nord"

    [keymap]
    "list.refresh" = "f5"        # binding id = key(s), comma-separated

    [network]                    # each optional, a number more than 0 (docs/api.md)
    request_timeout = 30         # seconds for one attempt: connect, send, the whole answer
    total_timeout = 120          # seconds for one call, its retries and waits included
    min_transfer_rate_kib = 16   # KiB/s a large body must keep up to earn more time
    max_response_mib = 64        # the largest answer accepted

No secret is ever written here.
"""

from __future__ import annotations

import math
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypedDict

import platformdirs
import tomli_w

DEFAULT_THEME = "textual-dark"

# [network] key -> (VapClient argument, factor from the file's unit to the argument's). The
# defaults live in vap_console.api.client; a key left out keeps the client's default.
NETWORK_KEYS: dict[str, tuple[str, int]] = {
    "request_timeout": ("request_timeout", 1),
    "total_timeout": ("total_timeout", 1),
    "min_transfer_rate_kib": ("min_transfer_rate", 1024),
    "max_response_mib": ("max_response_bytes", 1024 * 1024),
}


class ClientOptions(TypedDict, total=False):
    """The VapClient keyword arguments config.toml's [network] table can set (see NETWORK_KEYS)."""

    request_timeout: float
    total_timeout: float
    min_transfer_rate: float
    max_response_bytes: int


def default_path() -> Path:
    return platformdirs.user_config_path("vap-console") / "config.toml"


@dataclass
class Settings:
    theme: str = DEFAULT_THEME
    keymap: dict[str, str] = field(default_factory=dict)
    # The [network] table as read (kept whole so that saving the theme never drops it);
    # client_options() turns its valid entries into VapClient arguments.
    network: dict[str, Any] = field(default_factory=dict)
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
        network = data.get("network", {})
        if isinstance(network, dict):
            settings.network = dict(network)
            bad_network = network_problems(settings.network)
        else:
            bad_network = ["[network] must be a table"]
        if bad_network:
            note = f"{path}: {'; '.join(bad_network)}; using the defaults for those"
            settings.problem = f"{settings.problem}. {note}" if settings.problem else note
        return settings

    def client_options(self) -> ClientOptions:
        """VapClient keyword arguments from the valid [network] entries (none: the defaults)."""
        scaled = {
            NETWORK_KEYS[key][0]: value * NETWORK_KEYS[key][1]
            for key, value in self.network.items()
            if key in NETWORK_KEYS and _positive_number(value)
        }
        options = ClientOptions()
        if "request_timeout" in scaled:
            options["request_timeout"] = float(scaled["request_timeout"])
        if "total_timeout" in scaled:
            options["total_timeout"] = float(scaled["total_timeout"])
        if "min_transfer_rate" in scaled:
            options["min_transfer_rate"] = float(scaled["min_transfer_rate"])
        if "max_response_bytes" in scaled:
            options["max_response_bytes"] = int(scaled["max_response_bytes"])
        return options

    def save(self) -> None:
        if self.path is None:
            return
        self.path.parent.mkdir(parents=True, exist_ok=True)
        data: dict[str, object] = {"theme": self.theme}
        if self.keymap:
            data["keymap"] = dict(self.keymap)
        if self.network:
            data["network"] = dict(self.network)
        tmp = self.path.with_suffix(".toml.tmp")
        tmp.write_text(tomli_w.dumps(data), encoding="utf-8")
        tmp.replace(self.path)


def network_problems(network: dict[str, Any]) -> list[str]:
    """What is wrong with a [network] table, one phrase per entry; empty when nothing is."""
    found = []
    for key, value in network.items():
        if key not in NETWORK_KEYS:
            found.append(f"[network] {key} is not a setting (known: {', '.join(NETWORK_KEYS)})")
        elif not _positive_number(value):
            found.append(f"[network] {key} must be a number more than 0, got {value!r}")
    return found


def _positive_number(value: object) -> bool:
    return (
        isinstance(value, (int, float))
        and not isinstance(value, bool)
        and math.isfinite(value)
        and value > 0
        # Scaled to bytes, a tiny fraction of a MiB would be a limit of 0.
        and value * 1024 * 1024 >= 1
    )
