"""The caller's audio on the agent socket: bad frames are reported and the call goes on, speech
over the agent interrupts it, speech then 600 ms of silence is a turn, and the call is recorded."""

from __future__ import annotations

import base64

import pytest

from vap_console.sandbox.voice import speech
from vap_console.sandbox.voice.socket_audio import mix

from .socket_calls import (
    PRIYA_GREETING,
    account_of,
    deltas,
    dialled,
    loud,
    quiet,
    register,
    types,
)

BAD_AUDIO = {
    "not base64": "this is not base64!",
    "odd length": base64.b64encode(b"\x00" * 961).decode(),
    "over a second": base64.b64encode(b"\x00" * 48_002).decode(),
    "not text": 12,
}


@pytest.mark.parametrize("audio", list(BAD_AUDIO.values()), ids=list(BAD_AUDIO))
async def test_a_bad_append_gets_an_error_and_the_call_goes_on(live_sandbox, audio) -> None:
    async with dialled(live_sandbox, (await register(live_sandbox))["access_token"]) as call:
        await call.next()
        await call.greeted()
        await call.send(type="input_audio_buffer.append", audio=audio)
        error = await call.next()
        assert error["type"] == "error" and error["code"] == "invalid_audio" and error["message"]
        events = await call.answered("which city?", "The city is Pune.")
    assert events[-2]["text"] == "The city is Pune."


async def test_a_full_second_per_append_is_accepted(live_sandbox) -> None:
    async with dialled(live_sandbox, (await register(live_sandbox))["access_token"]) as call:
        await call.next()
        await call.greeted()
        await call.append(bytes(48_000))
        assert await call.probe() == []


@pytest.mark.parametrize(("frame", "code"), [
    ("not json", "invalid_frame"),
    ('["a list"]', "invalid_frame"),
    ("[" * 100_000 + "]" * 100_000, "invalid_frame"),
    ('{"type": "response.create"}', "unknown_type"),
    ('{"type": "input_text.send", "text": ""}', "invalid_text"),
    ('{"type": "input_text.send", "text": "' + "x" * 2001 + '"}', "invalid_text"),
])
async def test_a_malformed_frame_is_reported_and_the_call_goes_on(live_sandbox, frame: str, code: str) -> None:
    async with dialled(live_sandbox, (await register(live_sandbox))["access_token"]) as call:
        await call.next()
        await call.greeted()
        await call.ws.send(frame)
        error = await call.next()
        assert (error["type"], error["code"]) == ("error", code)
        await call.send(type="session.close")
        assert await call.to_close() == [{"type": "session.closed", "reason": "client_requested"}]


async def test_speech_over_the_agent_interrupts_it(live_sandbox, sandbox_clock) -> None:
    registered = await register(live_sandbox)
    async with dialled(live_sandbox, registered["access_token"]) as call:
        await call.next()
        await call.until("agent_start_talking")
        sandbox_clock.advance(0.5)  # half a second of the greeting: its first words
        await call.speaker_waits(0.52)
        said = [e["text"] for e in await call.probe() if e["type"] == "transcript.delta"][-1]
        assert PRIYA_GREETING.startswith(said) and said != PRIYA_GREETING
        await call.append(loud(0.1))
        events = await call.until("agent_stop_talking")
        assert events == [{"type": "interruption"}, {"type": "transcript", "role": "assistant", "text": said},
                          events[-1]]
        sandbox_clock.advance(10)
        await call.send(type="session.close")
        after = await call.to_close()
    turn = call.events[call.events.index({"type": "interruption"}):]
    assert "output_audio.delta" not in types(turn)  # nothing more of the cut turn, however long we wait
    assert types(after) == ["session.closed"]
    record = account_of(live_sandbox).calls[registered["call_id"]]
    assert record.transcript == [{"role": "assistant", "content": said}]


async def test_quiet_audio_does_not_interrupt(live_sandbox, sandbox_clock) -> None:
    async with dialled(live_sandbox, (await register(live_sandbox))["access_token"]) as call:
        await call.next()
        await call.until("agent_start_talking")
        await call.append(quiet(1.0))
        events = await call.played(PRIYA_GREETING)
    assert "interruption" not in types(events) and events[-2]["text"] == PRIYA_GREETING


