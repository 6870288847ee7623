import pytest

from vap_console.api import errors
from vap_console.credentials.verify import explain_verify_error

URL = "https://api.example.com"


@pytest.mark.parametrize(
    ("error", "says"),
    [
        (errors.Unauthorized(status=401), "key rejected by api.example.com (HTTP 401 unauthorized)"),
        (errors.ForbiddenScope(status=403), "lacks the agent scope"),
        (errors.ConnectionFailed(), f"could not reach {URL} (connection_failed)"),
        (errors.TimedOut(), f"could not reach {URL} (timed_out)"),
        (errors.NotFound(status=404), f"is {URL} the API's base URL (without /v1)?"),
        (errors.UnexpectedResponse(status=200), "did not answer like the API (unexpected_response)"),
        (errors.RateLimited(status=429, retry_after=7), "Retry after 7 s"),
        (errors.ServerError(status=500), "did not accept the check"),
        (ValueError("boom"), "could not check the key against api.example.com (ValueError)"),
    ],
)
def test_every_failed_check_is_one_sentence_saying_what_to_do(error: Exception, says: str) -> None:
    text = explain_verify_error(error, URL)
    assert says in text
    assert "\n" not in text
