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
    return {**base, "XDG_CONFIG_HOME": str(tmp_path), **extra}


def test_the_scripting_path_imports_no_textual(live_sandbox, tmp_path: Path) -> None:
    code = ("import sys; from vap_console.cli import main; rc = main(['variables', 'list', '--json']); "
            "sys.stdout.flush(); print('TEXTUAL' if any(m.startswith('textual') for m in sys.modules) else 'OK', "
            "file=sys.stderr); sys.exit(rc)")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60,
                            env=env(tmp_path, VAP_API_KEY="sk_sandbox_agent", VAP_BASE_URL=live_sandbox.base_url))
    assert result.returncode == 0, result.stderr
    assert result.stderr.strip().endswith("OK")
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
    from vap_console.scripting.root import root

    paths = [[]]
    for name, group in root.commands.items():
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
