"""The call endpoints' error codes, typed and retried only where safe; the web call is never resent;
GET /v1/agents/{ref} and GET /v1/agent/limits with their fallbacks; engines' steering and ttsConfig
checks against the catalogue."""

from __future__ import annotations

import pytest

from tests.api.conftest import error_body, json_response
from vap_console.api import errors
from vap_console.api.models import TtsConfig, VoiceCatalog
from vap_console.api.voices import steering, tts_problems

SESSION = {"token": "t.o.k", "host": "wss://media.example", "roomName": "call-" + "a" * 32,
           "callId": "7d1c1c1e-9a57-4c1e-8f50-0c0d0a0b0c01"}


@pytest.mark.parametrize(("status", "code", "cls", "words"), [
    (409, "agent_not_deployed", errors.AgentNotDeployed, "Deploy it in the dashboard"),
    (402, "insufficient_balance", errors.InsufficientBalance, "Top up"),
    (402, "access_blocked", errors.AccessBlocked, "failed payment"),
    (502, "agent_start_failed", errors.AgentStartFailed, "safe to try again"),
    (503, "not_configured", errors.CallsNotConfigured, "not available on this deployment"),
])
async def test_call_errors_are_typed_and_said_in_words_to_act_on(make_client, status, code, cls, words):
    client, server = make_client(json_response(status, error_body(code, "Server says no")))
    with pytest.raises(cls) as caught:
        await client.start_webcall("ua_front")
    assert caught.value.code == code and caught.value.status == status
    assert "Server says no" in str(caught.value) and words in str(caught.value)
    assert len(server.requests) == 1  # a web call is never sent twice


async def test_a_full_set_of_slots_names_them_and_is_not_waited_out(make_client, sleeps):
    body = error_body("concurrency_limit_exceeded", "Too many calls", active_requests=4, limit=4)
    client, server = make_client(json_response(429, body, {"Retry-After": "1"}))
    with pytest.raises(errors.ConcurrencyLimitExceeded) as caught:
        await client.start_webcall("ua_front")
    assert caught.value.active_requests == 4 and caught.value.limit == 4
    assert "4 of 4 slots are in use" in str(caught.value)
    assert not isinstance(caught.value, errors.RateLimited)
    assert len(server.requests) == 1 and sleeps.waits == []


async def test_the_web_call_is_not_resent_even_after_a_rate_limit_429(make_client, sleeps):
    client, server = make_client(
        json_response(429, error_body("rate_limited", limit=600, current=601), {"Retry-After": "1"}),
        json_response(200, SESSION),
    )
    with pytest.raises(errors.RateLimited):
        await client.start_webcall("ua_front")
    assert len(server.requests) == 1 and sleeps.waits == []


async def test_not_configured_is_not_retried_on_a_get(make_client, sleeps):
    client, server = make_client(json_response(503, error_body("not_configured")), json_response(200, {}))
    with pytest.raises(errors.CallsNotConfigured):
        await client.agent_limits()
    assert len(server.requests) == 1 and sleeps.waits == []


async def test_an_error_code_and_message_body_keeps_both(make_client):
    client, _ = make_client(json_response(402, {"errorCode": "insufficient_balance", "message": "Wallet empty"}))
    with pytest.raises(errors.InsufficientBalance) as caught:
        await client.start_webcall("ua_front")
    assert caught.value.code == "insufficient_balance" and caught.value.message == "Wallet empty"


async def test_a_bare_message_body_is_still_not_taken_for_the_api(make_client):
    client, _ = make_client(json_response(418, {"message": "I'm a proxy"}))
    with pytest.raises(errors.UnexpectedResponse):
        await client.list_variables()


async def test_get_agent_and_limits_or_not_supported(make_client):
    client, server = make_client(
        json_response(200, {"id": "a-1", "handle": "ua_front", "deployed": False}),
        json_response(404, error_body("agent_not_found")),
        json_response(405, error_body("method_not_allowed")),
        json_response(200, {"concurrency_limit": 4, "active_requests": 1, "plan": "payg"}),
        json_response(404, {"detail": "Not Found"}),
    )
    assert (await client.get_agent("ua_front")).deployed is False
    with pytest.raises(errors.AgentNotFound):
        await client.get_agent("ua_gone")
    with pytest.raises(errors.NotSupported):
        await client.get_agent("ua_front")
    assert (await client.agent_limits()).in_use == "1/4 in use"
    with pytest.raises(errors.NotSupported):
        await client.agent_limits()
    assert [r.url.path for r in server.requests] == [
        "/v1/agents/ua_front", "/v1/agents/ua_gone", "/v1/agents/ua_front", "/v1/agent/limits", "/v1/agent/limits",
    ]


CATALOG = VoiceCatalog.model_validate({
    "defaultModel": "muga",
    "models": [
        {"id": "muga", "label": "Muga", "disabled": False, "voices": [], "languages": [],
         "defaultLanguage": "hinglish", "descriptions": [], "phoneCalls": True},
        {"id": "mulberry", "label": "Mulberry", "disabled": False, "voices": ["speaker_1", "speaker_2"],
         "languages": [], "defaultLanguage": "hindi", "phoneCalls": True,
         "descriptions": [{"id": "calm", "label": "Calm", "subtitle": "", "description": "A calm voice"}]},
        {"id": "mulberry-1.6", "label": "Mulberry 1.6", "disabled": False, "voices": ["ira", "zoya"],
         "languages": [], "defaultLanguage": "english", "descriptions": [], "phoneCalls": False},
    ],
})


def test_steering_lines_say_how_each_engine_is_steered_and_whether_it_takes_phone_calls() -> None:
    muga, mulberry, v16 = (steering(e) for e in CATALOG.models)
    assert muga.startswith("Steered by one leading tone tag ([neutral] [happy]") and "<laugh>" in muga
    assert "no descriptions" in muga and muga.endswith("takes phone calls")
    assert "a description (1 offered) or a preset voice (speaker_1, speaker_2)" in mulberry
    assert v16 == "Steered by a preset voice (ira, zoya) · no phone calls (web calls only)"


@pytest.mark.parametrize(("tts", "expected"), [
    ({"model": "muga", "description": "A calm voice"}, ["ttsConfig.description: must be empty: muga takes no "
                                                       "description; steer it with a leading tone tag such as "
                                                       "[neutral] instead"]),
    ({"model": "mulberry", "voice": "ira"}, ["ttsConfig.voice: 'ira' is not a mulberry voice; use one of "
                                             "speaker_1, speaker_2"]),
    ({"model": "mulberry-1.6"}, ["ttsConfig.voice: mulberry-1.6 needs a preset voice: one of ira, zoya"]),
    ({"model": "mulberry", "voice": "speaker_1", "f0_up_key": 12.5},
     ["ttsConfig.f0_up_key: must be a number from -12 to 12"]),
    ({"model": "bark"}, ["ttsConfig.model: 'bark' is not an engine of this account (it has: muga, mulberry, "
                         "mulberry-1.6)"]),
    ({"model": "mulberry", "voice": "speaker_2", "f0_up_key": 2.0}, []),
    ({"voice": ""}, []),
])
def test_tts_config_is_checked_against_the_catalogue(tts, expected) -> None:
    assert [str(p) for p in tts_problems(TtsConfig.model_validate(tts), CATALOG)] == expected
