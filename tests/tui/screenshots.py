"""`make screenshots`: write screenshots/<scene>.svg from the snapshot tests' own scenes.

    python -m tests.tui.screenshots            # the scenes the README shows, 120×36 and 80×24
    python -m tests.tui.screenshots NAME ...   # any scene of tests/tui/console_scenes.py, 120×36
    python -m tests.tui.screenshots --small NAME ...   # the same at 80×24: <scene>-80x24.svg
"""

from __future__ import annotations

import sys
from pathlib import Path

from textual._doc import take_svg_screenshot

from tests.tui.console_scenes import SCENES, SIZE

ROOT = Path(__file__).resolve().parents[2]
OUT = ROOT / "screenshots"
README_SCENES = (
    "numbers", "tools", "variables", "voices", "templates", "agents",
    "tool_form_errors", "create_agent_dialog", "webcall_confirm", "webcall_dialog", "delete_agent_confirm",
    "keys_help", "numbers_error", "tools_empty",
)
# The smallest common terminal: the detail pane below the list, dialogs that scroll.
SMALL = (80, 24)
SMALL_SCENES = ("numbers", "variables", "tool_form_errors", "webcall_dialog", "wizard")


def write(name: str, size: tuple[int, int] = SIZE) -> Path:
    scene = SCENES[name]
    suffix = "" if size == SIZE else f"-{size[0]}x{size[1]}"
    svg = take_svg_screenshot(scene.build().app, terminal_size=size, run_before=scene.run,
                              title=f"vap console · {name.replace('_', ' ')}{suffix.replace('-', ' · ')}")
    path = OUT / f"{name}{suffix}.svg"
    path.write_text(svg, encoding="utf-8")
    return path


def main(args: list[str]) -> int:
    small = "--small" in args
    names = [a for a in args if a != "--small"]
    unknown = [n for n in names if n not in SCENES]
    if unknown:
        print(f"unknown scene(s): {', '.join(unknown)}; known: {', '.join(sorted(SCENES))}", file=sys.stderr)
        return 2
    OUT.mkdir(exist_ok=True)
    if names:
        jobs = [(name, SMALL if small else SIZE) for name in names]
    else:
        jobs = [(name, SIZE) for name in README_SCENES] + [(name, SMALL) for name in SMALL_SCENES]
    for name, size in jobs:
        print(write(name, size).relative_to(ROOT))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
