"""A run of `vap agents test` cut short (Ctrl-C, or a run that could not be held to its end for a
reason nobody foresaw) never exits 0 and never writes a JUnit report that says all held."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.talk.cli import Talker
from tests.talk.gates import HOURS, write
from vap_console.scripting import test_runs


@pytest.mark.parametrize(("cut", "code"), [(KeyboardInterrupt, 130), (RuntimeError, 1)])
def test_a_run_cut_short_exits_non_zero_without_a_report(talker: Talker, tmp_path: Path,
                                                          monkeypatch: Any, cut: type[BaseException], code: int) -> None:
    real = test_runs.hold
    held = []

    async def second_is_cut(client: Any, job: Any, slots: Any, on_call_started: Any) -> Any:
        if held:
            raise cut()
        held.append(job)
        return await real(client, job, slots, on_call_started)

    monkeypatch.setattr(test_runs, "hold", second_is_cut)
    path = write(tmp_path, {"agent": talker.ref(), "repeat": 2, "conversations": [HOURS]})
    report = tmp_path / "report.xml"
    result = talker("agents", "test", path, "--yes", "--junit", str(report))
    assert result.code == code
    assert not report.exists() and "held, 0 failed" not in result.said
