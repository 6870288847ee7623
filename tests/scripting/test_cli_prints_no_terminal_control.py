"""Every `vap` command, run against a sandbox whose every string carries terminal control
(`--faults hostile_text=1`: OSC 52, CSI, C1, a bidi override, NUL, U+FFFF in every name, id,
status, reason, role, key and transcript it serves, over HTTP and on the agent socket), prints
no raw control byte: on a terminal, piped, or as --json; on stdout or stderr.

The commands come from the CLI itself (click's tree), so a new one fails
`test_every_command_is_run_here` until it is given arguments below. Ids are passed as the hostile
server spelled them, as a script reading --json would; the sandbox takes its decoration out of
what comes back, so they still reach their records.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import re
import subprocess
import sys
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from pathlib import Path

import click
import pytest

from tests.scripting.example_inputs import example_inputs
from tests.talk.cli import LONG_CALLS, SPEED
from vap_console.credentials import KeyStore, ProfileStore
from vap_console.sandbox.hostile_text import decorate
from vap_console.sandbox.server import RunningSandbox, start_in_thread
from vap_console.scripting.base import Session
from vap_console.scripting.calls import SANDBOX_CALL, SANDBOX_TRUNK
from vap_console.scripting.root import root, run

# A character that steers a terminal: C0 (but tab and newline), DEL, C1, bidi controls, separators.
RAW = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\u2028\u2029]")
# The hostile text, shown: as its stand-ins, or as JSON's escapes.
SHOWN = ("␛]52;c;", "\\u001b]52;c;")

AGENT = decorate("ua_4152f853c72d")  # the seeded deployed agent (Priya)
RENTAL = "25b55625-a295-57db-828b-df59ee38b74a"  # the seeded active rental

# Each command's arguments (a deployed agent, the seeded rental, ...). --yes where money asks.
ARGS: dict[str, list[str]] = {
    "agents create": ["--template", decorate("clinic-receptionist"), "--name", "Front desk"],
    "agents delete": [decorate("ua_6f9fa0107dd9")],
    "agents limits": [],
    "agents list": [],
    "agents show": [AGENT],
    "agents talk": [AGENT, "--say", "What are your support hours?", "--yes"],
    "agents test": ["front-desk.test.json", "--agent", AGENT, "--yes", "--junit", "report.xml"],
    "agents webcall": [AGENT, "--yes"],
    "calls add": [SANDBOX_CALL],
    "calls export": [],
    "calls list": [],
    "calls place": ["--agent", AGENT, "--to", "+919812340001", "--from", decorate(SANDBOX_TRUNK), "--yes"],
    "calls show": [SANDBOX_CALL],
    "calls to-test": [SANDBOX_CALL],
    "calls stats": [],
    "completion": ["bash"],
    "numbers list": [],
    "numbers rent": ["--data", "application.json", "incorporation.pdf", "electricity-bill.pdf", "pan-card.png",
                     "--yes"],
    "numbers requirements": [],
    "numbers search": ["--city", "Mumbai"],
    "numbers show": [decorate(RENTAL)],
    "templates list": [],
    "templates show": [decorate("clinic-receptionist")],
    "tools create": ["--file", "tool.json"],
    "tools delete": [decorate("a23194c9-e643-5204-af92-5245d497b3bf")],
    "tools list": [],
    "tools show": [decorate("lookup_customer")],
    # The request as it would go (the server's URL, headers, body), sent nowhere.
    "tools try": [decorate("lookup_customer"), "--dry-run"],
    "variables list": [],
    "voices list": [],
    "voices say": ["[happy] Namaste", "--model", "muga", "-o", "sample.wav"],
}
# A rental's status from a hostile server is one `watch` does not know: it would watch on for
# ever, so it is run as a process and read until its first line (test_watch_shows_...).
WATCHED = {"numbers watch"}
# What prints nothing of the server's: the shell script, a WAV written to a file (its details
# with --json are the command's own), and a rental refused before it is sent (the hostile
# server's document types match none of the application's).
NOTHING_OF_THE_SERVERS = {"completion", "voices say", "numbers rent"}
MODES = ("terminal", "piped", "json")


def leaf_commands() -> list[str]:
    found: list[str] = []

    def walk(group: click.Group, ctx: click.Context, path: list[str]) -> None:
        for name in group.list_commands(ctx):
            command = group.get_command(ctx, name)
            if isinstance(command, click.Group):
                walk(command, click.Context(command, info_name=name, parent=ctx), [*path, name])
            else:
                found.append(" ".join([*path, name]))

    walk(root, click.Context(root, info_name="vap"), [])
    return found


def test_every_command_is_run_here() -> None:
    assert sorted(leaf_commands()) == sorted([*ARGS, *WATCHED])


@pytest.fixture
def hostile() -> Iterator[RunningSandbox]:
    # Fast, so a conversation's greeting and answers come without the test moving a clock.
    with start_in_thread(speed=SPEED, faults=f"hostile_text=1,{LONG_CALLS}") as running:
        yield running


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    """The files the commands read, where they run (the same as the --help examples')."""
    return example_inputs(tmp_path / "work")


def vap(sandbox: RunningSandbox, where: Path, args: list[str], *, terminal: bool) -> tuple[int, str, str]:
    store = KeyStore(profiles=ProfileStore(where / "profiles"),
                     env={"VAP_API_KEY": "sk_sandbox_agent", "VAP_BASE_URL": sandbox.base_url})
    session = Session(keystore=store, terminal_out=terminal, terminal_in=False, data_dir=where / "data",
                      columns=80)
    out, err = io.StringIO(), io.StringIO()
    with contextlib.chdir(where), contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = run(args, session)
    return code, out.getvalue(), err.getvalue()


def raw_control(text: str) -> str | None:
    found = RAW.search(text)
    return None if found is None else f"{found.group()!r} near {text[max(found.start() - 40, 0):found.end() + 10]!r}"


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("command", sorted(ARGS))
def test_no_server_text_reaches_the_terminal_as_control(command: str, mode: str, hostile: RunningSandbox,
                                                        folder: Path) -> None:
    args = [*command.split(), *ARGS[command], *(["--json"] if mode == "json" else [])]
    if command != "calls add":  # what `calls list`, `show` and `export` have to show: a call kept
        vap(hostile, folder, ["calls", "add", SANDBOX_CALL], terminal=False)
    code, out, err = vap(hostile, folder, args, terminal=mode == "terminal")
    assert "Traceback" not in err and "Error:" not in err.split(":", 1)[0], err
    assert raw_control(out) is None, f"stdout: {raw_control(out)}"
    assert raw_control(err) is None, f"stderr: {raw_control(err)}"
    if command not in NOTHING_OF_THE_SERVERS and not (mode == "json" and command.endswith("delete")):
        # (A delete's answer has no body: with --json it prints nothing at all.)
        # The hostile text did reach the output, shown: the check above saw it.
        assert any(mark in out + err for mark in SHOWN), (code, out[:500], err[:500])
    if mode == "json" and code == 0 and out.strip() and command != "agents talk":
        json.loads(out)  # exact data, escaped
    if command == "agents test":
        ET.parse(folder / "report.xml")  # JUnit: valid XML whatever the server said


def env_for(sandbox: RunningSandbox, home: Path, *, key: bool = True) -> dict[str, str]:
    clean_env = {k: v for k, v in os.environ.items() if not k.startswith("VAP_")}
    env = {**clean_env, "HOME": str(home), "XDG_CONFIG_HOME": str(home / "config"),
           "XDG_DATA_HOME": str(home / "data")}
    return {**env, "VAP_BASE_URL": sandbox.base_url, "VAP_API_KEY": "sk_sandbox_agent"} if key else env


# The console's own commands (argparse): `vap rental watch` and `vap login` print what the server
# said; profiles, logout, sandbox and web print nothing of a server's.
@pytest.mark.parametrize("key", ["sk_sandbox_revoked", "sk_sandbox_noscope"])
def test_login_says_a_hostile_refusal_literally(key: str, hostile: RunningSandbox, tmp_path: Path) -> None:
    said = subprocess.run([sys.executable, "-m", "vap_console", "login", "--profile", "h", "--base-url",
                           hostile.base_url], input=key + "\n", capture_output=True, text=True, timeout=120,
                          env=env_for(hostile, tmp_path, key=False))
    assert said.returncode == 1 and "nothing was stored" in said.stderr, said.stderr
    assert "␛]52;c;" in said.stderr and raw_control(said.stdout + said.stderr) is None


@pytest.mark.parametrize("argv", [["numbers", "watch", RENTAL, "--interval", "0.1"],
                                  ["rental", "watch", RENTAL, "--interval", "0.1"]], ids=" ".join)
def test_watch_shows_a_hostile_status_literally(argv: list[str], hostile: RunningSandbox, tmp_path: Path) -> None:
    with subprocess.Popen([sys.executable, "-m", "vap_console", *argv], stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, stdin=subprocess.DEVNULL,
                          env=env_for(hostile, tmp_path)) as watching:
        try:
            assert watching.stdout is not None
            line = watching.stdout.readline().decode()  # its first status line, however long it takes
        finally:
            watching.kill()
    assert "␛]52;c;" in line, line
    assert raw_control(line) is None, raw_control(line)


def test_a_string_no_command_cleaned_is_still_defused_by_the_writer() -> None:
    """The rule is the writer's, not each command's: text echoed raw by a new command still
    reaches the terminal with its control made visible."""

    @root.command("raw-echo-for-test", hidden=True)
    def raw_echo() -> None:
        click.echo("name \x1b]52;c;aGk=\x07 \x9b2J \u202eevil")
        click.echo("on stderr \x1b]0;title\x07 \x9b2J", err=True)
        print("printed \x00 \x1b]0;title\x07")

    out, err = io.StringIO(), io.StringIO()
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            assert run(["raw-echo-for-test"], Session(terminal_out=True)) == 0
    finally:
        root.commands.pop("raw-echo-for-test")
    assert out.getvalue() == "name ␛]52;c;aGk=␇ \\x9b2J \\u202eevil\nprinted ␀ ␛]0;title␇\n"
    assert err.getvalue() == "on stderr ␛]0;title␇ \\x9b2J\n"
