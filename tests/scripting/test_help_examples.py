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
import signal
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
# Examples whose output goes to a file (so stdout may be empty) or that delete.
WRITES_ELSEWHERE = re.compile(r" > | -o | --output | --junit |delete ")
# The filters an example names, each of which every row it prints must match (--city Bengaluru).
FILTERS = re.compile(r"--(city|pattern|filter) (\S+)")


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
    missing = [where for where, text in HELPS.items() if not EXAMPLE.search(text)]
    assert missing == []
    assert len(EXAMPLES) > 20


def _metavars() -> dict[str, str]:
    """Every value an option or argument takes, by where it is: the name --help shows for it."""
    from vap_console.scripting import AREAS

    found: dict[str, str] = {}
    for path in _click_paths():
        ctx = click.Context(root, info_name="vap")
        command: click.Command = root
        for name in path:
            assert isinstance(command, click.Group)
            command = command.get_command(ctx, name)  # type: ignore[assignment]
            ctx = click.Context(command, info_name=name, parent=ctx)
        for param in command.params:
            if (isinstance(param, click.Option) and (param.is_flag or param.count)) or param.name == "help":
                continue
            if isinstance(param.type, click.Choice):
                continue  # shown as its choices: [bash|zsh|fish]
            # Explicit, or click makes one from the parameter's internal name or its type (TEXT, FLOAT RANGE).
            found[f"vap {' '.join(path)} {param.opts[0]}"] = param.metavar or f"(none: {param.make_metavar(ctx)})"

    def walk(parser: argparse.ArgumentParser, path: str) -> None:
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                for name, sub in action.choices.items():
                    if name not in AREAS:
                        walk(sub, f"{path} {name}")
            elif action.nargs != 0 and not isinstance(action, (argparse._HelpAction, argparse._VersionAction)):
                where = f"{path} {(action.option_strings or [action.dest])[0]}"
                found[where] = str(action.metavar) if action.metavar else f"(none: {action.dest.upper()})"

    walk(build_parser(), "vap")
    return found


def test_every_value_has_a_human_name_in_help() -> None:
    # Not SUB_PROFILE (argparse's name for a dest), nor click's TEXT or FLOAT RANGE for a type.
    metavars = _metavars()
    assert len(metavars) > 40
    # A name is words in capitals, joined as a person reads them (NAME=VALUE, NAME|ID, [TOOL=]VAR,
    # REF_A REF_B); an underscore only before one last letter (REF_A), never an internal SUB_PROFILE.
    word = r"[][]?[A-Z][A-Z.-]*(_[A-Z])?(://[A-Z]+)?\]?(\.\.\.)?"
    inhuman = {where: name for where, name in metavars.items()
               if name.startswith("(none") or not all(re.fullmatch(word, part) for part in
                                                       re.split(r"[\s|=]+", name.replace("https://", "").strip()))}
    assert inhuman == {}


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


# Examples that serve until Ctrl+C: started, awaited until they print their URL, then stopped.
SERVES = ("vap sandbox serve", "vap web")


def _served_until_ctrl_c(example: str, cwd: Path, env: dict[str, str]) -> None:
    proc = subprocess.Popen(["bash", "-c", f"exec {example}"], cwd=cwd, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, stdin=subprocess.DEVNULL, text=True)
    try:
        assert proc.stdout is not None
        said = ""
        while "http://127.0.0.1:" not in said and (line := proc.stdout.readline()):
            said += line
        assert "http://127.0.0.1:" in said, (example, said)
    finally:
        # SIGTERM, not Ctrl+C's SIGINT: a test run started in the background ignores SIGINT, and
        # its children inherit that.
        proc.send_signal(signal.SIGTERM)
        _, err = proc.communicate(timeout=60)
    assert proc.returncode in (0, -signal.SIGTERM) and "Traceback" not in err, (example, err)


@pytest.mark.parametrize("example", EXAMPLES)
def test_the_example_runs_as_written_on_the_sandbox(example: str, sandbox_for, inputs: Path) -> None:
    clean = {k: v for k, v in os.environ.items() if not k.startswith(("VAP_", "RUMIK_"))}
    env = {**clean, "PATH": f"{BIN}{os.pathsep}{clean.get('PATH', '')}", "HOME": str(inputs.parent),
           "XDG_CONFIG_HOME": str(inputs.parent / "config"), "XDG_DATA_HOME": str(inputs.parent / "data"),
           "VAP_BASE_URL": sandbox_for.base_url, "VAP_API_KEY": "sk_sandbox_agent"}
    if example.startswith(SERVES):
        _served_until_ctrl_c(example, inputs, env)
        return
    result = subprocess.run(["bash", "-c", f"set -o pipefail; {example}"], cwd=inputs, env=env,
                            capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL)
    assert result.returncode == 0, f"{example}\n{result.stderr}"
    assert "Traceback" not in result.stderr
    # ... and does what it says: an example that prints (not to a file) prints something, and one
    # that filters finds only rows that match each filter it names.
    if not WRITES_ELSEWHERE.search(example):
        assert (result.stdout + result.stderr).strip(), f"{example} said nothing"
    for option, value in FILTERS.findall(example):
        rows = result.stdout.strip().splitlines()
        assert rows and all(value.casefold() in row.casefold() for row in rows), (example, option, result.stdout)
