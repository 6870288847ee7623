"""docs/testing.md's worked example runs as the doc shows it: the sandbox started with the speed
and --faults its `vap sandbox serve` line gives, then each `vap agents test` line of the section
(the suite passes: exit 0; the same suite comparing the two agents: B is worse, exit 1), and the
CI snippet's sandbox step (exit 0, its JUnit written)."""

from __future__ import annotations

import re
import shlex
import shutil
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest

from tests.talk.cli import Talker
from vap_console.sandbox.server import start_in_thread

ROOT = Path(__file__).resolve().parents[2]
DOC = (ROOT / "docs" / "testing.md").read_text(encoding="utf-8")


def _commands(text: str) -> list[list[str]]:
    """Each command line of the text (a trailing backslash continues it), split as a shell would."""
    joined = re.sub(r"\\\n\s*", " ", text)
    return [shlex.split(line.split(" #")[0]) for line in joined.splitlines() if line.strip().startswith("vap ")]


def _section(title: str) -> str:
    start = DOC.index(title)
    end = DOC.find("\n## ", start + 1)
    return DOC[start:end if end != -1 else None]


def _blocks(text: str, kind: str) -> list[str]:
    return re.findall(rf"```{kind}\n(.*?)```", text, re.S)


def _serve_options(command: list[str]) -> tuple[float, str]:
    assert command[:3] == ["vap", "sandbox", "serve"], command
    options = dict(zip(command[3::2], command[4::2], strict=False))
    return float(options["--speed"]), options.get("--faults", "").rstrip("&").strip()


@pytest.fixture
def folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The commands' folder: the repository's examples/ as the doc names them, files written here."""
    shutil.copytree(ROOT / "examples", tmp_path / "examples")
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_the_worked_example_and_its_compare_run_as_the_doc_shows(folder: Path, capsys: Any) -> None:
    section = _section("## A worked example on the sandbox")
    commands = [c for block in _blocks(section, "sh") for c in _commands(block)]
    serve, *tests = commands
    speed, faults = _serve_options(serve)
    assert "agent_delay_ms=" in faults and len(tests) == 2
    with start_in_thread(speed=speed, faults=faults) as sandbox:
        talker = Talker(sandbox, folder, capsys)
        passed = talker(*tests[0][1:])
        assert passed.code == 0, passed.out + passed.err
        assert "0 gates not held" in passed.said
        compared = talker(*tests[1][1:])
    assert compared.code == 1, compared.out + compared.err
    assert "B is worse: in all: B's pass rate 50 % is below A's 100 %" in compared.said
    assert "CONVERSATION" in compared.out or "gives the hours" in compared.out


def test_the_ci_snippets_sandbox_step_passes_and_writes_its_junit(folder: Path, capsys: Any) -> None:
    (ci,) = _blocks(_section("## In CI"), "yaml")
    serve, rehearse, *_ = _commands("\n".join(line.strip().removeprefix("- run: |").strip()
                                              for line in ci.splitlines()).replace("VAP_API_KEY=sk_sandbox_agent "
                                              "VAP_BASE_URL=http://127.0.0.1:8787 \\\n", ""))
    speed, faults = _serve_options(serve)
    with start_in_thread(speed=speed, faults=faults) as sandbox:
        result = Talker(sandbox, folder, capsys)(*rehearse[1:])
    assert result.code == 0, result.out + result.err
    suite = ET.parse(folder / "sandbox.xml").getroot().find("testsuite")
    assert suite is not None and suite.get("failures") == "0"
