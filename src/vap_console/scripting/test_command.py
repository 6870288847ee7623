"""The body of `vap agents test FILE…` (the click command is in scripting/agents.py): files read and
checked whole, options checked, one confirmation, then every run held in the pool
(scripting/test_runs.py), judged (scripting/test_verdicts.py), compared (scripting/compare.py)
and reported as lines, JSON and JUnit with the figures as properties.

Exit 0: everything held; 1: a test failed (an expectation, a pass rate, a budget, or B worse than
the thresholds); 2: a file or an option is wrong, said before any call. An interrupted run exits
130 (scripting/root.py), never 0.
"""

from __future__ import annotations

import asyncio
import xml.etree.ElementTree as ET
from dataclasses import dataclass, replace
from functools import partial
from pathlib import Path
from typing import Any

import click

from vap_console.literal import clean, xml_text
from vap_console.scripting import agent_tests as at
from vap_console.scripting.base import EXIT_REFUSED, EXIT_USAGE, Failure, Session, emit_json, say
from vap_console.scripting.compare import HEADERS, Pair, pairs_of
from vap_console.scripting.test_gates import Gates, Thresholds, flagged, with_flags
from vap_console.scripting.test_runs import Job, RunResult, Slots, jobs_of, run_all
from vap_console.scripting.test_verdicts import Verdict, verdicts_of

TEST_COST = "a call over the agent socket billed from the moment the agent answers until it ends"


@dataclass(frozen=True)
class Options:
    agent_override: str | None = None
    junit_path: Path | None = None
    yes: bool = False
    repeat: int | None = None
    min_pass_rate: float | None = None
    parallel: int = 1
    compare: tuple[str, str] | None = None
    max_p95_regression: float | None = None
    max_cost_increase: float | None = None


@dataclass
class Side:
    """The suite held with one agent: each file's verdicts."""

    label: str  # "" without --compare, else "A" or "B"
    verdicts: list[tuple[list[Verdict], Verdict]]
    results: list[RunResult]

    @property
    def held(self) -> bool:
        return all(v.held for each, whole in self.verdicts for v in [*each, whole])


def _checked(files: tuple[Path, ...], options: Options) -> list[at.TestFile]:
    """Every file read and every option checked: a mistake is a usage error before any call."""
    try:
        loaded = [at.load(path) for path in files]
    except at.TestFileError as exc:
        raise Failure(f"{exc}; nothing was sent", EXIT_USAGE) from None
    if options.compare is not None:
        if options.agent_override:
            raise Failure("--agent and --compare: --compare names both agents; give one or the other. "
                          "Nothing was sent", EXIT_USAGE)
        if options.compare[0] == options.compare[1]:
            raise Failure("--compare: REF_A and REF_B must be two agents; nothing was sent", EXIT_USAGE)
    else:
        for test_file in loaded:
            if not (options.agent_override or test_file.agent):
                raise Failure(f"{test_file.path}: agent: required (or --agent REF); nothing was sent", EXIT_USAGE)
    if options.junit_path is not None and not options.junit_path.parent.is_dir():
        raise Failure(f"--junit: the folder {options.junit_path.parent} does not exist; nothing was sent", EXIT_USAGE)
    return [replace(t, suite=with_flags(t.suite, repeat=options.repeat, min_pass_rate=options.min_pass_rate,
                                        max_p95_regression=options.max_p95_regression,
                                        max_cost_increase=options.max_cost_increase)) for t in loaded]


def _gates(test_file: at.TestFile, options: Options) -> dict[int, Gates]:
    suite = test_file.suite.gates
    return {i: flagged(s.gates.under(suite), repeat=options.repeat, min_pass_rate=options.min_pass_rate)
            for i, s in enumerate(test_file.conversations)}


