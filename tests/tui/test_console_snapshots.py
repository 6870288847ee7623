"""Snapshots of every screen, its empty and error states, and the dialogs, at 120×36 on the sandbox."""

from __future__ import annotations

import pytest
from pytest_textual_snapshot import normalize_svg
from textual._doc import take_svg_screenshot

from tests.tui.console_scenes import SCENES, SIZE


@pytest.mark.parametrize("name", sorted(SCENES))
def test_scene(name: str, snap_compare) -> None:
    scene = SCENES[name]
    assert snap_compare(scene.build().app, terminal_size=SIZE, run_before=scene.run)


@pytest.mark.parametrize("name", ["numbers", "tool_form_errors", "webcall_dialog", "variables_error"])
def test_scene_renders_identically_twice(name: str) -> None:
    scene = SCENES[name]
    first, second = (
        normalize_svg(take_svg_screenshot(scene.build().app, terminal_size=SIZE, run_before=scene.run))
        for _ in range(2)
    )
    assert first == second
