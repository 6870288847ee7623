"""BilledStarts: which Idempotency-Key a person's next ask for a billed start (a web call) goes
out under, so a Retry after a lost answer cannot start a second call on a server honouring it."""

from __future__ import annotations

from vap_console.api.idempotency import BilledStarts


def test_a_lost_answer_keeps_the_key_and_is_in_doubt_until_a_call_comes_back() -> None:
    starts = BilledStarts()
    first = starts.key_for("kabir")
    starts.failed("kabir", maybe_applied=True)
    assert starts.in_doubt("kabir") and starts.key_for("kabir") == first
    # A refusal after the lost try says nothing about the lost try: still the same key.
    starts.failed("kabir", maybe_applied=False)
    assert starts.in_doubt("kabir") and starts.key_for("kabir") == first
    starts.succeeded("kabir")
    assert not starts.in_doubt("kabir") and starts.key_for("kabir") != first


def test_a_refusal_with_nothing_in_doubt_gives_the_next_ask_a_new_key() -> None:
    starts = BilledStarts()
    first = starts.key_for("kabir")
    starts.failed("kabir", maybe_applied=False)
    assert not starts.in_doubt("kabir") and starts.key_for("kabir") != first


def test_each_agent_has_its_own_key() -> None:
    starts = BilledStarts()
    kabir = starts.key_for("kabir")
    starts.failed("kabir", maybe_applied=True)
    assert starts.key_for("priya") != kabir and not starts.in_doubt("priya")
