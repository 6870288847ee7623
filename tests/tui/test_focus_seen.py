"""Focus is always where the person looks: scrolled into view whenever it moves, and typing that
follows a Tab at once lands in the field Tab went to."""

from __future__ import annotations

from textual import events
from textual.app import App
from textual.errors import NoWidget
from textual.widget import Widget
from textual.widgets import Input

from tests.tui.console_scenes import build_console, quiet, settle, until
from tests.tui.test_console import open_tool_form
from tests.tui.wizard_host import confirm_rent, fill_documents, to_documents, to_review, values, wizard_of
from vap_console.tui.screens.keys_help import KeysHelpScreen

SMALL = (80, 24)


def seen(app: App) -> bool:
    """Whether the focused widget is on screen: a click on its first cell would land on it."""
    focused = app.focused
    if focused is None:
        return False
    region = focused.region
    if not region.area:
        return False
    try:
        widget, _ = app.screen.get_widget_at(region.x, region.y)
    except NoWidget:
        return False
    return widget is focused or focused in widget.ancestors


def focused_id(app: App) -> str | None:
    return app.focused.id if isinstance(app.focused, Widget) else None


async def burst(app: App, *keys: str) -> None:
    """Keys as a terminal delivers a fast typist's input: all at once, nothing awaited between."""
    for key in keys:
        char = key if len(key) == 1 else ("\t" if key == "tab" else None)
        event = events.Key("space" if key == " " else key, char)
        event.set_sender(app)
        app._driver.send_message(event)


async def test_back_and_forth_between_steps_shows_the_focused_field(make_host):
    app = make_host()
    async with app.run_test(size=SMALL) as pilot:
        wizard = wizard_of(app)
        await to_documents(pilot, wizard)
        await fill_documents(pilot, wizard)
        wizard.query_one("#doc-2-path", Input).focus()
        await quiet(pilot)
        assert seen(app)
        await pilot.press("pageup")
        await until(pilot, lambda: wizard.step == "enduser")
        await quiet(pilot)
        assert seen(app), f"focus on {focused_id(app)} is off screen"
        await pilot.press("pagedown")
        await until(pilot, lambda: wizard.step == "documents")
        await quiet(pilot)
        assert focused_id(app) == "doc-0-field-gstin"
        assert seen(app), "GSTIN has the focus but the view shows another part of the step"
        await pilot.press("Q")
        await quiet(pilot)
        assert values(wizard)["doc-0-field-gstin"].endswith("Q")  # where the person saw it go


async def test_typing_right_after_tab_lands_in_the_next_field(make_host):
    app = make_host()
    async with app.run_test(size=SMALL) as pilot:
        wizard = wizard_of(app)
        await to_documents(pilot, wizard)
        await pilot.press("pageup")
        await until(pilot, lambda: wizard.step == "enduser")
        await quiet(pilot)
        wizard.query_one("#eu-address_line1", Input).value = ""
        wizard.query_one("#eu-address_line1", Input).focus()
        await quiet(pilot)
        order = [w.id for w in wizard.query_one("#step-enduser").query(Input)]
        after = order[order.index("eu-address_line1") + 1]
        wizard.query_one(f"#{after}", Input).value = ""
        await burst(app, *"12 FC Road", "tab", *"Shivajinagar")
        await until(pilot, lambda: values(wizard)[after] == "Shivajinagar" or
                    values(wizard)["eu-address_line1"].endswith("Shivajinagar"))
        await quiet(pilot)
        assert values(wizard)["eu-address_line1"] == "12 FC Road"
        assert values(wizard)[after] == "Shivajinagar"
        assert seen(app)


async def test_a_422_on_the_number_focuses_it_in_view_and_the_next_keys_go_there(make_host):
    app = make_host()
    async with app.run_test(size=SMALL) as pilot:
        wizard = wizard_of(app)
        await to_review(pilot, wizard, number="+14155550100")
        await confirm_rent(pilot, wizard)
        await until(pilot, lambda: wizard.step == "number" and wizard.banner.message)
        await quiet(pilot)
        assert focused_id(app) == "number" and seen(app)
        await pilot.press("ctrl+u", *"912272401010")  # the new number goes where the person looks
        await quiet(pilot)
        assert values(wizard)["number"] == "912272401010"


async def test_closing_a_dialog_gives_the_focus_back_in_view(make_host):
    app = make_host()
    async with app.run_test(size=SMALL) as pilot:
        wizard = wizard_of(app)
        await to_documents(pilot, wizard)
        wizard.query_one("#doc-2-path", Input).focus()
        await quiet(pilot)
        await pilot.press("question_mark")
        await until(pilot, lambda: isinstance(app.screen, KeysHelpScreen))
        await pilot.press("escape")
        await until(pilot, lambda: app.screen is wizard)
        await quiet(pilot)
        assert focused_id(app) == "doc-2-path" and seen(app)


async def test_in_the_console_tab_then_fast_typing_fills_the_next_field() -> None:
    console = build_console(start_screen="tools")
    async with console.app.run_test(size=SMALL) as pilot:
        await settle(pilot)
        form = await open_tool_form(pilot)
        chain = form.focus_chain
        # The first two text boxes one Tab apart (name and description).
        first = next(n for n, w in enumerate(chain[:-1]) if isinstance(w, Input) and isinstance(chain[n + 1], Input))
        name, after = chain[first].id, chain[first + 1].id
        form.query_one(f"#{name}", Input).focus()
        await settle(pilot)
        await burst(console.app, *"lookup", "tab", *"Looks it up")
        await until(pilot, lambda: form.query_one(f"#{after}", Input).value == "Looks it up"
                    or form.query_one(f"#{name}", Input).value.endswith("up"))
        await settle(pilot)
        assert form.query_one(f"#{name}", Input).value == "lookup"
        assert form.query_one(f"#{after}", Input).value == "Looks it up"
        assert seen(console.app)
        # Shift+Tab goes back as quickly (the text selected on arrival, as in a browser form).
        await burst(console.app, "shift+tab", *"lookup_v2")
        await until(pilot, lambda: form.query_one(f"#{name}", Input).value.endswith("_v2")
                    or form.query_one(f"#{after}", Input).value.endswith("_v2"))
        assert form.query_one(f"#{name}", Input).value == "lookup_v2"
        assert form.query_one(f"#{after}", Input).value == "Looks it up"
