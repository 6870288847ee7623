"""The README's commands run as written: the closest honest equivalent of pasting each into a shell.

Every line of its ``sh`` blocks is taken: make targets must exist, `. .venv/bin/activate` must put
`vap` on PATH, and each `vap …` command is run — for real where it ends by itself (`vap profiles`,
`vap sandbox serve`, `vap rental watch` on a seeded rental; `vap web --sandbox` is started, its URL
opened, then stopped with Ctrl+C as a person would), with `--help` where it would open the
full-screen console or ask for a key (proving the command and every option it shows exist).
"""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
import sys
import urllib.request
from pathlib import Path

import pytest

from tests.net import wait_for_port
from vap_console.sandbox.keys import DEFAULT_KEY
from vap_console.scripting import AREAS as SCRIPTING_AREAS

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text()
BIN = Path(sys.executable).parent
# Placeholders the README uses, and what a reader would type for them.
PLACEHOLDERS = {"URL": "http://127.0.0.1:8787", "NAME": "work", "RENTAL_ID": "rental-id"}


def shell_lines() -> list[str]:
    lines = []
    for block in re.findall(r"```sh\n(.*?)```", README, flags=re.S):
        for line in block.splitlines():
            command = line.split("  #")[0].split("# ")[0].strip() if not line.lstrip().startswith("#") else ""
            if command:
                lines.append(command)
    return lines


def deploy_line() -> str:
    """The README's sandbox-only deploy command (a curl line)."""
    return next(line.strip() for line in README.splitlines() if line.startswith("curl -X POST") and "/deploy" in line)


