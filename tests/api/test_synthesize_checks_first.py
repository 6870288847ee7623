"""VapClient.synthesize refuses a request that breaks the engine's rules before sending it (in
words naming the field), sends the voice asked for, and answers the sandbox's WAV (24 kHz mono
16-bit) as bytes; an answer that is not that WAV is refused, saying what it is."""

from __future__ import annotations

import io
import json
import wave

import httpx
import pytest

from vap_console.api import VapClient, errors
from vap_console.api.speech import SpeechRequestError, wav_info, wav_problem


@pytest.mark.parametrize(("kwargs", "field"), [
    ({"text": "Hello [happy]", "model": "muga"}, "text"),
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


def _wav(rate: int = 24_000, channels: int = 1, width: int = 2) -> bytes:
    out = io.BytesIO()
    with wave.open(out, "wb") as w:
        w.setnchannels(channels)
        w.setsampwidth(width)
        w.setframerate(rate)
        w.writeframes(bytes(rate // 10 * channels * width))
    return out.getvalue()


@pytest.mark.parametrize(("voice", "sent"), [
    ({"model": "mulberry-1.6", "speaker": "ira"}, {"model": "mulberry-1.6", "speaker": "ira"}),
    ({"model": "mulberry", "description": "a calm woman"}, {"model": "mulberry", "description": "a calm woman"}),
    ({"model": "mulberry", "speaker": None, "description": None}, {"model": "mulberry"}),
])
async def test_the_voice_asked_for_is_the_voice_sent(voice, sent) -> None:
    bodies: list[dict] = []

    def answer(request: httpx.Request) -> httpx.Response:
        bodies.append(json.loads(request.content))
        return httpx.Response(200, content=_wav(), headers={"content-type": "audio/wav"})

    async with VapClient("http://127.0.0.1:9", "sk_sandbox_agent", transport=httpx.MockTransport(answer)) as client:
        assert await client.synthesize("Hello there.", **voice) == _wav()
    assert bodies == [{"text": "Hello there.", **sent}]


@pytest.mark.parametrize(("body", "words"), [
    (b"<html>Welcome to nginx</html>", "it is not a WAV file (Error)"),
    (_wav(rate=48_000, channels=2), "it is 48000 Hz, 2 channel(s), 16-bit NONE, not 24000 Hz mono 16-bit PCM"),
    (_wav(rate=16_000, width=1), "it is 16000 Hz, 1 channel(s), 8-bit NONE, not 24000 Hz mono 16-bit PCM"),
])
async def test_an_answer_that_is_not_the_promised_wav_is_refused_in_words(body: bytes, words: str) -> None:
    transport = httpx.MockTransport(lambda r: httpx.Response(200, content=body, headers={"content-type": "audio/wav"}))
    async with VapClient("http://127.0.0.1:9", "sk_sandbox_agent", transport=transport) as client:
        with pytest.raises(errors.UnexpectedResponse) as caught:
            await client.synthesize("Hello there.", "mulberry")
    assert f"is not the promised audio: {words}; check the base URL" in str(caught.value)


@pytest.mark.parametrize(("text", "words"), [
    ("[cheerful] Hello", "text: [cheerful] is not a muga tone tag: use one of [neutral], [happy], [sad]"),
    ("[happy] Hi [sad] there", "text: may carry at most one tone tag, at the start (found also [sad])"),
])
async def test_a_wrong_tone_tag_is_named_in_the_refusal(text: str, words: str) -> None:
    async with VapClient("http://127.0.0.1:9", "sk_sandbox_agent",
                         transport=httpx.MockTransport(lambda r: httpx.Response(500))) as client:
        with pytest.raises(SpeechRequestError) as caught:
            await client.synthesize(text, "muga")
    assert words in str(caught.value)


async def test_muga_typed_by_a_person_gets_muga_s_rules() -> None:
    # A model name from a shell's argv or the catalogue's JSON is a string of its own, not the
    # literal "muga" the module compares with: the rules must hold for it all the same.
    typed = json.loads('"muga"')
    async with VapClient("http://127.0.0.1:9", "sk_sandbox_agent",
                         transport=httpx.MockTransport(lambda r: httpx.Response(500))) as client:
        with pytest.raises(SpeechRequestError, match="is not a muga tone tag"):
            await client.synthesize("[cheerful] Hello there", typed)
        with pytest.raises(SpeechRequestError, match="may carry at most one tone tag"):
            await client.synthesize("Hello [happy] there", typed)
