"""With no profile at all, a command for scripts says to run `vap login`, not that the keyring is
unavailable (it never asks the keyring for a key no profile can hold)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path


def test_with_no_profile_an_area_command_says_to_run_vap_login(tmp_path: Path) -> None:
    clean = {k: v for k, v in os.environ.items() if not k.startswith(("VAP_", "RUMIK_", "DBUS_"))}
    env = {**clean, "XDG_CONFIG_HOME": str(tmp_path / "config"), "XDG_DATA_HOME": str(tmp_path / "data"),
           "HOME": str(tmp_path)}
    for args in (("tools", "list"), ("numbers", "watch", "rnt_1"), ("rental", "watch", "rnt_1")):
        result = subprocess.run([sys.executable, "-m", "vap_console", *args], capture_output=True, text=True,
                                timeout=60, stdin=subprocess.DEVNULL, env=env)
        assert result.returncode == 2, result.stderr
        assert result.stderr.startswith("vap: No profiles yet: run `vap login`"), result.stderr
        assert "keyring" not in result.stderr.lower()


def test_a_profile_named_but_missing_is_named(tmp_path: Path) -> None:
    clean = {k: v for k, v in os.environ.items() if not k.startswith(("VAP_", "RUMIK_", "DBUS_"))}
    env = {**clean, "XDG_CONFIG_HOME": str(tmp_path / "config"), "HOME": str(tmp_path)}
    result = subprocess.run([sys.executable, "-m", "vap_console", "--profile", "work", "tools", "list"],
                            capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL, env=env)
    assert result.returncode == 2
    assert result.stderr.startswith("vap: No profile work:") and "vap login --profile work" in result.stderr
