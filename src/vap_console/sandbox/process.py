"""The embedded sandbox of `vap --sandbox`, served from a child process.

    sandbox = start_in_process(speed=1.0)   # returns at once; the child starts meanwhile
    sandbox.base_url                        # waits until the child accepts (or says why it failed)
    sandbox.stop()

In a process of its own the sandbox starts on the second core while the console imports Textual,
and answering requests never takes the interpreter lock from the UI: in one process the server
thread and the first frames queued behind each other. The child lives exactly as long as the pipe
on its stdin: however the console ends, even killed, the pipe closes and the child stops.

This module is imported by the console at start-up, so it imports nothing of the sandbox itself.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import threading
from typing import IO

STARTUP_TIMEOUT = 30.0


class SandboxFailed(RuntimeError):
    """The child process could not serve the sandbox; the message says why, in one line."""


class SandboxProcess:
    def __init__(self, proc: subprocess.Popen[bytes], stderr: IO[bytes]) -> None:
        self._proc = proc
        self._stderr = stderr
        self._url: str | None = None
        self._ready = threading.Event()
        # The child's first line is its address; read it off the console's thread so that start-up
        # goes on while the child imports and binds.
        threading.Thread(target=self._read_address, name="vap-sandbox-address", daemon=True).start()

    def _read_address(self) -> None:
        assert self._proc.stdout is not None
        line = self._proc.stdout.readline().decode("ascii", "replace").strip()
        if line.startswith("http://"):
            self._url = line
        self._ready.set()

    @property
    def base_url(self) -> str:
        if not self._ready.wait(STARTUP_TIMEOUT):
            self.stop()
            raise SandboxFailed(f"the sandbox did not start within {STARTUP_TIMEOUT:.0f} s")
        if self._url is None:
            raise SandboxFailed(f"the sandbox did not start: {self._last_error_line()}")
        return self._url

    def _last_error_line(self) -> str:
        self._stderr.seek(0)
        lines = [line.strip() for line in self._stderr.read().decode("utf-8", "replace").splitlines() if line.strip()]
        return lines[-1] if lines else f"its process exited with status {self._proc.poll()}"

    def stop(self, timeout: float = 5.0) -> None:
        if self._proc.stdin is not None and not self._proc.stdin.closed:
            self._proc.stdin.close()  # the child's signal to stop
        try:
            self._proc.wait(timeout)
        except subprocess.TimeoutExpired:
            self._proc.kill()
            self._proc.wait()
        if self._proc.stdout is not None:
            self._proc.stdout.close()
        self._stderr.close()

    def __enter__(self) -> SandboxProcess:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.stop()


def start_in_process(*, speed: float = 1.0) -> SandboxProcess:
    """Start a fresh sandbox on 127.0.0.1 at a free port in a child process; returns at once."""
    # A file, not a pipe: nobody reads the child's errors until it fails, and a full pipe would
    # stall it. Nothing reaches the terminal under the full-screen console.
    stderr = tempfile.TemporaryFile()  # noqa: SIM115 - outlives this call: SandboxProcess reads it
    proc = subprocess.Popen(
        [sys.executable, "-m", "vap_console.sandbox.child", repr(float(speed))],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=stderr,
        # Its own session: ctrl+c at the terminal is the console's to handle; the child stops when
        # the console closes the pipe.
        start_new_session=os.name == "posix",
    )
    return SandboxProcess(proc, stderr)
