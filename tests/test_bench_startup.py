"""`python -m bench startup` measures what it says: each child's own peak memory (not what it
inherited from the bench, which serves a sandbox and a webhook), and the steps of a command under
the profiler, found by the names they have in the code now (a renamed step would read 0 ms)."""

from __future__ import annotations

import os
import sys
from pathlib import Path

from bench import startup


def test_a_childs_peak_memory_is_its_own(tmp_path: Path) -> None:
    held = bytearray(160 << 20)  # this process holds 160 MiB; a child forked from it starts there
    held[::4096] = b"x" * len(held[::4096])
    small = startup.peak_mib([sys.executable, "-c", "pass"], dict(os.environ), runs=1)
    big = startup.peak_mib([sys.executable, "-c", "b = bytearray(96 << 20); b[::4096] = b'x' * len(b[::4096])"],
                           dict(os.environ), runs=1)
    assert small < 96 <= big, (small, big)


def test_the_profile_finds_each_step_of_a_short_command(live_sandbox, tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("VAP_", "RUMIK_"))}
    env.update(XDG_CONFIG_HOME=str(tmp_path), XDG_DATA_HOME=str(tmp_path / "data"),
               VAP_API_KEY="sk_sandbox_agent", VAP_BASE_URL=live_sandbox.base_url)
    got = startup.run_profile(sys.executable, ["variables", "list", "--json"], ["vap_console.cli"], env)
    steps = got["steps"]
    assert isinstance(steps, dict)
    asked = {what: steps[what] > 0 for what, *_ in startup.STEPS}
    # Every step a short command on VAP_API_KEY takes (the profiles file is looked for: there is
    # none), and the keyring never asked.
    assert asked == {what: "keyring" not in what for what, *_ in startup.STEPS}
