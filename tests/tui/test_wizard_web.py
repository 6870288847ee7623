"""In `vap web` the rental wizard says whose files it picks documents from (issue 14, point 3)."""

from __future__ import annotations

import socket

import pytest
from textual.app import App

from tests.tui.wizard_host import wizard_of

pytestmark = pytest.mark.usefixtures("fast_polls")


@pytest.mark.parametrize("in_browser", [True, False])
async def test_the_documents_step_says_files_come_from_the_serving_machine(make_host, monkeypatch, in_browser):
    # Textual's own answer when textual-serve runs the console (its web driver); a terminal says no.
    monkeypatch.setattr(App, "is_web", property(lambda self: in_browser))
    app = make_host()
    async with app.run_test(size=(120, 36)):
        notes = wizard_of(app).query("#doc-web-note")
        if not in_browser:
            assert not notes
            return
        text = str(notes.first().content)
        assert socket.gethostname() in text and "not from this computer" in text
