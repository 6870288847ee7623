"""POST /v1/tts as reference/voice.md §5 publishes it: a 24 kHz mono WAV of the words, the three
engines' rules refused field by field, the 2,000-character limit, a price per character on the
ledger, a concurrent slot held while the speech is made, and the call endpoints' error codes."""

from __future__ import annotations

import asyncio
import io
import threading
import time
import wave

import httpx
import pytest

from vap_console.sandbox.app import create_app
from vap_console.sandbox.clock import VirtualClock
from vap_console.sandbox.keys import by_name
from vap_console.sandbox.voice import speech

from .conftest import auth, error_of, locs

LINE = "Namaste! Your appointment with Doctor Mehta is confirmed for Tuesday at four thirty."


def wav_of(response: httpx.Response) -> tuple[tuple[int, int, int], float, bytes]:
    assert response.status_code == 200, response.text
    assert response.headers["content-type"] == "audio/wav"
    with wave.open(io.BytesIO(response.content)) as wav:
        shape = (wav.getframerate(), wav.getnchannels(), wav.getsampwidth())
        return shape, wav.getnframes() / wav.getframerate(), wav.readframes(wav.getnframes())


def wallet(sandbox_app, key: str = "agent") -> int:
    return sandbox_app.state.sandbox.account(by_name(key)).balance()


