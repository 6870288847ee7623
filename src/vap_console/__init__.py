"""vap-console: a full-screen terminal console for the Voice Agent Platform API."""

import sys

# httpx imports its own command-line tool whenever click is installed (vap's scripting commands run
# on click): click's rest, pygments and rich's console, syntax and progress modules, ~70 ms of every
# start-up (the console's, and each `vap tools list`) for a tool this program never runs. An empty
# entry makes that optional import fail at once, as httpx allows for. Here, in the package's own
# first module, so no path into vap can import httpx before it is set (one did: the scripting
# commands' client imported httpx before vap_console.api).
if "httpx" not in sys.modules:
    sys.modules.setdefault("httpx._main", None)  # type: ignore[arg-type]  # None: import fails, as documented

__version__ = "0.1.0"
