"""Schemathesis against the sandbox, in process (ASGI, no port), with the sandbox's own document.

Every check, every phase (examples, coverage, fuzzing, and the stateful phase through the
document's links: create a tool then delete it, rent a number then read the rental), a fixed seed.
``run(key, seconds)`` is the pytest test's short run and ``python -m tests.sandbox.fuzz`` (make
soak) the long one.
"""

from __future__ import annotations

import sys
import time
from dataclasses import dataclass, field

import schemathesis
from schemathesis.config import SchemathesisConfig
from schemathesis.engine import events, from_schema

from vap_console.sandbox.app import create_app
from vap_console.sandbox.clock import VirtualClock
from vap_console.sandbox.gateway import DOCUMENT_PATH
from vap_console.sandbox.keys import by_name

# The everything-works key and the verified-KYC key (rentals in the plain JSON form too).
KEYS = ("agent", "verified")
SEED = 18
ACCEPTED = ["2xx", "3xx", "401", "403", "404", "409", "429", "5xx"]  # Schemathesis's default


@dataclass
class Outcome:
    key: str
    seconds: float = 0.0
    requests: int = 0
    failures: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    stop_reason: str = ""


def config(key: str, *, max_examples: int, seed: int, max_time: int | None,
           fuzz_examples: int | None = None) -> SchemathesisConfig:
    """``fuzz_examples``: the fuzzing phase's random examples an operation, if not ``max_examples``."""
    fuzzing: dict[str, object] = {"enabled": True}
    if fuzz_examples is not None:
        fuzzing["generation"] = {"max-examples": fuzz_examples}
    return SchemathesisConfig.from_dict({
        "seed": seed,
        **({"max-time": max_time} if max_time else {}),
        "headers": {"Authorization": f"Bearer {by_name(key).key}"},
        "checks": {"enabled": True},
        "generation": {"max-examples": max_examples, "deterministic": True, "database": "none"},
        "phases": {
            "examples": {"enabled": True},
            "coverage": {"enabled": True},
            "fuzzing": fuzzing,
            "stateful": {"enabled": True, "max-steps": max_examples},
        },
        "workers": 1,
        # A Hypothesis health check of the generator, not a check of the sandbox: the rental's
        # multipart body (a JSON part with patterns, plus files) rejects many drafts before one
        # fits, and how many depends on what Hypothesis ran earlier in the same process (it failed
        # only inside the whole suite). Every check of the answers stays on.
        "suppress-health-check": ["filter_too_much"],
        # Rules no JSON Schema can state, so a schema-valid body may still meet a 422 here: a
        # variable another tool already feeds, output names repeated in one list (tools); the
        # account's KYC state (the JSON form is only for a verified account), a number the account
        # already holds, and the files' bytes (PDF, JPEG or PNG by content) (rentals). Each is stated
        # in the document's descriptions; every other operation must accept every valid request.
        # Speech: which fields an engine takes, muga's tone tag and script, a text with nothing to
        # speak (400).
        "operations": [
            *({"include-operation-id": operation,
               "checks": {"positive_data_acceptance": {"expected-statuses": [*ACCEPTED, "422"]}}}
              for operation in ("createTool", "rentNumber")),
            {"include-operation-id": "synthesizeSpeech",
             "checks": {"positive_data_acceptance": {"expected-statuses": [*ACCEPTED, "400", "422"]}}},
        ],
    })


def run(key: str, *, max_examples: int = 10, seed: int = SEED, max_time: int | None = None,
        fuzz_examples: int | None = None) -> Outcome:
    """One run against a fresh sandbox (virtual clock, a budget the fuzzer cannot spend)."""
    app = create_app(clock=VirtualClock(), rate_limit=10**9)
    schema = schemathesis.openapi.from_asgi(
        DOCUMENT_PATH, app, config=config(key, max_examples=max_examples, seed=seed, max_time=max_time,
                                          fuzz_examples=fuzz_examples))
    outcome = Outcome(key)
    started = time.monotonic()
    for event in from_schema(schema).execute():
        if isinstance(event, (events.ScenarioFinished, events.FuzzScenarioFinished)):
            outcome.requests += len(event.recorder.interactions)
            for case_id, checks in event.recorder.checks.items():
                for check in checks:
                    if check.failure_info is not None:
                        outcome.failures.append(_describe(event.recorder, case_id, check))
        elif isinstance(event, events.NonFatalError):
            outcome.errors.append(f"{event.label}: {event.info.format()}")
        elif isinstance(event, events.FatalError):
            outcome.errors.append(f"fatal: {event.exception!r}")
        elif isinstance(event, events.EngineFinished):
            outcome.stop_reason = str(event.stop_reason)
    outcome.seconds = time.monotonic() - started
    return outcome


def _describe(recorder: object, case_id: str, check: object) -> str:
    info = check.failure_info  # type: ignore[attr-defined]
    interaction = recorder.interactions.get(case_id)  # type: ignore[attr-defined]
    answer = ""
    if interaction is not None and interaction.response is not None:
        answer = f"\nanswer: {interaction.response.status_code} {interaction.response.content[:600]!r}"
    return (f"{recorder.label}: {check.name}: {info.failure.title}\n"  # type: ignore[attr-defined]
            f"{info.failure.message}\n{info.code_sample}{answer}")


def main(argv: list[str]) -> int:
    max_examples = int(argv[0]) if argv else 100
    failed = False
    for key in KEYS:
        outcome = run(key, max_examples=max_examples)
        print(f"{key}: {outcome.requests} requests in {outcome.seconds:.1f} s, "
              f"{len(outcome.failures)} failures, {len(outcome.errors)} errors ({outcome.stop_reason})")
        for line in outcome.failures + outcome.errors:
            print("  " + line.replace("\n", "\n    "))
        failed = failed or bool(outcome.failures or outcome.errors)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
