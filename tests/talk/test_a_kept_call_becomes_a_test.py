"""`vap calls to-test ID` turns a kept call into a conversation test that `vap agents test` holds
again, as written, against the same agent (docs/testing.md "A call becomes a test")."""

from __future__ import annotations

import json
import stat
from pathlib import Path

from tests.talk.cli import Talker
from tests.talk.gates import PRIYA

TURNS = ("What are your support hours?", "Please book appointment for Friday")


def _talked(talker: Talker) -> str:
    args = [a for say in TURNS for a in ("--say", say)]
    result = talker("agents", "talk", PRIYA, *args, "--yes")
    assert result.code == 0, result.out + result.err
    return talker.started[-1][0]


def test_a_talked_call_becomes_a_test_that_passes_against_the_same_agent(talker: Talker, tmp_path: Path) -> None:
    call_id = _talked(talker)
    path = tmp_path / "from-call.test.json"
    made = talker("calls", "to-test", call_id, "-o", str(path))
    assert made.code == 0, made.out + made.err
    assert f"wrote a test of call {call_id} to {path}" in made.said
    assert stat.S_IMODE(path.stat().st_mode) == 0o600  # a transcript is in it
    data = json.loads(path.read_text(encoding="utf-8"))
    (conversation,) = data["conversations"]
    assert [t["say"] for t in conversation["turns"]] == list(TURNS)
    hours = conversation["turns"][0]["expect"]["resembles"]
    assert "9 am" in hours["text"] and hours["min_share"] == 0.6
    assert "Namaste" in conversation["greeting"]["resembles"]["text"]
    assert conversation["tools_called"] == ["book_appointment"]
    held = talker("agents", "test", str(path), "--yes")
    assert held.code == 0, held.out + held.err
    assert "PASS  call " in held.out and "answer 2" in held.out


def test_without_output_the_test_is_printed_and_an_existing_file_is_kept(talker: Talker, tmp_path: Path) -> None:
    call_id = _talked(talker)
    printed = talker("calls", "to-test", call_id)
    assert printed.code == 0, printed.err
    assert json.loads(printed.out)["conversations"][0]["turns"][0]["say"] == TURNS[0]
    path = tmp_path / "mine.json"
    path.write_text("my own test", encoding="utf-8")
    refused = talker("calls", "to-test", call_id, "-o", str(path))
    assert refused.code == 2
    assert "the file is there already; --force replaces it. Nothing was written" in refused.said
    assert path.read_text(encoding="utf-8") == "my own test"
    forced = talker("calls", "to-test", call_id, "-o", str(path), "--force")
    assert forced.code == 0, forced.err
    assert json.loads(path.read_text(encoding="utf-8"))["agent"]
