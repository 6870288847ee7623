"""`vap --sandbox <command>`: the command runs on a fresh embedded sandbox (its key and address,
never a profile's or the environment's), instead of argparse's "unrecognized arguments"."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from vap_console.cli import main

BIN = Path(sys.executable).parent


def test_the_command_from_the_issue_runs_as_typed(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("VAP_", "RUMIK_"))}
    env.update(HOME=str(tmp_path), XDG_CONFIG_HOME=str(tmp_path / "config"), XDG_DATA_HOME=str(tmp_path / "data"))
    result = subprocess.run([str(BIN / "vap"), "--sandbox", "tools", "list"], env=env, capture_output=True,
                            text=True, timeout=120, stdin=subprocess.DEVNULL)
    assert result.returncode == 0, result.stderr
    assert "lookup_customer" in result.stdout and "unrecognized" not in result.stderr


def test_it_uses_the_sandbox_even_with_a_real_account_in_the_environment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setenv("VAP_BASE_URL", "https://api.example")  # nothing may be sent there
    monkeypatch.setenv("VAP_API_KEY", "rk_live_" + "x" * 24)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    assert main(["--sandbox", "--speed", "10", "agents", "list", "--json"]) == 0
    agents = json.loads(capsys.readouterr().out)
    assert any(agent["name"].startswith("Priya") for agent in agents)
    assert not (tmp_path / "data").exists()  # its calls ledger went with the sandbox


@pytest.mark.parametrize("speed", ["0", "fast", "inf"])
def test_a_bad_speed_is_one_line_and_exit_2(speed: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--sandbox", "--speed", speed, "tools", "list"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--speed" in err and "Traceback" not in err
