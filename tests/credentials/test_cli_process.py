"""The real `vap` process: exit codes, one-line errors, no traceback, no key on any stream."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from .fake_api import fresh_key, voices_server

KEY = "sk_process_test_key_QRST"


def vap(*args: str, stdin: str = "", env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "vap_console", *args],
        input=stdin, capture_output=True, text=True, timeout=60,
        env={**os.environ, **(env or {})},
    )


NO_KEYRING = {"PYTHON_KEYRING_BACKEND": "keyring.backends.fail.Keyring"}


def assert_one_clean_line(text: str) -> None:
    assert text.count("\n") == 1, text
    assert "Traceback" not in text and KEY not in text


def test_login_without_a_keyring_backend_checks_the_key_then_offers_the_ways_on(
    xdg_dirs: dict[str, Path],
) -> None:
    key = fresh_key()
    with voices_server() as url:
        result = vap("login", "--profile", "p", "--base-url", url, stdin=key, env=NO_KEYRING)
        wrong = vap("login", "--profile", "p", "--base-url", url, stdin=KEY, env=NO_KEYRING)
    assert result.returncode == 1
    assert result.stderr.count("\n") == 1 and "Traceback" not in result.stderr and key not in result.stderr
    assert f"…{key[-4:]} is good" in result.stderr and "no keyring backend was found" in result.stderr
    assert "VAP_API_KEY" in result.stderr and "session only" in result.stderr
    assert "gnome-keyring" in result.stderr
    # A wrong key is said as such: the missing keyring does not hide it.
    assert wrong.returncode == 1
    assert_one_clean_line(wrong.stderr)
    assert "keyring" not in wrong.stderr.lower()
    assert not (xdg_dirs["config"] / "vap-console" / "profiles.toml").exists()


def test_a_bad_base_url_is_a_usage_error(xdg_dirs: dict[str, Path]) -> None:
    # (Without --base-url, login verifies at the public service: no test reaches out to it.)
    result = vap("login", "--base-url", "ftp://example.test", stdin=KEY, env=NO_KEYRING)
    assert result.returncode == 2
    assert_one_clean_line(result.stderr)
    assert "--base-url" in result.stderr


def test_profiles_and_logout_without_a_keyring_fail_cleanly(xdg_dirs: dict[str, Path]) -> None:
    conf = xdg_dirs["config"] / "vap-console"
    conf.mkdir()
    (conf / "profiles.toml").write_text(
        'active = "p"\n[profiles.p]\nbase_url = "https://api.example.com"\n'
    )
    listed = vap("profiles", env=NO_KEYRING)
    assert listed.returncode == 1
    assert "unavailable" in listed.stdout
    assert_one_clean_line(listed.stderr)
    out = vap("logout", env=NO_KEYRING)
    assert out.returncode == 1
    assert_one_clean_line(out.stderr)


def test_env_key_needs_no_keyring_in_profiles(xdg_dirs: dict[str, Path]) -> None:
    result = vap("profiles", env={**NO_KEYRING, "VAP_API_KEY": KEY})
    assert result.returncode == 0
    assert "…QRST" in result.stdout and KEY not in result.stdout + result.stderr
    assert "set VAP_BASE_URL" in result.stdout


@pytest.mark.secret_service
def test_login_profiles_logout_through_the_real_secret_service(secret_service, xdg_dirs) -> None:
    key = fresh_key()
    profile = "ss-" + key[-8:]
    outputs = []
    with voices_server() as url:
        try:
            login = vap("login", "--profile", profile, "--base-url", url, stdin=key + "\n")
            outputs.append(login)
            assert login.returncode == 0, login.stderr
            assert secret_service.get_password("vap-console", profile) == key
            listed = vap("profiles")
            outputs.append(listed)
            assert f"keyring …{key[-4:]}" in listed.stdout
        finally:
            out = vap("logout", "--profile", profile, "--forget")
            outputs.append(out)
    assert out.returncode == 0, out.stderr
    assert secret_service.get_password("vap-console", profile) is None
    for result in outputs:
        assert key not in result.stdout + result.stderr
    for path in xdg_dirs["config"].parent.rglob("*"):
        if path.is_file():
            assert key not in path.read_text(errors="replace")


def test_vap_profiles_starts_without_the_console_or_the_http_client(xdg_dirs) -> None:
    # What makes `vap profiles` fast (bench/credentials.py): Textual, httpx and pydantic take
    # over a second to import; with VAP_API_KEY set not even the keyring library is needed.
    probe = (
        "import sys\n"
        "from vap_console.cli import main\n"
        "main(['profiles'])\n"
        "print(sorted(m for m in ('textual', 'httpx', 'pydantic', 'keyring') if m in sys.modules))\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, timeout=60,
        env={**os.environ, "VAP_API_KEY": KEY},
    )
    assert result.stdout.strip().splitlines()[-1] == "[]", result.stdout + result.stderr


def test_a_keyring_that_never_answers_does_not_keep_vap_from_exiting(xdg_dirs: dict[str, Path]) -> None:
    conf = xdg_dirs["config"] / "vap-console"
    conf.mkdir()
    (conf / "profiles.toml").write_text('active = "p"\n[profiles.p]\nbase_url = "https://api.example.com"\n')
    root = Path(__file__).resolve().parents[2]
    env = {**os.environ, "PYTHON_KEYRING_BACKEND": "tests.credentials.backends.NeverAnswers",
           "PYTHONPATH": os.pathsep.join([str(root), os.environ.get("PYTHONPATH", "")])}
    # The keyring call gives up after its 5 s; the process must then end, not wait on the thread.
    result = subprocess.run([sys.executable, "-m", "vap_console", "profiles"], capture_output=True,
                            text=True, timeout=45, env=env, cwd=root)
    assert result.returncode == 1
    assert "did not answer within 5 s" in result.stderr
    assert_one_clean_line(result.stderr)
