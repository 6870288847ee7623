"""The app's CSS parsed again only when it changed, not on every screen shown for the first time.

Textual refreshes the whole stylesheet when a screen it has not styled yet becomes current (a
new screen starts "out of date"): every rule of every widget is parsed again and every node of the
app restyled. Measured on the sandbox seed: 200-320 ms of the UI thread per area opened for the
first time, most of the first switch to an area (bench/scale.py, "switch"). A new screen's widgets
are styled as they mount, so when neither the sources nor the variables changed since the last
refresh there is nothing to parse again. A theme set, or CSS variables changed, still refresh
everything (tests/tui/test_css_refresh.py).
"""

from __future__ import annotations

from typing import Any, TypeVar

from textual.app import App

ReturnType = TypeVar("ReturnType")


class CssRefreshedOnChange(App[ReturnType]):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._css_refreshed_for: tuple[object, ...] | None = None

    def refresh_css(self, animate: bool = True) -> None:
        # What a refresh depends on: the CSS invalidated (a theme set) or its variables changed. A
        # widget class met for the first time adds its DEFAULT_CSS lazily: Textual parses it
        # into the rules as it styles that widget, scoped to it, so that needs no refresh either.
        state = (self._css_update_count, tuple(sorted(self.get_css_variables().items())))
        if state == self._css_refreshed_for:
            for screen in self.screen_stack:
                screen._css_update_count = self._css_update_count
            return
        super().refresh_css(animate)
        self._css_refreshed_for = state
