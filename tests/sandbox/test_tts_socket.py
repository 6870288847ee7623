"""The speech-synthesis socket (reference/voice.md §5): minted by POST /v1/tts/ws-connect, then
queued → binary PCM → done per synthesis frame, one at a time; cancel, close, the idle timeout,
a token good once, and a concurrent slot held while the socket is open."""

from __future__ import annotations

import asyncio
import json
import threading
import time

import httpx
import pytest
import websockets

from vap_console.sandbox.keys import by_name
from vap_console.sandbox.voice import speech
from vap_console.sandbox.voice.tts_socket import CLOSE_NO_SLOT, CLOSE_UNAUTHORIZED, TOKEN_SECONDS

from .conftest import auth, error_of

LINE = "Namaste! Your order left the warehouse this morning and reaches you tomorrow."
WAIT = 15.0  # seconds any one frame may take on a busy machine


@pytest.fixture
def http(live_sandbox):
    with httpx.Client(base_url=live_sandbox.base_url, headers=auth()) as client:
        yield client


@pytest.fixture
def settings(live_sandbox):
    """The served sandbox's socket settings: as fast as it can send, unless a test slows it."""
    settings = live_sandbox.app.state.speech_sockets.settings
    settings.pace = 0.0
    return settings


def mint(http: httpx.Client, model: str = "mulberry") -> dict:
    response = http.post("/v1/tts/ws-connect", json={"model": model, "text": "init"})
    assert response.status_code == 200, response.text
    return response.json()


def connect(session: dict, token: str | None = None):
    return websockets.connect(f"{session['ws_url']}?token={session['token'] if token is None else token}",
                              max_size=None)


async def frame(ws) -> bytes | dict:
    raw = await asyncio.wait_for(ws.recv(), WAIT)
    return raw if isinstance(raw, bytes) else json.loads(raw)


async def utterance(ws) -> tuple[list[str], bytes, dict]:
    """Frames up to the next ``done``: the kinds in order (``audio`` for binary), the audio, done."""
    kinds, audio = [], bytearray()
    while True:
        got = await frame(ws)
        if isinstance(got, bytes):
            if not kinds or kinds[-1] != "audio":
                kinds.append("audio")
            audio += got
            continue
        kinds.append(got["type"])
        if got["type"] == "done":
            return kinds, bytes(audio), got
        assert got["type"] == "queued", got


async def closed_with(ws) -> int | None:
    """The close code, once the server has closed (frames before it are dropped)."""
    with pytest.raises(websockets.ConnectionClosed) as closed:
        while True:
            await asyncio.wait_for(ws.recv(), WAIT)
    return closed.value.rcvd.code if closed.value.rcvd else None


def active(http: httpx.Client) -> int:
    return http.get("/v1/agent/limits").json()["active_requests"]


async def until_active(http: httpx.Client, expected: int) -> None:
    deadline = time.monotonic() + WAIT
    while (seen := active(http)) != expected:
        assert time.monotonic() < deadline, f"active_requests stayed {seen}, not {expected}"
        await asyncio.sleep(0.01)


def test_the_mint_answers_a_socket_url_a_token_and_a_request_id(http) -> None:
    session = mint(http)
    assert set(session) == {"ws_url", "token", "request_id"}
    assert session["ws_url"].startswith("ws://127.0.0.1:") and session["ws_url"].endswith(session["request_id"])
    assert session["token"].startswith("tts_")
    refused = http.post("/v1/tts/ws-connect", json={"model": "tacotron", "text": ""})
    assert error_of(refused) == (422, "invalid_request")
    assert {d["loc"] for d in refused.json()["details"]} == {"body.model", "body.text"}
    # the vendor's own client mints muga with "init": the tone tag is checked per synthesis frame
    assert mint(http, "muga")["token"] != session["token"]


async def test_a_synthesis_frame_is_queued_then_audio_then_done(http, settings) -> None:
    session = mint(http)
    async with connect(session) as ws:
        await ws.send(json.dumps({"text": LINE, "speaker": "speaker_2", "f0_up_key": 1}))
        kinds, audio, done = await utterance(ws)
    assert kinds == ["queued", "audio", "done"]
    # the same speech /v1/tts makes for the same request
    assert audio == speech.synthesize(LINE, voice="speaker_2", f0_up_key=1)
    assert done["audio_duration"] == pytest.approx(len(audio) / 48_000, abs=0.001)
    assert done["rtf"] > 0


