"""Command palette entries: go to each area, open profiles, and run the current screen's actions."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from functools import partial

from textual.command import DiscoveryHit, Hit, Hits, Provider

from vap_console.tui.areas import AREA_HELP, AREAS


class AreaCommands(Provider):
    def _commands(self) -> list[tuple[str, Callable[[], object], str]]:
        app = self.app
        commands: list[tuple[str, Callable[[], object], str]] = [
            (f"Go to {label}", partial(app.run_action, f"area('{mode}')"), f"{AREA_HELP[mode]} (key {key})")
            for mode, label, key in AREAS
        ]
        commands.append(("Go to Profiles", partial(app.run_action, "profiles"), "Profiles and their API keys (key 7)"))
        commands.append(("Show keys", partial(app.run_action, "keys_help"), "The keys of this screen (?)"))
        screen = self.screen
        for active in screen.active_bindings.values():
            binding = active.binding
            if active.node is app or not binding.description or not binding.show:
                continue
            commands.append((
                f"{getattr(screen, 'LABEL', '')}: {binding.description}".lstrip(": "),
                partial(app.run_action, binding.action, active.node),  # as Widget.run_action does
                binding.tooltip,
            ))
        return commands

    async def discover(self) -> Hits:
        for name, callback, help_text in self._commands():
            yield DiscoveryHit(name, callback, help=help_text)

    async def search(self, query: str) -> AsyncIterator[Hit]:
        matcher = self.matcher(query)
        for name, callback, help_text in self._commands():
            score = matcher.match(name)
            if score > 0:
                yield Hit(score, matcher.highlight(name), callback, help=help_text)
