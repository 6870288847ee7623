"""The rental wizard in an 80×24 terminal, the smallest common one: a snapshot of every step and
its two dialogs, and what a person would notice: Next always on screen, steps not cut off."""

from __future__ import annotations

import pytest
from textual.widgets import Button, Input

from tests.tui.console_scenes import laid_out, quiet
from tests.tui.test_wizard_snapshots import settle
from tests.tui.wizard_host import (
    next_step,
    pick_from_search,
    to_documents,
    to_review,
    until,
    wizard_of,
)
from vap_console.tui.screens.dialog import Confirm, DocumentTree, FilePicker

SIZE = (80, 24)


async def _number(pilot) -> None:
    await pick_from_search(pilot, wizard_of(pilot.app), "", city="Mumbai")


async def _requirements(pilot) -> None:
    wizard = wizard_of(pilot.app)
    await pick_from_search(pilot, wizard, "1010")
    await next_step(pilot, wizard, "requirements")


async def _enduser(pilot) -> None:
    wizard = wizard_of(pilot.app)
    await _requirements(pilot)
    await next_step(pilot, wizard, "enduser")


async def _documents(pilot) -> None:
    await to_documents(pilot, wizard_of(pilot.app))


async def _review(pilot) -> None:
    await to_review(pilot, wizard_of(pilot.app), pattern="1010")


async def _confirm(pilot) -> None:
    await _review(pilot)
    await pilot.press("pagedown")
    await until(pilot, lambda: isinstance(pilot.app.screen, Confirm))


async def _file_picker(pilot) -> None:
    wizard = wizard_of(pilot.app)
    await to_documents(pilot, wizard)
    wizard.query_one("#doc-0-browse", Button).press()
    # pushed is not yet composed: on a busy machine its tree came a moment later
    await until(pilot, lambda: isinstance(pilot.app.screen, FilePicker) and bool(pilot.app.screen.query(DocumentTree)))
    tree = pilot.app.screen.query_one(DocumentTree)
    await until(pilot, lambda: tree.root.children)  # the folder listed


async def settle_picker(pilot) -> None:
    """The picker's tree keeps a loader worker waiting for folders to open: settled is when
    nothing is queued and two frames in a row are the same, whatever that worker does."""
    for widget in pilot.app.screen.query(Input):
        widget.cursor_blink = False
    previous = None
    for _ in range(100):
        await quiet(pilot, workers=False)
        current = pilot.app.export_screenshot()
        if current == previous:
            return
        previous = current
    raise AssertionError("the picker never settled")


STEPS = {
    "number": _number,
    "requirements": _requirements,
    "enduser": _enduser,
    "documents": _documents,
    "review": _review,
    "confirm": _confirm,
    "file_picker": _file_picker,
}


@pytest.mark.parametrize("name", list(STEPS))
def test_snapshot_80x24(snap_compare, make_host, name) -> None:
    async def run(pilot) -> None:
        await STEPS[name](pilot)
        await (settle_picker if name == "file_picker" else settle)(pilot)

    assert snap_compare(make_host(), terminal_size=SIZE, run_before=run)


async def test_every_step_keeps_next_and_back_on_screen_and_names_where_it_is(make_host) -> None:
    app = make_host()
    async with app.run_test(size=SIZE) as pilot:
        wizard = wizard_of(app)
        await until(pilot, lambda: laid_out(app, "#wizard-next"))
        for step, go in (("number", None), ("requirements", _requirements), ("enduser", None),
                         ("documents", None), ("review", None)):
            if go is not None:
                await go(pilot)
            elif step != "number":
                if step == "documents":
                    from tests.tui.wizard_host import fill_end_user

                    await fill_end_user(pilot, wizard)
                if step == "review":
                    from tests.tui.wizard_host import fill_documents

                    await fill_documents(pilot, wizard)
                await next_step(pilot, wizard, step)
            assert wizard.step == step
            for button in ("#wizard-next", "#wizard-back", "#wizard-cancel"):
                await until(pilot, lambda: laid_out(app, button))
            steps_line = wizard.query_one("#steps")
            text = steps_line.render().plain
            # The line fits, and the current step says its name.
            assert len(text.rstrip()) <= steps_line.content_size.width
            from vap_console.tui.screens.wizard.rules import STEP_TITLES

            assert STEP_TITLES[step] in text


@pytest.mark.slow
async def test_the_confirm_buttons_are_on_screen(make_host) -> None:
    app = make_host()
    async with app.run_test(size=SIZE) as pilot:
        await _confirm(pilot)
        for button in ("#yes", "#no"):
            await until(pilot, lambda: laid_out(app, button))
