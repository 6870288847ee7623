"""`make test`'s fuzz: Schemathesis against the sandbox with its own document, for the
everything-works key and the verified-KYC key. Zero failures: any would be the document lying or
the sandbox wrong.

5 random examples an operation in the fuzzing phase and 15 in the stateful one (about 2,400 requests for the
agent key, 34 s of CPU; 15 random sent 2,590 in 40 s). The random ones are the smallest part: the
coverage phase sends 1,940 requests whatever the count (each field's boundary and invalid classes:
missing, wrong type, out of range, a pattern missed), the examples phase every documented example,
and the stateful phase, kept at 15, still takes 18 different links (create then delete, rent
then read; at 8 it took 10). The seed is fixed, so every run of `make test` sends the same
requests and more examples only lengthen each run; `make soak` runs 300 an operation with the
same checks."""

from __future__ import annotations

import pytest

from tests.sandbox.fuzz import KEYS, run


@pytest.mark.slow
@pytest.mark.timeout(240)
@pytest.mark.parametrize("key", KEYS)
def test_schemathesis_finds_nothing(key: str) -> None:
    outcome = run(key, max_examples=15, fuzz_examples=5)
    print(f"{key}: {outcome.requests} requests in {outcome.seconds:.1f} s")
    assert outcome.stop_reason == "completed"
    # The stateful phase ran through the links (create then delete, rent then read) and the
    # run was not a handful of requests.
    assert outcome.requests > 1000, outcome
    assert not outcome.errors, "\n".join(outcome.errors)
    assert not outcome.failures, "\n\n".join(outcome.failures[:5])
