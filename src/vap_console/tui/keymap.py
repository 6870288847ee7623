"""The ids a keymap in config.toml can name: every binding id the console declares."""

from __future__ import annotations

import importlib
import importlib.util

from textual.binding import Binding
from textual.dom import DOMNode

from vap_console.tui.areas import LAZY_AREAS, PROFILES_MODULE


def known_binding_ids() -> set[str]:
    """Every binding id the console's own widgets and screens declare (what a keymap can name)."""
    if importlib.util.find_spec(PROFILES_MODULE) is not None:
        importlib.import_module(PROFILES_MODULE)  # its screens are imported only when opened
    for module, _name in LAZY_AREAS.values():
        importlib.import_module(module)  # so are the areas' until first shown
    ids: set[str] = set()
    pending: list[type[DOMNode]] = [DOMNode]
    while pending:
        cls = pending.pop()
        pending.extend(cls.__subclasses__())
        if cls.__module__.startswith("vap_console."):
            ids.update(b.id for b in cls.BINDINGS if isinstance(b, Binding) and b.id)
    return ids