async def test_speech_then_silence_is_a_user_turn_the_agent_answers(live_sandbox) -> None:
    registered = await register(live_sandbox)
    reply = "This is Priya. You said: (speech, 1.2 s). How else can I help?"
    async with dialled(live_sandbox, registered["access_token"]) as call:
        await call.next()
        await call.greeted()
        await call.append(loud(0.6) + quiet(0.2) + loud(0.4) + quiet(0.58))
        assert await call.probe() == []  # 580 ms of silence is still the same turn
        await call.append(quiet(0.02))
        heard = await call.next()
        assert heard == {"type": "transcript", "role": "user", "text": "(speech, 1.2 s)"}
        await call.until("agent_start_talking")
        events = await call.played(reply)
    assert events[-2] == {"type": "transcript", "role": "assistant", "text": reply}
    record = account_of(live_sandbox).calls[registered["call_id"]]
    assert record.transcript[1:] == [{"role": "user", "content": "(speech, 1.2 s)"},
                                     {"role": "assistant", "content": reply}]


async def test_the_record_holds_both_sides_mixed_in_time(live_sandbox, sandbox_clock) -> None:
    registered = await register(live_sandbox)
    async with dialled(live_sandbox, registered["access_token"]) as call:
        await call.next()
        greeting = deltas(await call.greeted())
        caller = quiet(0.5, level=300)
        await call.append(caller)
        await call.send(type="session.close")
        await call.to_close()
    audio = bytes(account_of(live_sandbox).calls[registered["call_id"]].audio)
    agent = b"".join(greeting)
    assert audio[:len(agent)] == agent  # the caller was silent while the agent greeted
    start = len(agent)  # the caller spoke after the greeting, on the same timeline
    assert audio[start:start + len(caller)] == caller
    assert len(audio) == start + len(caller) and len(audio) % speech.SAMPLE_WIDTH == 0


async def test_caller_audio_over_the_agent_is_summed_into_the_record(live_sandbox) -> None:
    registered = await register(live_sandbox)
    async with dialled(live_sandbox, registered["access_token"]) as call:
        await call.next()
        await call.until("agent_start_talking")
        caller = quiet(0.5, level=300)  # under the voice threshold: heard, not an interruption
        await call.append(caller)
        await call.played(PRIYA_GREETING)
        greeting = b"".join(deltas(call.events))
        await call.send(type="session.close")
        await call.to_close()
    audio = bytes(account_of(live_sandbox).calls[registered["call_id"]].audio)
    # The caller's audio lands where the sandbox's clock says it came: right at the greeting's
    # start on a quiet machine, a few frames in on a busy one. Found where the two sides first
    # differ (the caller's first samples may be zero: a few samples earlier at most).
    # (On a starved machine the greeting may even be over first: then the caller follows it.)
    greeting = greeting + bytes(max(0, len(audio) - len(greeting)))
    first = next(i for i in range(len(audio)) if audio[i] != greeting[i]) // 2 * 2

    def summed_at(at: int) -> bool:
        expected = [max(-32768, min(32767, a + b))
                    for a, b in zip(_samples(greeting[at:at + len(caller)]), _samples(caller))]
        return _samples(audio[at:at + len(caller)]) == expected

    at = next((at for at in range(first, max(first - 64, -2), -2) if summed_at(at)), None)
    assert at is not None, "the caller's audio is not summed over the agent's where it begins"
    assert audio[:at] == greeting[:at]
    assert audio[at + len(caller):] == greeting[at + len(caller):len(audio)]


@pytest.mark.parametrize("level", [100, 12_000, 32_767, -32_768])
def test_mixing_two_sides_clips_to_16_bits(level: int) -> None:
    agent = b"".join(v.to_bytes(2, "little", signed=True) for v in (30_000, -30_000, 5, -5) * 50)
    caller = b"".join(v.to_bytes(2, "little", signed=True) for v in (level, level, -level // 2, 0) * 50)
    expected = [max(-32768, min(32767, a + b)) for a, b in zip(_samples(agent), _samples(caller))]
    assert _samples(mix(agent, caller)) == expected


def _samples(pcm: bytes) -> list[int]:
    return [int.from_bytes(pcm[i:i + 2], "little", signed=True) for i in range(0, len(pcm), 2)]