async def eventually(probe, expected, timeout: float = 10.0) -> None:
    """Await ``await probe()`` answering ``expected``, or fail after ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while (seen := await probe()) != expected:
        assert time.monotonic() < deadline, f"still {seen!r}, not {expected!r}"
        await asyncio.sleep(0.01)


async def test_a_muga_line_is_a_24_khz_mono_16_bit_wav_of_the_words(client: httpx.AsyncClient) -> None:
    shape, seconds, pcm = wav_of(await client.post("/v1/tts", json={"text": f"[happy] {LINE}"}))
    assert shape == (24_000, 1, 2)
    assert 3.0 < seconds < 10.0
    # the same words the speech engine says for muga, not a placeholder
    assert pcm == speech.synthesize(f"[happy] {LINE}", voice="muga")


async def test_muga_speaks_plain_text_as_the_vendor_s_clients_send_it(client: httpx.AsyncClient) -> None:
    # Rumik's SDK and Pipecat plugin send {"text": "hello", "model": "muga"}: the tone tag is optional.
    shape, seconds, pcm = wav_of(await client.post("/v1/tts", json={"text": "hello", "model": "muga"}))
    assert shape == (24_000, 1, 2) and seconds > 0.2
    assert pcm == speech.synthesize("hello", voice="muga")


async def test_the_length_follows_the_text(client: httpx.AsyncClient) -> None:
    _, once, _ = wav_of(await client.post("/v1/tts", json={"text": LINE, "model": "mulberry"}))
    _, four, _ = wav_of(await client.post("/v1/tts", json={"text": " ".join([LINE] * 4), "model": "mulberry"}))
    assert 3.5 < four / once < 4.5


async def test_two_sandboxes_answer_the_same_request_with_the_same_bytes() -> None:
    bodies = []
    for _ in range(2):
        speech.reset()  # made again, not taken from the cache
        transport = httpx.ASGITransport(app=create_app(clock=VirtualClock()))
        async with httpx.AsyncClient(transport=transport, base_url="http://s", headers=auth()) as c:
            bodies.append((await c.post("/v1/tts", json={"text": LINE, "model": "mulberry",
                                                          "speaker": "speaker_3", "f0_up_key": 2.0})).content)
    assert bodies[0] == bodies[1]


async def test_each_engine_takes_its_own_voices(client: httpx.AsyncClient) -> None:
    said = {}
    for body in ({"model": "mulberry", "speaker": "speaker_1"}, {"model": "mulberry", "speaker": "speaker_4"},
                 {"model": "mulberry", "description": "A calm woman who speaks slowly."},
                 {"model": "mulberry", "speaker": "speaker_1", "f0_up_key": -3.5},
                 {"model": "mulberry-1.6", "speaker": "siya"}, {"model": "mulberry-1.6"}):
        said[str(body)] = wav_of(await client.post("/v1/tts", json={"text": LINE, **body}))[2]
    assert len(set(said.values())) == len(said)
    # mulberry reads Devanagari (as Hindi)
    _, seconds, _ = wav_of(await client.post("/v1/tts", json={"text": "नमस्ते, आपका ऑर्डर कल आ जाएगा।",
                                                              "model": "mulberry"}))
    assert seconds > 1.0


@pytest.mark.parametrize("body, field", [
    ({}, "text"),
    ({"text": "   "}, "text"),
    ({"text": 42}, "text"),
    ({"text": "[happy] hi", "model": "tacotron"}, "model"),
    ({"text": "Namaste [happy] kaise ho?"}, "text"),  # a tone tag that does not lead
    ({"text": "[joyful] Namaste"}, "text"),  # not one of the catalog's tones
    ({"text": "[happy] Namaste [sad] phir milenge"}, "text"),  # two tone tags
    ({"text": "[happy] नमस्ते"}, "text"),  # muga is romanised only
    ({"text": "[happy] hi", "speaker": "speaker_1"}, "speaker"),
    ({"text": "[happy] hi", "description": "A warm voice."}, "description"),
    ({"text": "[happy] hi", "f0_up_key": 2}, "f0_up_key"),
    ({"text": "hi", "model": "mulberry", "speaker": "ira"}, "speaker"),
    ({"text": "hi", "model": "mulberry", "speaker": "speaker_2", "description": "A warm voice."}, "description"),
    ({"text": "hi", "model": "mulberry", "description": "x" * 2001}, "description"),
    ({"text": "hi", "model": "mulberry-1.6", "speaker": "speaker_1"}, "speaker"),
    ({"text": "hi", "model": "mulberry-1.6", "description": "A warm voice."}, "description"),
    ({"text": "hi", "model": "mulberry", "f0_up_key": 12.5}, "f0_up_key"),
    ({"text": "hi", "model": "mulberry", "f0_up_key": True}, "f0_up_key"),
    ({"text": "hi", "model": "mulberry", "temperature": 2.5}, "temperature"),
    ({"text": "hi", "model": "mulberry", "top_p": 1.5}, "top_p"),
    ({"text": "hi", "model": "mulberry", "top_k": 0.5}, "top_k"),
    ({"text": "hi", "model": "mulberry", "repetition_penalty": 9}, "repetition_penalty"),
    ({"text": "hi", "model": "mulberry", "max_new_tokens": 0}, "max_new_tokens"),
])
async def test_every_engine_rule_is_refused_naming_its_field(
    client: httpx.AsyncClient, sandbox_app, body: dict, field: str,
) -> None:
    before = wallet(sandbox_app)
    response = await client.post("/v1/tts", json=body)
    assert error_of(response) == (422, "invalid_request")
    assert locs(response) == {f"body.{field}"}
    assert wallet(sandbox_app) == before


async def test_every_failing_rule_is_listed_at_once(client: httpx.AsyncClient) -> None:
    response = await client.post("/v1/tts", json={"text": "Namaste [happy]", "speaker": "speaker_1", "top_p": 2})
    assert locs(response) == {"body.text", "body.speaker", "body.top_p"}


async def test_the_text_is_at_most_2000_characters(client: httpx.AsyncClient, sandbox_app) -> None:
    longest = ("Ek do teen char paanch. " * 100)[:2000]
    # max_new_tokens keeps the audio (and the test) short: a cap on the length, 80 ms a token
    _, seconds, _ = wav_of(await client.post("/v1/tts", json={"text": longest, "model": "mulberry",
                                                              "max_new_tokens": 25}))
    assert seconds == pytest.approx(2.0)
    before = wallet(sandbox_app)
    too_long = await client.post("/v1/tts", json={"text": longest + "!", "model": "mulberry"})
    assert error_of(too_long) == (422, "invalid_request")
    assert too_long.json()["details"] == [{"loc": "body.text", "message": "must be at most 2000 characters (it has 2001)"}]
    assert wallet(sandbox_app) == before


async def test_a_text_with_nothing_to_say_is_a_400(client: httpx.AsyncClient) -> None:
    response = await client.post("/v1/tts", json={"text": "[happy] 😀🎉 <wink> !!"})
    assert error_of(response) == (400, "invalid_request")
    assert locs(response) == {"body.text"}
    # a known event is said (as an interjection)
    wav_of(await client.post("/v1/tts", json={"text": "[happy] <laugh>"}))


async def test_speech_is_charged_per_character_on_the_ledger(client: httpx.AsyncClient, sandbox_app) -> None:
    before = wallet(sandbox_app)
    wav_of(await client.post("/v1/tts", json={"text": LINE, "model": "mulberry"}))
    # ₹0.50 per 1,000 characters for mulberry
    assert before - wallet(sandbox_app) == len(LINE) * 500_000
    middle = wallet(sandbox_app)
    wav_of(await client.post("/v1/tts", json={"text": f"[sad] {LINE}"}))
    # ₹1.00 per 1,000 for muga, the tag counted
    assert middle - wallet(sandbox_app) == (len(LINE) + 6) * 1_000_000
    entry = sandbox_app.state.sandbox.account(by_name("agent")).ledger[-1]
    assert entry.memo == f"speech: {len(LINE) + 6} characters of muga"


@pytest.mark.parametrize("key, expected", [
    ("noagents", (503, "not_configured")),
    ("blocked", (402, "access_blocked")),
    ("nobalance", (402, "insufficient_balance")),
    ("noscope", (403, "forbidden_scope")),
    ("revoked", (401, "unauthorized")),
])
async def test_the_accounts_that_cannot_have_speech_are_told_why(
    sandbox_transport: httpx.ASGITransport, sandbox_app, key: str, expected: tuple[int, str],
) -> None:
    async with httpx.AsyncClient(transport=sandbox_transport, base_url="http://sandbox",
                                 headers=auth(by_name(key).key)) as c:
        for path, body in (("/v1/tts", {"text": f"[happy] {LINE}"}), ("/v1/tts/ws-connect", {"model": "muga",
                                                                                           "text": "init"})):
            assert error_of(await c.post(path, json=body)) == expected, path


async def test_a_request_holds_a_slot_while_its_speech_is_made(
    client: httpx.AsyncClient, monkeypatch,
) -> None:
    release = threading.Event()
    real = speech.synthesize

    def held(text: str, **kwargs) -> bytes:
        assert release.wait(10), "the test never released the engine"
        return real(text, **kwargs)

    monkeypatch.setattr(speech, "synthesize", held)

    async def active() -> int:
        return (await client.get("/v1/agent/limits")).json()["active_requests"]

    request = asyncio.create_task(client.post("/v1/tts", json={"text": f"[neutral] {LINE}"}))
    await eventually(active, 1)
    release.set()
    wav_of(await request)
    assert await active() == 0


async def test_with_every_slot_taken_speech_is_refused_and_not_charged(
    client: httpx.AsyncClient, sandbox_app,
) -> None:
    agent = next(a for a in (await client.get("/v1/agents")).json()["items"] if a["deployed"])
    for _ in range(4):
        assert (await client.post("/v1/webcall", json={"agentId": agent["id"]})).status_code == 200
    before = wallet(sandbox_app)
    refused = await client.post("/v1/tts", json={"text": f"[happy] {LINE}"})
    assert error_of(refused) == (429, "concurrency_limit_exceeded")
    assert refused.json()["active_requests"] == 4 and refused.json()["limit"] == 4
    assert error_of(await client.post("/v1/tts/ws-connect", json={"model": "muga", "text": "init"})) == (
        429, "concurrency_limit_exceeded")
    assert wallet(sandbox_app) == before
