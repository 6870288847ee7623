"""`vap --help`, an unknown command and a near miss all name every command, areas included, and a
near miss says which one was meant."""

from __future__ import annotations

import subprocess
import sys

import click

from vap_console.cli import CONSOLE_COMMANDS
from vap_console.scripting import AREA_SUMMARIES, AREAS

AREA_COMMANDS = ("numbers", "tools", "variables", "voices", "templates", "agents", "completion")


def vap(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "vap_console", *args], capture_output=True, text=True,
                          timeout=60, stdin=subprocess.DEVNULL)


def test_vap_help_lists_the_area_commands_with_what_each_does() -> None:
    result = vap("--help")
    assert result.returncode == 0
    lines = result.stdout.splitlines()
    for command in (*AREA_COMMANDS, *CONSOLE_COMMANDS):
        assert any(line.split()[:1] == [command] for line in lines), (command, result.stdout)
    assert any("tools" in line and "list, show, create, delete" in line for line in lines)


def test_an_unknown_command_lists_every_command_on_one_line() -> None:
    result = vap("frobnicate")
    assert result.returncode == 2
    assert len(result.stderr.strip().splitlines()) == 1
    assert "no command 'frobnicate'" in result.stderr and "did you mean" not in result.stderr
    for command in (*AREA_COMMANDS, *CONSOLE_COMMANDS):
        assert command in result.stderr


def test_a_near_miss_suggests_the_command_meant() -> None:
    for typed, meant in (("tool", "tools"), ("agent", "agents"), ("numbrs", "numbers"), ("logn", "login")):
        result = vap(typed, "list")
        assert result.returncode == 2, result.stderr
        assert f"did you mean `vap {meant}`?" in result.stderr, result.stderr
        assert "tools, variables" in result.stderr  # and the list of commands still follows


def test_the_help_line_of_each_area_is_its_own_commands_help() -> None:
    from vap_console.scripting.root import root

    ctx = click.Context(root)
    assert set(AREA_SUMMARIES) == set(AREAS) == set(root.list_commands(ctx))
    for area, summary in AREA_SUMMARIES.items():
        command = root.get_command(ctx, area)
        assert command is not None and command.help is not None
        assert command.help.splitlines()[0] == summary, area