def run(args: list[str], env: dict[str, str] | None = None, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    return subprocess.run(args, capture_output=True, text=True, timeout=timeout, cwd=ROOT,
                          env={**os.environ, **(env or {})})


def test_the_readme_shows_both_set_up_commands_first() -> None:
    assert shell_lines()[:2] == ["make demo", "make test"]


@pytest.mark.parametrize("line", [line for line in shell_lines() if line.startswith("make ")])
def test_each_make_target_exists(line: str) -> None:
    result = run(["make", "-n", *shlex.split(line)[1:]])
    assert result.returncode == 0, result.stderr


def test_activating_the_venv_puts_vap_on_path() -> None:
    assert ". .venv/bin/activate" in shell_lines()
    result = run(["bash", "-c", f". {BIN / 'activate'} && command -v vap && vap --version"])
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines()[0] == str(BIN / "vap")


def vap_commands() -> list[list[str]]:
    commands = []
    for line in shell_lines():
        if line.startswith("vap"):
            commands.append([PLACEHOLDERS.get(word, word) for word in shlex.split(line)])
    return commands


@pytest.mark.parametrize("command", vap_commands(), ids=lambda c: " ".join(c))
def test_each_vap_command_and_its_options_exist(command: list[str], tmp_path: Path) -> None:
    result = run([str(BIN / "vap"), *command[1:], "--help"], env={"XDG_CONFIG_HOME": str(tmp_path)})
    assert result.returncode == 0, result.stderr
    # argparse (the console's commands) or click (the area commands for scripts)
    assert result.stdout.lower().startswith("usage: vap")


@pytest.mark.slow
def test_the_commands_that_end_by_themselves_run_for_real(tmp_path: Path) -> None:
    env = {"XDG_CONFIG_HOME": str(tmp_path / "config"), "XDG_DATA_HOME": str(tmp_path / "data"),
           "VAP_API_KEY": "", "VAP_BASE_URL": ""}
    assert ["vap", "profiles"] in vap_commands() and ["vap", "sandbox", "serve"] in vap_commands()
    profiles = run([str(BIN / "vap"), "profiles"], env=env)
    assert profiles.returncode == 0 and "run `vap login`" in profiles.stdout

    serve = subprocess.Popen([str(BIN / "vap"), "sandbox", "serve", "--port", "0"], cwd=ROOT,
                             stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
                             env={**os.environ, **env})
    try:
        assert serve.stdout is not None
        first = serve.stdout.readline()  # "vap sandbox serving at http://127.0.0.1:PORT  (…)"
        url = next(word for word in first.split() if word.startswith("http://"))
        wait_for_port(int(url.rsplit(":", 1)[1]))
        request = urllib.request.Request(f"{url.rstrip('/')}/v1/phone-numbers",
                                         headers={"Authorization": "Bearer sk_sandbox_agent"})
        rentals = json.load(urllib.request.urlopen(request, timeout=30))["items"]
        active = next(r["id"] for r in rentals if r["status"] == "active")
        watch = run([str(BIN / "vap"), "rental", "watch", active],
                    env={**env, "VAP_API_KEY": "sk_sandbox_agent", "VAP_BASE_URL": url})
        assert watch.returncode == 0, watch.stderr
        assert watch.stdout.splitlines()[-1].startswith("active +")
        # The area commands for scripts, as written (the sandbox's seed has the agent they name).
        for command in vap_commands():
            if command[1:2] and command[1] in SCRIPTING_AREAS and not set(command) & set(PLACEHOLDERS.values()):
                done = run([str(BIN / "vap"), *command[1:]],
                           env={**env, "VAP_API_KEY": "sk_sandbox_agent", "VAP_BASE_URL": url})
                assert done.returncode == 0, (command, done.stderr)
        # The sandbox-only deploy, as the README writes it, on the seeded draft.
        request = urllib.request.Request(f"{url.rstrip('/')}/v1/agents",
                                         headers={"Authorization": f"Bearer {DEFAULT_KEY}"})
        draft = next(a for a in json.load(urllib.request.urlopen(request, timeout=30))["items"]
                     if not a["deployed"])
        line = deploy_line().replace("http://127.0.0.1:8787", url.rstrip("/")).replace("AGENT_REF", draft["handle"])
        deployed = run(shlex.split(line))
        assert deployed.returncode == 0 and json.loads(deployed.stdout)["deployed"] is True, deployed.stderr
    finally:
        serve.terminate()
        serve.wait(timeout=30)
    assert serve.returncode == 0


def test_vap_web_serves_its_one_url_until_ctrl_c() -> None:
    assert ["vap", "web", "--sandbox"] in vap_commands()
    from tests.browser import WebServer

    server = WebServer("--sandbox")  # the README's line, on a free port rather than 8000
    try:
        page = urllib.request.urlopen(server.url, timeout=30)
        assert page.status == 200 and "textual" in page.read().decode()
    finally:
        assert server.stop() == 0


def st_line() -> str:
    """The README's Schemathesis example against a running sandbox."""
    return next(line.strip() for line in README.splitlines() if line.startswith("st run http://127.0.0.1:8787/openapi.json"))


@pytest.mark.slow
@pytest.mark.timeout(300)
def test_the_openapi_example_runs_as_written(tmp_path: Path) -> None:
    assert ["vap", "sandbox", "openapi"] in vap_commands()
    printed = run([str(BIN / "vap"), "sandbox", "openapi"])
    assert printed.returncode == 0 and json.loads(printed.stdout)["openapi"].startswith("3.1")
    from vap_console.sandbox.server import start_in_thread

    with start_in_thread(rate_limit=10**6) as sandbox:
        served = json.load(urllib.request.urlopen(f"{sandbox.base_url}/openapi.json", timeout=30))
        assert served == json.loads(printed.stdout)
        line = st_line().replace("http://127.0.0.1:8787", sandbox.base_url)
        args = shlex.split(line)
        # In a scratch directory: Schemathesis keeps a .schemathesis/ cache where it runs.
        done = subprocess.run([str(BIN / args[0]), *args[1:]], capture_output=True, text=True, timeout=280,
                              cwd=tmp_path)
    assert done.returncode == 0, done.stdout[-3000:]
