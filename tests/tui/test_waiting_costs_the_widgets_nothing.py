"""The suite's waits cost the console nothing while they wait.

`until` and `quiet` (tests/tui/console_scenes.py) are behind almost every console test. They
used to wait with Pilot.pause(), which posts a callback to every widget of the screen at every
look: a wait cost CPU in proportion to how slow the machine was (a third of a wizard test's
CPU), on the machine `make test` must finish on in under ten minutes. Here a settled console is
waited on, for a state and for quiet, and no widget is sent the pilot's wait-for-the-screen
callback (what the console sends itself meanwhile is its own business).
"""

from __future__ import annotations

from typing import Any

import pytest
from textual.message_pump import MessagePump

from tests.tui.console_scenes import SIZE, build_console, quiet, settle, until


async def test_waiting_for_a_state_or_for_quiet_sends_no_widget_a_callback(monkeypatch: pytest.MonkeyPatch) -> None:
    console = build_console(start_screen="tools")
    async with console.app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        sent: list[str] = []
        call_later = MessagePump.call_later

        def counted(self: MessagePump, callback: Any, *args: Any, **kwargs: Any) -> bool:
            if "_wait_for_screen" in getattr(callback, "__qualname__", ""):
                sent.append(type(self).__name__)
            return call_later(self, callback, *args, **kwargs)

        monkeypatch.setattr(MessagePump, "call_later", counted)
        looks = iter(range(10))
        await until(pilot, lambda: next(looks) == 5)  # true at the sixth look
        await quiet(pilot)
        monkeypatch.undo()
        assert sent == []
