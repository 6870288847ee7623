"""`make screenshots`: write screenshots/<scene>.svg from the snapshot tests' own scenes.

    python -m tests.tui.screenshots            # the scenes the README shows
    python -m tests.tui.screenshots NAME ...   # any scene of tests/tui/console_scenes.py
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


def write(name: str) -> Path:
    scene = SCENES[name]
    svg = take_svg_screenshot(scene.build().app, terminal_size=SIZE, run_before=scene.run,
                              title=f"vap console · {name.replace('_', ' ')}")
    path = OUT / f"{name}.svg"
    path.write_text(svg, encoding="utf-8")
    return path


def main(names: list[str]) -> int:
    unknown = [n for n in names if n not in SCENES]
    if unknown:
        print(f"unknown scene(s): {', '.join(unknown)}; known: {', '.join(sorted(SCENES))}", file=sys.stderr)
        return 2
    OUT.mkdir(exist_ok=True)
    for name in names or README_SCENES:
        print(write(name).relative_to(ROOT))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
