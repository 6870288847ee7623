"""The `vap` command line: version, usage errors as one line and exit 2, never a traceback."""

import subprocess
import sys

from vap_console import __version__


def run_vap(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "vap_console", *args],
        capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL,
    )


def test_version_prints_the_package_version() -> None:
    result = run_vap("--version")
    assert result.returncode == 0
    assert result.stdout.strip() == f"vap-console {__version__}"


def test_unknown_subcommand_is_one_line_and_exit_2() -> None:
    result = run_vap("frobnicate")
    assert result.returncode == 2
    assert "Traceback" not in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1
    assert "frobnicate" in result.stderr


def test_rental_watch_without_an_id_is_a_usage_error() -> None:
    result = run_vap("rental", "watch")
    assert result.returncode == 2
    assert "required: ID" in result.stderr  # the help's name for it, not the internal rental_id
