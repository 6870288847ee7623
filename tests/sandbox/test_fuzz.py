"""`make test`'s fuzz: Schemathesis against the sandbox with its own document, for the
everything-works key and the verified-KYC key. Zero failures: any would be the document lying or
the sandbox wrong.

15 examples an operation (about 2,500 requests for the agent key, 40 s of CPU): the seed is
fixed, so every run of `make test` sends the same requests and more examples only lengthen each
run; `make soak` runs 300 an operation with the same checks."""

from __future__ import annotations

import pytest

from tests.sandbox.fuzz import KEYS, run


@pytest.mark.slow
@pytest.mark.timeout(240)
@pytest.mark.parametrize("key", KEYS)
def test_schemathesis_finds_nothing(key: str) -> None:
    outcome = run(key, max_examples=15)
    print(f"{key}: {outcome.requests} requests in {outcome.seconds:.1f} s")
    assert outcome.stop_reason == "completed"
    # The stateful phase ran through the links (create then delete, rent then read) and the
    # run was not a handful of requests.
    assert outcome.requests > 1000, outcome
    assert not outcome.errors, "\n".join(outcome.errors)
    assert not outcome.failures, "\n\n".join(outcome.failures[:5])