def run_tests(session: Session, files: tuple[Path, ...], options: Options) -> None:
    from vap_console.scripting.agents import _keep_talk_call, _limits, _refuse_a_draft, _terms
    from vap_console.scripting.base import ask_money, confirm_money

    loaded = _checked(files, options)
    confirm_money(session, "vap agents test", yes=options.yes)
    sides = [("A", options.compare[0]), ("B", options.compare[1])] if options.compare else [("", None)]
    plans = [(label, [(t, ref or options.agent_override or t.agent or "", _gates(t, options)) for t in loaded])
             for label, ref in sides]
    calls = sum(g.runs for _, plan in plans for _, _, gates in plan for g in gates.values())
    client = session.client()

    async def go() -> list[Side]:
        async with client:
            for ref in sorted({ref for _, plan in plans for _, ref, _ in plan}):
                await _refuse_a_draft(client, ref)
            said = f"{calls} call{'s' if calls != 1 else ''}, each " + TEST_COST
            ask_money(session, said + _terms(await _limits(client)), yes=options.yes)
            jobs: list[tuple[str, Job]] = []
            for label, plan in plans:
                runs = [(t, ref, [(s, gates[i].runs) for i, s in enumerate(t.conversations)]) for t, ref, gates in plan]
                jobs += [(label, job) for job in jobs_of(runs)]
            labels = {id(j): lbl for lbl, j in jobs}
            results = await run_all(client, [j for _, j in jobs], parallel=options.parallel, slots=Slots(client),
                                    on_call_started=partial(_keep_talk_call, session),
                                    on_result=partial(_kept_and_reported, session, labels))
            out = []
            for label, plan in plans:
                mine = [r for r, (lbl, _) in zip(results, jobs, strict=True) if lbl == label]
                verdicts = [verdicts_of(t, gates, [r for r in mine if r.job.test_file is t]) for t, _, gates in plan]
                out.append(Side(label, verdicts, mine))
            return out

    sides_held = asyncio.run(go())
    _finish(session, options, loaded, sides_held)


def _line(ok: bool | None, where: str, what: str, detail: str = "", *, flaky: bool = False,
          figures: bool = False) -> str:
    """``figures``: a gate's line, which says what was measured whether it held or not."""
    word = "FLAKY" if flaky else "PASS" if ok else "FAIL"
    return f"{word}  {where} › {what}" + (f": {detail}" if detail and (not ok or flaky or figures) else "")


def _echo(line: str, as_json: bool) -> None:
    # With --json the document on stdout is the report; the lines go to stderr for the person.
    if as_json:
        say(line)
    else:
        click.echo(clean(line, multiline=False))


def _kept_and_reported(session: Session, labels: dict[int, str], result: RunResult) -> None:
    """A run held: its answer times kept on its call in the ledger (issue 34), its checks said."""
    from vap_console.scripting.agents import _keep_answer_times

    _keep_answer_times(session, result.call_id, result.answer_ms)
    _report_run(session.as_json, labels, result)


def _report_run(as_json: bool, labels: dict[int, str], result: RunResult) -> None:
    side = labels.get(id(result.job), "")
    for check in result.checks:
        where = f"{side} {check.conversation}" if side else check.conversation
        _echo(_line(check.ok, where, check.what, check.detail), as_json)


def _report_verdicts(side: Side, as_json: bool) -> None:
    for each, whole in side.verdicts:
        for verdict in [*each, whole]:
            for check in verdict.checks:
                where = f"{side.label} {check.conversation}" if side.label else check.conversation
                flaky = check.what == "pass rate" and verdict.outcome == "flaky"
                _echo(_line(check.ok, where, check.what, check.detail, flaky=flaky, figures=True), as_json)


def _finish(session: Session, options: Options, loaded: list[at.TestFile], sides: list[Side]) -> None:
    for side in sides:
        _report_verdicts(side, session.as_json)
    pairs: list[Pair] = pairs_of(sides[0].verdicts, sides[1].verdicts) if len(sides) == 2 else []
    thresholds = loaded[0].suite.thresholds if loaded else Thresholds()
    worse = [reason for pair in pairs for reason in pair.worse(_thresholds_of(pair, loaded, thresholds))]
    if pairs and not session.as_json:
        from vap_console.scripting.base import emit_rows
        from vap_console.scripting.output import Fit

        # At 80 columns the medians go first: the gates are on p95, pass rate and credits.
        emit_rows(session, HEADERS, [p.row() for p in pairs], empty="",
                  fit=Fit("CONVERSATION", drop=("P50 A", "P50 B", "P95 A", "CREDITS A", "PASS A")))
    if session.as_json:
        emit_json(_document(sides, pairs, worse, options))
    if options.junit_path is not None:
        try:
            options.junit_path.write_text(_junit(sides, pairs, worse, options), encoding="utf-8")
        except OSError as exc:
            raise Failure(f"--junit: cannot write {options.junit_path} ({exc.strerror})", EXIT_USAGE) from None
    for reason in worse:
        say(f"B is worse: {reason}")
    summary = "; ".join(_summary(side) for side in sides)
    # With --compare, B is the candidate: its own gates and the comparison decide; A only informs.
    failed = bool(worse) or not sides[-1].held
    if failed:
        raise Failure(summary, EXIT_REFUSED)
    say(summary + ".")


