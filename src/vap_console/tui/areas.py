"""The console's areas: one screen each, in the order of the number keys.

Kept apart from the app so that the command palette and the screens can name the areas without
importing the app (which imports them).
"""

from __future__ import annotations

from typing import Final

# (mode name, label, key) in the order of the number keys.
AREAS: Final[tuple[tuple[str, str, str], ...]] = (
    ("numbers", "Numbers", "1"),
    ("tools", "Tools", "2"),
    ("variables", "Variables", "3"),
    ("voices", "Voices", "4"),
    ("templates", "Templates", "5"),
    ("agents", "Agents", "6"),
    ("calls", "Calls", "8"),
)
AREA_HELP: Final[dict[str, str]] = {
    "numbers": "Rented phone numbers and their progress",
    "tools": "HTTP tools agents call before or during a call",
    "variables": "Account-wide prompt variables",
    "voices": "Voice engines, languages, voices and styles",
    "templates": "Starter agent templates",
    "agents": "Agents, web calls",
    "calls": "Calls: transcripts, recordings, credits, spend",
}
PROFILES_MODULE: Final = "vap_console.tui.screens.profiles"
# Areas other than Numbers, imported when first shown: start-up pays only for the first screen.
LAZY_AREAS: Final[dict[str, tuple[str, str]]] = {
    "tools": ("vap_console.tui.screens.tools", "ToolsScreen"),
    "variables": ("vap_console.tui.screens.variables", "VariablesScreen"),
    "voices": ("vap_console.tui.screens.voices", "VoicesScreen"),
    "templates": ("vap_console.tui.screens.templates", "TemplatesScreen"),
    "agents": ("vap_console.tui.screens.agents", "AgentsScreen"),
    "calls": ("vap_console.tui.screens.calls", "CallsScreen"),
}
