"""`vap sandbox serve`: loopback only unless allowed, prints URL and keys, stops cleanly."""

from __future__ import annotations

import json
import os
import re
import signal
import socket
import subprocess
import sys

import httpx
import pytest

from vap_console.sandbox.keys import KEYS
from vap_console.sandbox.server import serve_main

from .conftest import auth


def _serve(*args: str) -> tuple[subprocess.Popen[str], str]:
    proc = subprocess.Popen(
        [sys.executable, "-m", "vap_console", "sandbox", "serve", "--port", "0", *args],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )
    assert proc.stdout is not None
    banner = ""
    while "Ctrl+C" not in banner and (line := proc.stdout.readline()):
        banner += line
    match = re.search(r"http://127\.0\.0\.1:\d+", banner)
    assert match, banner + (proc.stderr.read() if proc.poll() is not None and proc.stderr else "")
    return proc, banner


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT], ids=["SIGTERM", "Ctrl+C"])
def test_serves_prints_keys_and_stops_cleanly(sig: signal.Signals) -> None:
    proc, banner = _serve("--speed", "10")
    url = re.search(r"http://127\.0\.0\.1:\d+", banner).group(0)  # type: ignore[union-attr]
    try:
        assert httpx.get(f"{url}/v1/voices", headers=auth(), timeout=5).status_code == 200
    finally:
        proc.send_signal(sig)
        out, err = proc.communicate(timeout=60)  # bounds a hang; a stop takes well under a second
    assert proc.returncode == 0
    for key in KEYS:
        assert key.key in banner
    assert "sk_sandbox_agent" in banner  # the old names still work, and the banner says so
    assert "0002" in banner and "stopped" in out
    assert "Traceback" not in err and "Traceback" not in out


def test_refuses_a_non_loopback_host_without_allow_remote(capsys: pytest.CaptureFixture[str]) -> None:
    assert serve_main(host="0.0.0.0", port=0) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--allow-remote" in err


def test_a_port_in_use_is_one_line_and_exit_1(capsys: pytest.CaptureFixture[str]) -> None:
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        assert serve_main(port=busy.getsockname()[1]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "in use" in err and "Traceback" not in err


@pytest.mark.parametrize(
    ("kwargs", "needle"),
    [({"faults": "latency=soon"}, "latency"), ({"speed": 0}, "--speed"), ({"rate_limit": 0}, "--rate-limit"),
     ({"call_tools_hosts": ("hooks.example",)}, "--call-tools-host goes with --call-tools")],
)
def test_bad_options_are_one_line_and_exit_2(capsys: pytest.CaptureFixture[str], kwargs, needle: str) -> None:
    assert serve_main(port=0, **kwargs) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and needle in err


def test_keep_alive_answers_are_not_held_back_by_nagle(live_sandbox) -> None:
    """With Nagle on, each keep-alive answer waited ~40 ms for a delayed ACK (a pollster's worst case)."""
    import statistics
    import time

    with httpx.Client(base_url=live_sandbox.base_url, headers=auth(), timeout=5) as c:
        c.get("/v1/voices")
        timings = []
        for _ in range(15):
            started = time.perf_counter()
            c.get("/v1/voices")
            timings.append(time.perf_counter() - started)
    assert statistics.median(timings) < 0.025


def test_the_banner_s_export_line_points_vap_at_this_sandbox(tmp_path) -> None:
    proc, banner = _serve()
    try:
        line = next(ln.strip() for ln in banner.splitlines() if ln.strip().startswith("export VAP_BASE_URL="))
        env = {k: v for k, v in os.environ.items() if not k.startswith(("VAP_", "RUMIK_"))}
        env.update(HOME=str(tmp_path), XDG_CONFIG_HOME=str(tmp_path / "config"))
        # pasted into a shell as printed, then vap runs on the sandbox with the printed key
        listed = subprocess.run(["bash", "-c", f"{line} && {sys.executable} -m vap_console agents list --json"],
                                env=env, capture_output=True, text=True, timeout=60)
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.communicate(timeout=60)
    assert listed.returncode == 0, listed.stderr
    assert any(agent["name"].startswith("Priya") for agent in json.loads(listed.stdout))