def _thresholds_of(pair: Pair, loaded: list[at.TestFile], default: Thresholds) -> Thresholds:
    return next((t.suite.thresholds for t in loaded if str(t.path) == pair.file), default)


def _summary(side: Side) -> str:
    every = [c for r in side.results for c in r.checks]
    failed = sum(not c.ok for c in every)
    conversations = [v for each, _ in side.verdicts for v in each]
    count = len(conversations)
    runs = len(side.results)
    head = f"{side.label} ({side.results[0].job.agent}): " if side.label and side.results else ""
    text = (f"{head}{len(every)} expectation{'s' if len(every) != 1 else ''} in {count} conversation"
            f"{'s' if count != 1 else ''}")
    if runs != count:
        text += f" ({runs} runs)"
    text += f": {len(every) - failed} held, {failed} failed"
    if runs != count or any(v.checks for each, whole in side.verdicts for v in [*each, whole]):
        by = {o: sum(v.outcome == o for v in conversations) for o in ("passed", "flaky", "failed")}
        gated = sum(not v.held for each, whole in side.verdicts for v in [*each, whole])
        text += (f"; conversations {by['passed']} passed, {by['flaky']} flaky, {by['failed']} failed; "
                 f"{gated} gate{'s' if gated != 1 else ''} not held")
    for _, whole in side.verdicts:
        cost = f", {whole.credits:g} credits a pass" if whole.credits is not None else ""
        text += f"; {whole.times.in_words()}{cost}"
    return text


def _document(sides: list[Side], pairs: list[Pair], worse: list[str], options: Options) -> dict[str, Any]:
    def side_doc(side: Side) -> dict[str, Any]:
        return {
            "agent": side.results[0].job.agent if side.results else None,
            "expectations": [{"file": str(r.job.test_file.path), "conversation": c.conversation, "run": r.job.run,
                              "expectation": c.what, "ok": c.ok, "detail": c.detail}
                             for r in side.results for c in r.checks],
            "conversations": [v.as_dict() for each, _ in side.verdicts for v in each],
            "suites": [whole.as_dict() for _, whole in side.verdicts],
            "held": side.held,
        }

    if not options.compare:
        return side_doc(sides[0])
    return {"a": side_doc(sides[0]), "b": side_doc(sides[1]), "compare": [p.as_dict() for p in pairs],
            "worse": worse, "held": not worse and sides[1].held}


def _junit(sides: list[Side], pairs: list[Pair], worse: list[str], options: Options) -> str:
    """at.junit's report (a suite per file and agent, a case per expectation and verdict) with the
    figures as each suite's <properties>, and with --compare a suite of the comparison."""
    results: list[tuple[at.TestFile, list[at.Check]]] = []
    props: list[dict[str, str]] = []
    for side in sides:
        for each, whole in side.verdicts:
            test_file = whole.test_file
            mine = [c for r in side.results if r.job.test_file is test_file for c in r.checks]
            mine += [c for v in [*each, whole] for c in v.checks]
            named = replace(test_file, path=Path(f"{test_file.path} ({side.label} {side.results[0].job.agent})"))\
                if side.label and side.results else test_file
            results.append((named, mine))
            figures: dict[str, str] = {}
            for v in [*each, whole]:
                figures.update(v.properties())
            props.append(figures)
    if pairs:
        checks = [at.Check("compare", reason, False, reason) for reason in worse] or \
                 [at.Check("compare", "B is not worse than A beyond the thresholds", True)]
        assert options.compare is not None
        results.append((at.TestFile(Path(f"compare {options.compare[0]} {options.compare[1]}"), None, 0, []), checks))
        merged: dict[str, str] = {}
        for p in pairs:
            merged.update(p.properties())
        props.append(merged)
    root = ET.fromstring(at.junit(results).split("\n", 1)[1])
    for suite, figures in zip(root.iter("testsuite"), props, strict=True):
        holder = ET.Element("properties")
        for name, value in figures.items():
            ET.SubElement(holder, "property", name=xml_text(name, multiline=False),
                          value=xml_text(value, multiline=False))
        suite.insert(0, holder)
    ET.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"
