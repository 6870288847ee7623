"""The embedded sandbox of `vap --sandbox` in its own process: it serves, and it never outlives the console."""

from __future__ import annotations

import subprocess
import sys
import textwrap
import time

import httpx
import pytest

from vap_console.sandbox.keys import DEFAULT_KEY
from vap_console.sandbox.process import SandboxFailed, start_in_process


def _exited(proc: subprocess.Popen[bytes], within: float) -> bool:
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            return True
        time.sleep(0.05)
    return False


def test_the_child_serves_the_sandbox_on_loopback_and_stops_with_stop() -> None:
    sandbox = start_in_process(speed=1.0)
    try:
        assert sandbox.base_url.startswith("http://127.0.0.1:")
        answer = httpx.get(f"{sandbox.base_url}/v1/voices", headers={"Authorization": f"Bearer {DEFAULT_KEY}"})
        assert answer.status_code == 200
        assert answer.json()["models"]
    finally:
        sandbox.stop()
    assert sandbox._proc.poll() is not None
    with pytest.raises(httpx.ConnectError):
        httpx.get(f"{sandbox.base_url}/v1/voices", timeout=2)


def test_the_child_stops_when_the_console_is_killed() -> None:
    # A console killed outright never calls stop(): its end of the pipe closes, and that is enough.
    console = subprocess.Popen(
        [sys.executable, "-c", textwrap.dedent("""
            import sys
            from vap_console.sandbox.process import start_in_process
            sandbox = start_in_process()
            print(sandbox._proc.pid, sandbox.base_url, flush=True)
            sys.stdin.read()
        """)],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
    )
    assert console.stdout is not None
    pid, base_url = console.stdout.readline().split()
    assert httpx.get(f"{base_url}/v1/voices", headers={"Authorization": f"Bearer {DEFAULT_KEY}"}).status_code == 200
    console.kill()
    console.wait()
    deadline = time.monotonic() + 60  # bounds a child that never stops; it stops at once
    while time.monotonic() < deadline:
        try:
            httpx.get(f"{base_url}/v1/voices", timeout=1)
        except httpx.TransportError:
            break
        time.sleep(0.1)
    else:
        pytest.fail(f"the sandbox child {pid} still serves {base_url} after its console was killed")


def test_a_child_that_cannot_start_says_why_in_one_line() -> None:
    sandbox = start_in_process(speed=float("nan"))
    try:
        with pytest.raises(SandboxFailed) as failed:
            sandbox.base_url  # noqa: B018 - the property waits for the child
    finally:
        sandbox.stop()
    message = str(failed.value)
    assert message.startswith("the sandbox did not start: ")
    assert "\n" not in message
