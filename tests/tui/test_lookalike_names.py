"""Names that look alike can be told apart: a zero-width or bidi-control character in a name is
shown as a visible escape in the list and in the detail, never drawn invisibly or reordering."""

from __future__ import annotations

from tests.tui.console_scenes import SIZE, build_console, settle, until
from tests.tui.hostile import assert_drawn_safely
from vap_console.tui.widgets.rows import RowTable

NAMES = {
    "a23194c9-e643-5204-af92-5245d497b3bf": "support",
    "2dfd13fd-335e-56c1-bd52-23376f9becc0": "sup\u200bport",  # a zero-width space inside
    "f28ae1bd-845b-5a1b-8342-fa3ed6f7825e": "invoice\u202efdp.exe",  # right-to-left override
}


async def test_tool_names_with_zero_width_or_bidi_characters_show_them_visibly() -> None:
    console = build_console(start_screen="tools")
    for tool_id, name in NAMES.items():
        console.account.tools[tool_id].name = name
    async with console.app.run_test(size=SIZE) as pilot:
        app = pilot.app
        await settle(pilot)
        rows = app.screen.query_one(RowTable)
        await until(pilot, lambda: all(key in rows.keys for key in NAMES))
        listed = assert_drawn_safely(app, "tools list")
        assert "sup\\u200bport" in listed and "invoice\\u202efdp.exe" in listed
        assert "support" in listed  # the plain one, beside its lookalike

        for tool_id, shown in (("2dfd13fd-335e-56c1-bd52-23376f9becc0", "sup\\u200bport"),
                               ("f28ae1bd-845b-5a1b-8342-fa3ed6f7825e", "invoice\\u202efdp.exe")):
            rows.move_to_key(tool_id)
            await settle(pilot)
            detail = assert_drawn_safely(app, f"detail of {shown}")
            assert detail.count(shown) >= 2, f"{shown} not in both the list and the detail"
