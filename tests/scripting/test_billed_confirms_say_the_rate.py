"""`vap agents webcall` and `vap calls place` say the rate with the cost before a billed call:
the one the server publishes (the sandbox, with its call slots), or plainly that none is published
(the real service's slots answer has no price)."""

from __future__ import annotations

import pytest

from tests.scripting.conftest import Vap
from tests.scripting.test_calls_commands import place
from tests.scripting.test_webcall_once import deployed_ref
from tests.tui.test_billed_confirms_say_the_rate import NoPriceLimits

PUBLISHED = "rate: 3 credits per started minute, as this server publishes it"
NONE_PUBLISHED = ("rate: this server publishes no per-minute price; what a call cost (its credits) is on its "
                  "record once it has ended")


@pytest.mark.parametrize("command", ["webcall", "place"])
@pytest.mark.parametrize(("wrapper", "said"), [(None, PUBLISHED), (NoPriceLimits, NONE_PUBLISHED)],
                         ids=["sandbox", "no-price"])
def test_the_cost_said_before_a_billed_call_names_the_rate_or_that_none_is_published(
    vap: Vap, command: str, wrapper, said: str,
) -> None:
    vap.wrap = wrapper
    result = vap("agents", "webcall", deployed_ref(vap), "--yes") if command == "webcall" else place(vap, "+919812340001", "--yes")
    assert result.code == 0, result.err
    err = " ".join(result.err.split())
    assert "This charges your account:" in err and said in err
