"""A read-only `vap` command loads what it uses and nothing else (issue 33's start-up).

What a short command does not need is what made it slow beside a plain httpx script: Textual, the
keyring (the key is in VAP_API_KEY), httpx's own command-line tool (click's rest, rich's console,
pygments: httpx loads it whenever click is installed, unless vap says not to before httpx is first
imported), the profiles file's reader and writer when there is no file, the agent socket, the
speech rules, the rental upload, the JUnit writer's pattern, the stand-ins for control characters
the answer does not hold, and every other resource's pydantic models. Each command runs in a
process of its own (the real entry point, `cli.main`) against a served sandbox, and lists what it
loaded. The time itself is measured by `python -m bench startup`, not here.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

SEEDED_CALL = "66f4cf40-e120-5f9c-a804-19221f0e3bcb"
NEVER = ("textual", "vap_console.tui", "keyring", "argparse", "rich.console", "rich.syntax", "pygments",
         "tomli_w", "tomllib", "vap_console.api.realtime", "vap_console.api.speech", "vap_console.api.rental",
         "vap_console.sandbox")
# Each command, and the resource modules of api/models it may build (wire, the base, always).
COMMANDS = {
    "variables list --json": {"tools"},
    "variables list": {"tools"},
    "tools list --json": {"tools"},
    "agents list --json": {"agents"},
    "voices list --json": {"agents"},
    "templates list --json": {"agents"},
    "numbers list --json": {"rentals"},
    f"calls show {SEEDED_CALL} --json": {"calls"},
    "calls list --json": set(),
}
# What the process loaded, as the last line of its stderr: the modules; whether httpx's command-line
# tool is one; whether literal.py made its stand-in tables or its XML pattern (answers with no control
# character need neither).
REPORT = ("import json, sys\nfrom vap_console.cli import main\nrc = main(sys.argv[1:])\nsys.stdout.flush()\n"
          "from vap_console import literal\n"
          "made = literal._table.cache_info().currsize + literal._not_xml.cache_info().currsize\n"
          "print('\\n' + json.dumps([sorted(sys.modules), sys.modules.get('httpx._main') is not None, made]), "
          "file=sys.stderr)\nsys.exit(rc)\n")


def _loaded(command: str, base_url: str, tmp_path: Path) -> tuple[set[str], bool, int, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("VAP_", "RUMIK_"))}
    env.update(XDG_CONFIG_HOME=str(tmp_path), XDG_DATA_HOME=str(tmp_path / "data"),
               VAP_API_KEY="sk_sandbox_agent", VAP_BASE_URL=base_url)
    done = subprocess.run([sys.executable, "-c", REPORT, *command.split()], capture_output=True, text=True,
                          timeout=60, env=env)
    assert done.returncode == 0, done.stderr
    loaded, httpx_cli, made = json.loads(done.stderr.strip().splitlines()[-1])
    return set(loaded), httpx_cli, made, done.stdout


@pytest.mark.parametrize("command", COMMANDS)
def test_a_read_only_command_loads_only_what_it_uses(live_sandbox, tmp_path: Path, command: str) -> None:
    loaded, httpx_cli, made, out = _loaded(command, live_sandbox.base_url, tmp_path)
    assert not {m for m in loaded if m.startswith(NEVER)}, command
    assert not httpx_cli, "httpx's command-line tool was imported"
    assert made == 0, "literal.py built tables or a pattern for text that needed none"
    models = {m.rpartition(".")[2] for m in loaded if m.startswith("vap_console.api.models.")}
    assert models <= {"wire", *COMMANDS[command]}, (command, models)
    if "--json" in command:
        json.loads(out)  # and the command still did its work
    else:
        assert out.strip()


def test_the_sandbox_flag_asks_no_keyring_and_loads_no_console(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("VAP_", "RUMIK_"))}
    env.update(XDG_CONFIG_HOME=str(tmp_path), XDG_DATA_HOME=str(tmp_path / "data"))
    done = subprocess.run([sys.executable, "-c", REPORT, "--sandbox", "variables", "list", "--json"],
                          capture_output=True, text=True, timeout=60, env=env)
    assert done.returncode == 0, done.stderr
    loaded, *_ = json.loads(done.stderr.strip().splitlines()[-1])
    assert not {m for m in loaded if m.startswith(("textual", "vap_console.tui", "keyring"))}
    assert json.loads(done.stdout)


def test_a_refused_command_says_so_without_loading_the_rental_upload(live_sandbox, tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("VAP_", "RUMIK_"))}
    env.update(XDG_CONFIG_HOME=str(tmp_path), XDG_DATA_HOME=str(tmp_path / "data"),
               VAP_API_KEY="sk_sandbox_agent", VAP_BASE_URL=live_sandbox.base_url)
    done = subprocess.run([sys.executable, "-c", REPORT, "tools", "show", "no_such_tool"], capture_output=True,
                          text=True, timeout=60, env=env)
    assert done.returncode == 1 and done.stdout == ""
    said, report = done.stderr.strip().rsplit("\n", 1)
    assert said.startswith("vap: ") and "no_such_tool" in said
    loaded, *_ = json.loads(report)
    assert not {m for m in loaded if m.startswith(NEVER)}
