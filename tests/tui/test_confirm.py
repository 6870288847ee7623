"""The console's one yes/no question (screens/dialog.py `Confirm`): y says yes, n and Esc say no,
the safe answer has the focus so Enter alone does nothing harmful, and its words are shown literally."""

from __future__ import annotations

import pytest
from textual.app import App
from textual.widgets import Button, Static

from tests.tui.console_scenes import click, until
from vap_console.tui.screens.dialog import Confirm, confirm_then
from vap_console.tui.widgets.key_bar import KeyBar


class Asker(App[None]):
    def __init__(self, question: Confirm) -> None:
        super().__init__()
        self.question = question
        self.acted = 0

    def on_mount(self) -> None:
        confirm_then(self, self.question, self.act)

    def act(self) -> None:
        self.acted += 1


def deletion() -> Confirm:
    return Confirm("It cannot be undone.", title="Delete tool lookup?", yes="Delete", no="Keep", danger=True)


@pytest.mark.parametrize(("gesture", "acted"), [
    ("y", 1), ("n", 0), ("escape", 0), ("enter", 0), ("click #yes", 1), ("click #no", 0),
])
async def test_only_an_explicit_yes_acts(gesture: str, acted: int) -> None:
    app = Asker(deletion())
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: app.screen is app.question and app.focused is not None)
        assert app.focused is app.question.query_one("#no", Button)  # the safe answer
        if gesture.startswith("click "):
            await click(pilot, gesture.removeprefix("click "))
        else:
            await pilot.press(gesture)
        await until(pilot, lambda: app.screen is not app.question)
        await pilot.press("y")  # a key after the answer asks nothing and does nothing more
        await pilot.pause()
        assert app.acted == acted


async def test_its_words_and_keys_are_shown_literally() -> None:
    question = Confirm("Body [b]bold[/b] \x1b]52;c;ZXZpbA==\x07", title="Delete [@click=app.quit]x[/]?",
                       yes="Delete [red]", no="Keep")
    app = Asker(question)
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: app.screen is question and bool(question.query(KeyBar)))
        title = question.query_one(".dialog-title", Static).render()
        body = question.query_one("#confirm-text", Static).render()
        assert str(title) == "Delete [@click=app.quit]x[/]?"
        assert "[b]bold[/b]" in str(body) and "\x1b" not in str(body)
        assert str(question.query_one("#yes", Button).label) == "Delete [red] (y)"
        assert str(question.query_one("#no", Button).label) == "Keep (n)"
        await pilot.pause()
        keys = str(question.query_one(KeyBar).render())
        assert "esc No" in keys and "y Yes" in keys
        await pilot.press("n")
        await until(pilot, lambda: app.screen is not question)
        assert app.is_running and app.acted == 0
