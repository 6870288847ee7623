"""`make test` parses Textual's CSS once per test process, not once per console it starts.

Each console start used to parse every widget's DEFAULT_CSS and the app's CSS again, a fifth of a
plain scene's CPU, over a thousand times a run (tests/conftest.py ``_share_parsed_css``). A
second start here must parse nothing, and still look as the first did.
"""

from __future__ import annotations

from typing import Any

import pytest
from textual.css import stylesheet

from tests.tui.console_scenes import SIZE, build_console, settle


async def _start_tools() -> str:
    console = build_console(start_screen="tools")
    async with console.app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        return console.app.export_screenshot()


async def test_a_console_started_again_parses_no_css_and_looks_the_same(monkeypatch: pytest.MonkeyPatch) -> None:
    first = await _start_tools()
    parsed: list[str] = []
    parse = stylesheet.parse

    def counted(scope: str, css: str, *args: Any, **kwargs: Any) -> Any:
        parsed.append(css[:60])
        return parse(scope, css, *args, **kwargs)

    monkeypatch.setattr(stylesheet, "parse", counted)
    again = await _start_tools()
    assert parsed == []
    assert again == first
