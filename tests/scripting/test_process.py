"""The real `vap` binary for scripts: no Textual loaded, RUMIK_ variables honoured, completion."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

BIN = Path(sys.executable).parent


def env(tmp_path: Path, **extra: str) -> dict[str, str]:
    base = {k: v for k, v in os.environ.items() if not k.startswith(("VAP_", "RUMIK_"))}
    return {**base, "XDG_CONFIG_HOME": str(tmp_path), "XDG_DATA_HOME": str(tmp_path / "data"), **extra}


# What a short command must not pay for: Textual; the keyring (VAP_API_KEY is set); the other
# areas' commands and what only they use; the console's argparse entry.
NOT_FOR_A_LIST = ("textual", "keyring", "argparse", "vap_console.tui", "vap_console.scripting.numbers",
                  "vap_console.scripting.agents", "vap_console.scripting.tools", "vap_console.api.money",
                  "vap_console.api.tool_rules", "vap_console.api.polling")


def test_the_scripting_path_imports_no_textual(live_sandbox, tmp_path: Path) -> None:
    code = ("import sys; from vap_console.cli import main; rc = main(['variables', 'list', '--json']); "
            "sys.stdout.flush(); print(sorted({m for m in sys.modules if m.startswith(" + repr(NOT_FOR_A_LIST)
            + ")}), file=sys.stderr); sys.exit(rc)")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60,
                            env=env(tmp_path, VAP_API_KEY="sk_sandbox_agent", VAP_BASE_URL=live_sandbox.base_url))
    assert result.returncode == 0, result.stderr
    assert result.stderr.strip().endswith("[]"), result.stderr
    assert isinstance(json.loads(result.stdout), list)


def test_rumik_variables_work_when_vap_ones_are_unset(live_sandbox, tmp_path: Path) -> None:
    result = subprocess.run([str(BIN / "vap"), "voices", "list"], capture_output=True, text=True, timeout=60,
                            env=env(tmp_path, RUMIK_API_KEY="sk_sandbox_agent", RUMIK_BASE_URL=live_sandbox.base_url))
    assert result.returncode == 0, result.stderr
    assert "muga" in result.stdout and "\x1b" not in result.stdout


def test_completion_scripts_for_each_shell(tmp_path: Path) -> None:
    for shell, marker in (("bash", "complete "), ("zsh", "compdef"), ("fish", "complete ")):
        result = subprocess.run([str(BIN / "vap"), "completion", shell], capture_output=True, text=True,
                                timeout=60, env=env(tmp_path))
        assert result.returncode == 0 and marker in result.stdout and "_VAP_COMPLETE" in result.stdout


def test_bash_completion_offers_the_areas(tmp_path: Path) -> None:
    result = subprocess.run([str(BIN / "vap")], capture_output=True, text=True, timeout=60,
                            env=env(tmp_path, _VAP_COMPLETE="bash_complete", COMP_WORDS="vap ag", COMP_CWORD="1"))
    assert "agents" in result.stdout


def test_help_at_every_level_has_an_example(tmp_path: Path) -> None:
    import click

    from vap_console.scripting.root import root

    ctx = click.Context(root)
    paths = [[]]
    for name in root.list_commands(ctx):
        group = root.get_command(ctx, name)
        paths.append([name])
        paths += [[name, sub] for sub in getattr(group, "commands", {})]
    for path in paths:
        result = subprocess.run([sys.executable, "-m", "vap_console", *path, "--help"] if path else
                                [sys.executable, "-c", "from vap_console.scripting.root import run; run(['--help'])"],
                                capture_output=True, text=True, timeout=60, env=env(tmp_path))
        assert result.returncode == 0, (path, result.stderr)
        assert "Example: vap" in result.stdout, path
        if path and path[0] not in ("completion",) and len(path) == 2:
            assert "--profile" in result.stdout, path


def test_the_binary_flushes_everything_and_keeps_the_exit_code(live_sandbox, tmp_path: Path) -> None:
    # `vap` ends an area command without tearing the interpreter down (cli._exit_now): what it
    # wrote must still all arrive, and its exit code must be the command's.
    creds = env(tmp_path, VAP_API_KEY="sk_sandbox_agent", VAP_BASE_URL=live_sandbox.base_url)
    listed = subprocess.run([str(BIN / "vap"), "variables", "list", "--json"], capture_output=True,
                            text=True, timeout=60, env=creds)
    assert listed.returncode == 0, listed.stderr
    assert len(json.loads(listed.stdout)) > 1 and listed.stdout.endswith("]\n")
    missing = subprocess.run([str(BIN / "vap"), "tools", "show", "no_such_tool"], capture_output=True,
                             text=True, timeout=60, env=creds)
    assert missing.returncode == 1 and missing.stdout == ""
    assert missing.stderr.startswith("vap: ") and missing.stderr.count("\n") == 1, missing.stderr
    usage = subprocess.run([sys.executable, "-m", "vap_console", "variables", "list", "--bogus"],
                           capture_output=True, text=True, timeout=60, env=creds)
    assert usage.returncode == 2 and "--bogus" in usage.stderr
