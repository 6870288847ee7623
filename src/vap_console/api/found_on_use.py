"""A package's names imported on first use (PEP 562 module ``__getattr__``), for api/ and api/models/:
``from vap_console.api import VapClient`` keeps working, while a command that never touches the
rental upload or the agents' models never imports (and builds) them."""

from __future__ import annotations

import importlib
from collections.abc import Mapping, MutableMapping
from typing import Any


def find(package: str, homes: Mapping[str, str], namespace: MutableMapping[str, Any], name: str) -> Any:
    """``name`` from the submodule ``homes`` names for it (a submodule itself when it names
    itself), kept in the package's ``namespace`` so the next lookup does not come here."""
    home = homes.get(name)
    if home is None:
        raise AttributeError(f"module {package!r} has no attribute {name!r}")
    module = importlib.import_module(f"{package}.{home}")
    value = module if home == name else getattr(module, name)
    namespace[name] = value
    return value
