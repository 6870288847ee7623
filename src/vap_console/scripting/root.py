"""The `vap <area> …` commands for scripts, on click; `cli.main` hands these arguments here.

Why click: a well-kept library gives every level ``--help`` with its examples, consistent usage
errors and shell completion for bash, zsh and fish, which the console's small argparse entry
never had. The console's own commands (`vap`, `vap --sandbox`, login, logout, profiles,
`vap sandbox serve`, `vap rental watch`) stay on argparse in cli.py, unchanged.

Nothing here imports Textual (tests/test_scripting_light.py and an import-linter contract say so):
a script pays for httpx and pydantic, not for the full-screen console.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence

import click

from vap_console.literal import clean
from vap_console.scripting import COMPLETE_VAR
from vap_console.scripting.base import (
    EXIT_INTERRUPTED,
    EXIT_USAGE,
    Session,
    describe,
    example,
    profile_option,
)
from vap_console.scripting.output import defused_streams

# Each area's module, imported only when that area is asked for: `vap variables list` loads
# scripting.catalog and not the numbers, agents and tools commands (nor what they import: the
# rental upload, money formatting, the tool rules). `vap --help` and completion load them all.
AREA_MODULES = {
    "numbers": "vap_console.scripting.numbers",
    "tools": "vap_console.scripting.tools",
    "variables": "vap_console.scripting.catalog",
    "voices": "vap_console.scripting.catalog",
    "templates": "vap_console.scripting.catalog",
    "agents": "vap_console.scripting.agents",
    "calls": "vap_console.scripting.calls",
}


class _LazyAreas(click.Group):
    """A group whose area subcommands are imported on first use (``AREA_MODULES``)."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({*super().list_commands(ctx), *AREA_MODULES})

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        command = super().get_command(ctx, cmd_name)
        if command is None and cmd_name in AREA_MODULES:
            import importlib

            command = getattr(importlib.import_module(AREA_MODULES[cmd_name]), cmd_name)
            self.add_command(command, cmd_name)
        return command


@click.group(
    name="vap",
    cls=_LazyAreas,
    context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100},
    epilog=example("vap agents list --json", "Exit codes: 0 done; 1 the API refused or the thing "
            "is missing; 2 usage or credentials; 130 interrupted. See docs/cli.md."),
)
@profile_option
def root() -> None:
    """Every area of the Voice Agent Platform from a script. `vap` alone opens the console."""


@root.command(epilog=example("vap completion bash > vap-completion.bash",
                            "Then `. vap-completion.bash` in ~/.bashrc, or the lines above, which put it "
                            "where each shell looks."))
@click.argument("shell", type=click.Choice(["bash", "zsh", "fish"]))
def completion(shell: str) -> None:
    """Print the shell completion script for bash, zsh or fish.

    \b
    bash: vap completion bash > ~/.local/share/bash-completion/completions/vap
    zsh:  vap completion zsh > "${fpath[1]}/_vap"
    fish: vap completion fish > ~/.config/fish/completions/vap.fish
    """
    from click.shell_completion import get_completion_class

    cls = get_completion_class(shell)
    assert cls is not None  # the Choice above allows only the shells click knows
    click.echo(cls(root, {}, "vap", COMPLETE_VAR).source())


def run(argv: Sequence[str], session: Session | None = None) -> int:
    """Run one command; its exit code. Every failure is one line on stderr, never a traceback.

    Whatever it prints goes through the one writer (``output.defused_streams``): a string no
    command cleaned still cannot reach the terminal as control."""
    with defused_streams():
        return _run(argv, session)


def _run(argv: Sequence[str], session: Session | None) -> int:
    try:
        result = root.main(args=list(argv), prog_name="vap", obj=session or Session(),
                           standalone_mode=False)
        return result if isinstance(result, int) else 0
    except click.UsageError as exc:
        where = exc.ctx.command_path if exc.ctx is not None else "vap"
        _line(f"{exc.format_message()} (see `{where} --help`)")
        return EXIT_USAGE
    except click.exceptions.Exit as exc:
        return exc.exit_code
    except BrokenPipeError:
        # The reader stopped early (`| head`): nothing more to say, and nowhere to say it.
        import os

        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1
    except (click.Abort, KeyboardInterrupt):
        return EXIT_INTERRUPTED
    except click.ClickException as exc:
        _line(exc.format_message())
        return exc.exit_code
    except Exception as exc:  # noqa: BLE001 - the last line of defence: one sentence, an exit code
        message, code = describe(exc)
        if message:
            _line(message)
        return code


def _line(message: str) -> None:
    # Server text can be in it: one line, control characters visible.
    print(f"vap: {clean(message, multiline=False)}", file=sys.stderr, flush=True)
