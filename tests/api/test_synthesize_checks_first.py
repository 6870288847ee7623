"""VapClient.synthesize refuses a request that breaks the engine's rules before sending it, and
answers the sandbox's WAV (24 kHz mono 16-bit) as bytes."""

from __future__ import annotations

import httpx
import pytest

from vap_console.api import VapClient
from vap_console.api.speech import SpeechRequestError, wav_info, wav_problem


@pytest.mark.parametrize(("kwargs", "field"), [
    ({"text": "Hello", "model": "muga"}, "text"),
    ({"text": "[happy] Hi", "model": "muga", "description": "calm"}, "description"),
    ({"text": "Hi", "model": "mulberry-1.6", "speaker": "speaker_1"}, "speaker"),
    ({"text": "", "model": "mulberry"}, "text"),
    ({"text": "[happy] नमस्ते", "model": "muga"}, "text"),
])
async def test_a_broken_rule_is_refused_naming_the_field_and_nothing_is_sent(kwargs, field) -> None:
    sent: list[httpx.Request] = []
    client = VapClient("http://127.0.0.1:9", "sk_sandbox_agent",
                       transport=httpx.MockTransport(lambda r: sent.append(r) or httpx.Response(500)))
    async with client:
        with pytest.raises(SpeechRequestError) as caught:
            await client.synthesize(**kwargs)
    assert [p.field for p in caught.value.problems] == [field]
    assert str(caught.value).startswith("nothing was sent: " + field + ":")
    assert sent == []


async def test_the_sandbox_answers_a_24khz_mono_wav(sandbox_transport) -> None:
    async with VapClient("http://127.0.0.1:9", "sk_sandbox_agent", transport=sandbox_transport) as client:
        wav = await client.synthesize("[neutral] Namaste! Aapka order aa gaya hai.", "muga")
        spoken = await client.synthesize("Hello there, how are you today?", "mulberry", description="a calm woman")
    assert wav_problem(wav) is None and wav_problem(spoken) is None
    assert wav[:4] == b"RIFF" and wav[8:12] == b"WAVE"
    assert 1.0 < wav_info(wav).seconds < 5.0 and 1.0 < wav_info(spoken).seconds < 5.0
