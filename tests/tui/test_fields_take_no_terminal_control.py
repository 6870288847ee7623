"""What the wizard puts in its fields by itself (a search result, a picked file) never reaches the
terminal as control: a number holding control characters is refused naming the field, a file
whose name holds them shows them as stand-ins and is still the file that is read."""

from __future__ import annotations

import httpx
import pytest
from textual.widgets import Button, DataTable, DirectoryTree, Input

from tests.e2e.documents import make_pdf
from tests.tui.console_scenes import click, quiet, until
from tests.tui.hostile import CLIPBOARD, PoisonedSearch, assert_drawn_safely
from tests.tui.wizard_host import to_documents, wizard_of
from vap_console.literal import clean
from vap_console.tui.screens.dialog import FilePicker

pytestmark = pytest.mark.usefixtures("fast_polls")

# A file name with an OSC 52 clipboard write, BELs and a C1 CSI in it.
HOSTILE_NAME = "evil \x1b]52;c;ZmlsZS1wYXlsb2Fk\x07 bell\x07 csi\x9b31m.pdf"


async def test_a_search_result_holding_control_characters_is_refused_naming_the_field(make_host) -> None:
    app = make_host()
    app.spy.inner = httpx.ASGITransport(app=PoisonedSearch(app.sandbox))
    async with app.run_test(size=(120, 36)) as pilot:
        wizard = wizard_of(app)
        await click(pilot, "#search")
        table = wizard.query_one("#results", DataTable)
        await until(pilot, lambda: table.row_count > 1)
        table.focus()
        await until(pilot, lambda: table.has_focus and table.cursor_row == 0)
        await pilot.press("enter")
        status = wizard.query_one("#search-status")
        await until(pilot, lambda: "Not picked" in str(status.content))
        said = str(status.content)
        assert "Number to rent: the server's value" in said and "Country: the server's value" in said
        assert f"␛]52;c;{CLIPBOARD}␇" in said  # the value quoted with its stand-ins
        # Nothing changed: the fields keep what they had, nothing is picked.
        assert wizard.query_one("#number", Input).value == ""
        assert wizard.query_one("#country", Input).value == "IN"
        assert wizard.number_step.selected is None
        assert_drawn_safely(app, "refused pick")

        # The next result is an ordinary number: picked as before.
        await pilot.press("down")
        await until(pilot, lambda: table.cursor_row == 1)
        await pilot.press("enter")
        await until(pilot, lambda: wizard.query_one("#number", Input).value != "")
        assert wizard.number_step.selected is not None
        assert "Picked +91" in str(status.content)


async def test_a_picked_file_named_with_control_characters_shows_them_visibly_and_is_read(
        make_host, kyc_dir) -> None:
    odd = kyc_dir / "odd"
    odd.mkdir()
    real = make_pdf(odd / HOSTILE_NAME)
    app = make_host()
    async with app.run_test(size=(120, 36)) as pilot:
        wizard = wizard_of(app)
        await to_documents(pilot, wizard)
        path_box = wizard.query_one("#doc-1-path", Input)
        path_box.value = "kyc/odd/x.pdf"  # Browse… opens in the folder of the path typed
        await quiet(pilot)
        wizard.query_one("#doc-1-browse", Button).press()
        await until(pilot, lambda: isinstance(app.screen, FilePicker))
        tree = app.screen.query_one(DirectoryTree)
        await until(pilot, lambda: len(tree.root.children) == 1)
        tree.move_cursor(tree.root.children[0])
        await pilot.press("enter")
        await until(pilot, lambda: app.screen is wizard)
        entry = wizard.documents_step.entries[1]
        # Shown with stand-ins; the real path is what is checked and sent.
        assert path_box.value == clean(str(real.absolute()), multiline=False)
        assert "␛]52;c;ZmlsZS1wYXlsb2Fk␇ bell␇ csi\\x9b31m.pdf" in path_box.value
        await until(pilot, lambda: entry.current_check is not None)
        assert entry.path_text == str(real.absolute())
        assert "✔ evil ␛]52;c;" in str(wizard.query_one("#doc-1-path-error").content)
        assert wizard.documents_step.values()[1].path_text == str(real.absolute())
        assert_drawn_safely(app, "picked hostile file")

        # Edited by hand, the field is what is typed again.
        path_box.value = "kyc/pan-card.png"
        await until(pilot, lambda: entry.path_text == "kyc/pan-card.png")