async def test_utterances_are_spoken_one_at_a_time_in_order(http, settings) -> None:
    first, second = "The first line, said in full and at some length.", "And then the second one."
    settings.pace = 0.5  # the first is still being spoken when the second arrives
    controls, audio = [], [bytearray(), bytearray()]
    async with connect(mint(http)) as ws:
        await ws.send(json.dumps({"text": first}))
        assert await frame(ws) == {"type": "queued", "queue_depth": 0}
        await ws.send(json.dumps({"text": second, "speaker": "speaker_3"}))
        while len([c for c in controls if c["type"] == "done"]) < 2:
            got = await frame(ws)
            if isinstance(got, bytes):
                audio[len([c for c in controls if c["type"] == "done"])] += got
            else:
                controls.append(got)
    assert [(c["type"], c.get("queue_depth")) for c in controls] == [("queued", 1), ("done", None), ("done", None)]
    assert bytes(audio[0]) == speech.synthesize(first, voice="speaker_1")
    assert bytes(audio[1]) == speech.synthesize(second, voice="speaker_3")


async def test_cancel_stops_the_audio_and_the_socket_goes_on(http, settings, live_sandbox) -> None:
    settings.pace = 1.0  # real time: a long line takes many seconds, so the cancel lands mid-way
    account = live_sandbox.state.account(by_name("agent"))
    long_line = " ".join([LINE] * 6)
    async with connect(mint(http)) as ws:
        await ws.send(json.dumps({"text": long_line}))
        assert await frame(ws) == {"type": "queued", "queue_depth": 0}
        assert isinstance(await frame(ws), bytes)
        before = account.balance()
        await ws.send(json.dumps({"type": "cancel"}))
        heard = 0
        while (got := await frame(ws)) != {"type": "cancelled"}:
            assert isinstance(got, bytes), got
            heard += len(got)
        assert heard < len(speech.synthesize(long_line, voice="speaker_1")) // 2
        # nothing of the cancelled line comes after: the next frames are the next line's
        settings.pace = 0.0
        await ws.send(json.dumps({"text": "After the cancel."}))
        kinds, audio, _ = await utterance(ws)
    assert kinds == ["queued", "audio", "done"]
    assert audio == speech.synthesize("After the cancel.", voice="speaker_1")
    # the cancelled line was not charged, the one after it was
    assert before - account.balance() == len("After the cancel.") * 500_000


async def test_close_frame_ends_the_socket_normally_and_frees_the_slot(http, settings) -> None:
    async with connect(mint(http)) as ws:
        await until_active(http, 1)
        await ws.send(json.dumps({"type": "close"}))
        assert await closed_with(ws) == 1000
    await until_active(http, 0)


async def test_an_idle_socket_times_out(http, settings) -> None:
    settings.idle_seconds = 0.3
    async with connect(mint(http)) as ws:
        await ws.send(json.dumps({"text": "One line, then silence."}))
        await utterance(ws)
        got = await frame(ws)
        assert got["type"] == "timeout" and "0.3 seconds" in got["message"]
        assert await closed_with(ws) == 1000
    await until_active(http, 0)


async def test_a_frame_breaking_a_rule_is_an_error_and_the_socket_stays(http, settings) -> None:
    async with connect(mint(http, "mulberry")) as ws:
        await ws.send(json.dumps({"text": "hi", "speaker": "ira"}))
        error = await frame(ws)
        assert error["type"] == "error" and error["message"].startswith("speaker must be one of speaker_1")
        await ws.send(json.dumps({"text": "hi", "model": "muga"}))
        assert "model" in (await frame(ws))["message"]
        await ws.send(b"\x00\x01")
        assert "JSON text frames" in (await frame(ws))["message"]
        await ws.send(json.dumps({"type": "dance"}))
        assert "dance" in (await frame(ws))["message"]
        await ws.send(json.dumps({"text": "Now a good one.", "speaker": "speaker_4"}))
        kinds, _, _ = await utterance(ws)
    assert kinds == ["queued", "audio", "done"]


