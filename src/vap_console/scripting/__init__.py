"""`vap <area> …`: every area of the API as a command for scripts (click, no Textual).

This module is what cli.main asks before handing over; it imports nothing, so the console's own
commands pay nothing for the scripting ones.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

AREAS = ("numbers", "tools", "variables", "voices", "templates", "agents", "calls", "completion")
# What `vap --help` (argparse, cli.py) says of each: the click group's first help line, kept equal
# to it by tests/test_cli_help.py, without importing click for it.
AREA_SUMMARIES = {
    "numbers": "Phone-number rentals: list, show, search, requirements, rent, watch.",
    "tools": "HTTP tools: list, show, create, delete, try (call the webhook).",
    "variables": "Prompt variables.",
    "voices": "Voice engines and their voices: list, say (a sample).",
    "templates": "Agent templates.",
    "agents": "Agents: list, show, create, delete, limits (call slots), webcall, talk, test.",
    "calls": "Calls: list, show, add, place (outbound, billed), stats, export.",
    "completion": "Print the shell completion script for bash, zsh or fish.",
}
# click's shell completion: the shell sets this when it asks `vap` for completions.
COMPLETE_VAR = "_VAP_COMPLETE"


def wants(argv: Sequence[str], environ: Mapping[str, str] | None = None) -> bool:
    """Whether these arguments are an area command (after any leading ``--profile NAME``)."""
    import os

    if COMPLETE_VAR in (environ if environ is not None else os.environ):
        return True
    args = list(argv)
    while args and (args[0] == "--profile" or args[0].startswith("--profile=")):
        args = args[2:] if args[0] == "--profile" else args[1:]
    return bool(args) and args[0] in AREAS
