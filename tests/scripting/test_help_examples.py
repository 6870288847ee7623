"""Every example in every `--help` (the click area commands and the argparse console commands, at
every level) runs as written against a sandbox served on loopback, with VAP_BASE_URL and
VAP_API_KEY set, and exits 0.

Each example runs in a folder holding the files examples name as their input (tool.json,
application.json and the three KYC documents), as a person running it would have them; every id it
names is one the sandbox seeds. Commands that cost money show --yes in their example.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import os
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import click
import pytest

from tests.scripting.example_inputs import example_inputs
from vap_console.cli import build_parser
from vap_console.scripting.root import root, run

BIN = Path(sys.executable).parent
ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = re.compile(r"^\s*example:\s*(\S.*?)\s*$", re.IGNORECASE | re.MULTILINE)
COSTS_MONEY = ("numbers rent", "agents webcall", "agents talk", "agents test")


def _click_paths() -> list[list[str]]:
    paths: list[list[str]] = [[]]

    def walk(group: click.Group, ctx: click.Context, path: list[str]) -> None:
        for name in group.list_commands(ctx):
            command = group.get_command(ctx, name)
            paths.append([*path, name])
            if isinstance(command, click.Group):
                walk(command, click.Context(command, info_name=name, parent=ctx), [*path, name])

    walk(root, click.Context(root, info_name="vap"), [])
    return paths


def click_help(path: list[str]) -> str:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert run([*path, "--help"]) == 0, path
    return out.getvalue()


def argparse_helps() -> dict[str, str]:
    from vap_console.scripting import AREAS

    helps: dict[str, str] = {}

    def walk(parser: argparse.ArgumentParser, path: str) -> None:
        helps[path] = parser.format_help()
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                for name, sub in action.choices.items():
                    if name not in AREAS:  # listed only: the click commands answer those
                        walk(sub, f"{path} {name}")

    walk(build_parser(), "vap")
    return helps


def every_help() -> dict[str, str]:
    helps = {"vap " + " ".join(p) if p else "vap (areas)": click_help(p) for p in _click_paths()}
    helps.update(argparse_helps())
    return helps


HELPS = every_help()
EXAMPLES = sorted({example for text in HELPS.values() for example in EXAMPLE.findall(text)})


def test_every_command_at_every_level_has_an_example() -> None:
    missing = [where for where, text in HELPS.items() if not EXAMPLE.search(text)
               and where not in ("vap sandbox", "vap rental", "vap login", "vap logout", "vap profiles",
                                 "vap web", "vap sandbox serve", "vap rental watch")]
    assert missing == []
    assert len(EXAMPLES) > 20


def test_commands_that_cost_money_show_yes_in_their_examples() -> None:
    for example in EXAMPLES:
        if any(f"vap {command}" in example for command in COSTS_MONEY):
            assert "--yes" in example, example


@pytest.fixture
def inputs(tmp_path: Path) -> Path:
    """The files the examples read, in the folder they run in."""
    return example_inputs(tmp_path / "work")


@pytest.fixture
def sandbox_for(example: str, live_sandbox) -> Iterator[Any]:
    """The test's sandbox; a conversation (vap agents talk|test) needs the agent to speak, so its
    clock runs, fast, instead of waiting for the test to move it."""
    if not any(f"vap agents {command} " in example for command in ("talk", "test")):
        yield live_sandbox
        return
    from tests.talk.cli import LONG_CALLS, SPEED
    from vap_console.sandbox.server import start_in_thread

    with start_in_thread(speed=SPEED, faults=LONG_CALLS) as fast:
        yield fast


@pytest.mark.parametrize("example", EXAMPLES)
def test_the_example_runs_as_written_on_the_sandbox(example: str, sandbox_for, inputs: Path) -> None:
    clean = {k: v for k, v in os.environ.items() if not k.startswith(("VAP_", "RUMIK_"))}
    env = {**clean, "PATH": f"{BIN}{os.pathsep}{clean.get('PATH', '')}", "HOME": str(inputs.parent),
           "XDG_CONFIG_HOME": str(inputs.parent / "config"),
           "VAP_BASE_URL": sandbox_for.base_url, "VAP_API_KEY": "sk_sandbox_agent"}
    result = subprocess.run(["bash", "-c", f"set -o pipefail; {example}"], cwd=inputs, env=env,
                            capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL)
    assert result.returncode == 0, f"{example}\n{result.stderr}"
    assert "Traceback" not in result.stderr