async def test_a_muga_socket_speaks_plain_text_as_the_vendor_s_pipecat_plugin_sends_it(http, settings) -> None:
    # Rumik's plugin mints with "init" and sends {"text": ...} with no tone tag and no model.
    async with connect(mint(http, "muga")) as ws:
        await ws.send(json.dumps({"text": "Namaste, sab theek?"}))
        kinds, audio, _ = await utterance(ws)
    assert kinds == ["queued", "audio", "done"]
    assert audio == speech.synthesize("Namaste, sab theek?", voice="muga")


async def test_a_refused_utterance_gets_an_error_frame_at_once_not_the_idle_timeout(http, settings) -> None:
    settings.idle_seconds = 600  # only an answer to the frame itself can arrive within WAIT
    async with connect(mint(http, "muga")) as ws:
        await ws.send(json.dumps({"text": "[happy] Namaste [sad] phir milenge"}))
        refused = await frame(ws)
        assert refused == {"type": "error", "message": refused["message"]}
        assert "at most one tone tag" in refused["message"]
        await ws.send(json.dumps({"text": "[excited] Namaste, sab theek?"}))
        _, audio, _ = await utterance(ws)
    assert audio == speech.synthesize("[excited] Namaste, sab theek?", voice="muga")


async def test_a_token_is_good_once_and_not_after_it_expires(http, settings, sandbox_clock) -> None:
    session = mint(http)
    for token in ("tts_" + "0" * 32, ""):
        async with connect(session, token) as ws:
            got = await frame(ws)
            assert got["type"] == "error" and "mint a new one" in got["message"]
            assert await closed_with(ws) == CLOSE_UNAUTHORIZED
    async with connect(session) as ws:
        await ws.send(json.dumps({"type": "close"}))
        assert await closed_with(ws) == 1000
    async with connect(session) as ws:  # spent
        assert await closed_with(ws) == CLOSE_UNAUTHORIZED
    late = mint(http)
    sandbox_clock.advance(TOKEN_SECONDS + 1)
    async with connect(late) as ws:  # expired
        assert await closed_with(ws) == CLOSE_UNAUTHORIZED
    await until_active(http, 0)


async def test_the_socket_holds_a_slot_and_a_full_account_is_refused(http, settings) -> None:
    sessions = [mint(http) for _ in range(5)]
    async with connect(sessions[0]) as a, connect(sessions[1]) as b, connect(sessions[2]) as c, \
            connect(sessions[3]) as d:
        await until_active(http, 4)
        async with connect(sessions[4]) as fifth:
            got = await frame(fifth)
            assert got["type"] == "error" and "slots" in got["message"]
            assert await closed_with(fifth) == CLOSE_NO_SLOT
        for ws in (a, b, c, d):
            await ws.send(json.dumps({"type": "close"}))
    await until_active(http, 0)


async def test_the_first_audio_comes_before_the_rest_of_the_text_is_made(http, settings, monkeypatch) -> None:
    release = threading.Event()
    real = speech.synthesize_sentence
    made = []

    def second_waits(text: str, **kwargs) -> bytes:
        if made:
            assert release.wait(WAIT), "the test never let the second sentence be made"
        made.append(text)
        return real(text, **kwargs)

    monkeypatch.setattr(speech, "synthesize_sentence", second_waits)
    text = "The first sentence is said at once. The second one waits for the test."
    async with connect(mint(http)) as ws:
        await ws.send(json.dumps({"text": text}))
        assert await frame(ws) == {"type": "queued", "queue_depth": 0}
        first = await frame(ws)
        assert isinstance(first, bytes)  # while the second sentence is not made yet
        assert made == ["The first sentence is said at once."]
        release.set()
        _, rest, _ = await utterance(ws)
    assert len(made) == 2
    monkeypatch.undo()
    assert first + rest == speech.synthesize(text, voice="speaker_1")


async def test_a_client_that_leaves_mid_utterance_frees_its_slot_and_pays_nothing(http, settings, live_sandbox) -> None:
    settings.pace = 1.0
    account = live_sandbox.state.account(by_name("agent"))
    before = account.balance()
    async with connect(mint(http)) as ws:
        await ws.send(json.dumps({"text": " ".join([LINE] * 4)}))
        await frame(ws)
        assert isinstance(await frame(ws), bytes)
        await until_active(http, 1)
    # the client closed without a close frame, mid-utterance
    await until_active(http, 0)
    assert account.balance() == before
