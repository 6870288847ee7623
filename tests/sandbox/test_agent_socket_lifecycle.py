"""The realtime agent socket's life as published: 4401 for a bad token, session.created first, the
greeting as an agent turn paced on the clock, session.close, max_duration, the slot and the bill."""

from __future__ import annotations

import itertools
import time
from datetime import timedelta

import httpx
import pytest

from vap_console.sandbox.clock import SystemClock, iso
from vap_console.sandbox.server import start_in_thread
from vap_console.sandbox.voice import speech
from vap_console.sandbox.voice.call_records import COMPLETED, IN_PROGRESS

from .socket_calls import (
    PRIYA_GREETING,
    account_of,
    deltas,
    dialled,
    eventually,
    frame_count,
    limits,
    register,
    speaking_seconds,
    spoken,
    types,
)


async def test_an_unknown_token_is_closed_4401_before_any_frame(live_sandbox) -> None:
    async with dialled(live_sandbox, "wct_" + "0" * 32) as call:
        assert await call.to_close() == []
    assert call.close_code == 4401


async def test_a_token_is_spent_by_its_first_connection(live_sandbox) -> None:
    token = (await register(live_sandbox))["access_token"]
    async with dialled(live_sandbox, token) as call:
        assert (await call.next())["type"] == "session.created"
        async with dialled(live_sandbox, token) as again:
            assert await again.to_close() == []
        assert again.close_code == 4401


async def test_a_token_expires_after_300_seconds_on_the_sandbox_clock(live_sandbox, sandbox_clock) -> None:
    late, in_time = (await register(live_sandbox))["access_token"], (await register(live_sandbox))["access_token"]
    sandbox_clock.advance(299)
    async with dialled(live_sandbox, in_time) as call:
        assert (await call.next())["type"] == "session.created"
        await call.send(type="session.close")
        await call.to_close()
    sandbox_clock.advance(1)
    async with dialled(live_sandbox, late) as call:
        assert await call.to_close() == []
    assert call.close_code == 4401


async def test_session_created_comes_first_with_the_registered_call_id(live_sandbox) -> None:
    registered = await register(live_sandbox)
    async with dialled(live_sandbox, registered["access_token"]) as call:
        created = await call.next()
    assert created["type"] == "session.created"
    assert created["call_id"] == registered["call_id"]
    assert created["sample_rate"] == 24000 and created["channels"] == 1
    assert created["session_id"].startswith("sess_")


async def test_the_agent_greets_first_in_one_whole_turn(live_sandbox, sandbox_clock) -> None:
    async with dialled(live_sandbox, (await register(live_sandbox))["access_token"]) as call:
        await call.next()
        events = await call.greeted()
    kinds = types(events)
    assert kinds[0] == "agent_start_talking" and kinds[1] == "transcript.delta"
    assert kinds[-2:] == ["transcript", "agent_stop_talking"]
    assert set(kinds[1:-2]) == {"transcript.delta", "output_audio.delta"}
    assert events[0]["timestamp"] == iso(sandbox_clock.start)
    assert events[-1]["timestamp"] == iso(sandbox_clock.now())
    assert events[-2] == {"type": "transcript", "role": "assistant", "text": PRIYA_GREETING}
    growing = [e["text"] for e in events if e["type"] == "transcript.delta"]
    assert growing[-1] == PRIYA_GREETING and all(b.startswith(a) for a, b in itertools.pairwise(growing))
    assert len(growing) == len(PRIYA_GREETING.split())
    audio = deltas(events)
    assert all(len(frame) == speech.FRAME_BYTES for frame in audio)
    assert b"".join(audio) == b"".join(speech.frames(spoken(PRIYA_GREETING)))


async def test_audio_is_paced_in_20_ms_frames_on_the_sandbox_clock(live_sandbox, sandbox_clock) -> None:
    async with dialled(live_sandbox, (await register(live_sandbox))["access_token"]) as call:
        await call.until("output_audio.delta")
        await call.speaker_waits(0.02)
        assert "output_audio.delta" not in types(await call.probe())  # the clock has not moved
        sandbox_clock.advance(0.1)
        await call.speaker_waits(0.12)
        assert len(deltas(await call.probe())) == 5


async def test_a_typed_turn_is_echoed_then_answered(live_sandbox) -> None:
    async with dialled(live_sandbox, (await register(live_sandbox))["access_token"]) as call:
        await call.next()
        await call.greeted()
        events = await call.answered("which city are you in?", "The city is Pune.")
    assert events[0] == {"type": "transcript", "role": "user", "text": "which city are you in?"}
    assert events[1]["type"] == "agent_start_talking"
    assert events[-2] == {"type": "transcript", "role": "assistant", "text": "The city is Pune."}
    assert len(deltas(events)) == frame_count("The city is Pune.")


async def test_session_close_is_answered_then_closed_normally(live_sandbox) -> None:
    registered = await register(live_sandbox)
    async with dialled(live_sandbox, registered["access_token"]) as call:
        await call.next()
        await call.greeted()
        await call.send(type="session.close")
        assert await call.to_close() == [{"type": "session.closed", "reason": "client_requested"}]
    assert call.close_code == 1000
    record = account_of(live_sandbox).calls[registered["call_id"]]
    assert record.status == COMPLETED and record.end_reason == "client_requested" and record.kind == "socket"
    assert record.transcript == [{"role": "assistant", "content": PRIYA_GREETING}]


async def test_commit_is_accepted_and_does_nothing(live_sandbox) -> None:
    async with dialled(live_sandbox, (await register(live_sandbox))["access_token"]) as call:
        await call.next()
        await call.greeted()
        await call.send(type="input_audio_buffer.commit")
        assert await call.probe() == []


async def test_a_live_session_holds_a_slot_until_it_ends(live_sandbox) -> None:
    async with dialled(live_sandbox, (await register(live_sandbox))["access_token"]) as call:
        await call.next()
        assert (await limits(live_sandbox))["active_requests"] == 1
        await call.send(type="session.close")
        await call.to_close()
    assert (await limits(live_sandbox))["active_requests"] == 0


async def test_billing_starts_at_session_created_per_started_minute(live_sandbox, sandbox_clock) -> None:
    account = account_of(live_sandbox)
    before = account.balance()
    registered = await register(live_sandbox)
    assert account.balance() == before
    async with dialled(live_sandbox, registered["access_token"]) as call:
        await call.next()
        assert account.balance() == before - 3 * 10**9
        await call.greeted()
        sandbox_clock.advance(60)
        await call.send(type="session.close")
        await call.to_close()
    assert account.balance() == before - 6 * 10**9
    assert account.calls[registered["call_id"]].credits_charged == pytest.approx(6.0)


async def test_the_call_ends_at_max_duration(live_sandbox, sandbox_clock) -> None:
    registered = await register(live_sandbox)
    async with dialled(live_sandbox, registered["access_token"]) as call:
        await call.next()
        await call.greeted()
        record = account_of(live_sandbox).calls[registered["call_id"]]
        assert record.status == IN_PROGRESS
        sandbox_clock.advance(120)
        assert await call.to_close() == [{"type": "session.closed", "reason": "max_duration"}]
    assert call.close_code == 1000
    assert record.status == COMPLETED and record.end_reason == "max_duration"
    assert (record.ended_at - record.started_at).total_seconds() == 120
    assert record.credits_charged == pytest.approx(6.0)  # two started minutes, not a third at 120 s


async def test_a_client_that_just_goes_away_ends_the_call(live_sandbox) -> None:
    registered = await register(live_sandbox)
    async with dialled(live_sandbox, registered["access_token"]) as call:
        await call.next()
    record = account_of(live_sandbox).calls[registered["call_id"]]
    await eventually(lambda: record.status == COMPLETED, what="the call record completed")
    assert record.end_reason == "participant_disconnected"
    assert (await limits(live_sandbox))["active_requests"] == 0



async def test_audio_follows_the_sandbox_speed_on_the_real_clock() -> None:
    # --speed 20: the 3.6 s greeting plays in 0.18 s of real time; never faster, and far from the
    # 3.6 s it takes at speed 1. Timed from before connecting: a late reader shortens no bound.
    with start_in_thread(clock=SystemClock(speed=20)) as sandbox:
        token = (await register(sandbox))["access_token"]
        dialling = time.monotonic()
        async with dialled(sandbox, token) as call:
            await call.until("agent_stop_talking")
            took = time.monotonic() - dialling
    assert len(deltas(call.events)) == frame_count(PRIYA_GREETING)
    assert speaking_seconds(PRIYA_GREETING) / 20 <= took < speaking_seconds(PRIYA_GREETING)


async def test_the_socket_call_is_read_back_at_get_calls(live_sandbox) -> None:
    registered = await register(live_sandbox)
    async with dialled(live_sandbox, registered["access_token"]) as call:
        await call.next()
        await call.greeted()
        async with httpx.AsyncClient(base_url=live_sandbox.base_url,
                                     headers={"Authorization": "Bearer sk_sandbox_agent"}) as c:
            live = (await c.get(f"/v1/calls/{registered['call_id']}")).json()
            await call.answered("which city?", "The city is Pune.")
            await call.send(type="session.close")
            await call.to_close()
            ended = (await c.get(f"/v1/calls/{registered['call_id']}")).json()
        async with httpx.AsyncClient() as keyless:
            recording = await keyless.get(ended["recordingUrl"])
    assert live["kind"] == "socket" and live["status"] == "in_progress"
    assert ended["status"] == "completed" and ended["endReason"] == "client_requested"
    assert ended["transcript"] == [{"role": "assistant", "content": PRIYA_GREETING},
                                   {"role": "user", "content": "which city?"},
                                   {"role": "assistant", "content": "The city is Pune."}]
    assert ended["creditsCharged"] == 3
    record = account_of(live_sandbox).calls[registered["call_id"]]
    assert recording.status_code == 200 and recording.content == speech.wav_bytes(bytes(record.audio))
    assert len(record.audio) == speech.SAMPLE_WIDTH * round(speech.SAMPLE_RATE * (
        speaking_seconds(PRIYA_GREETING) + speaking_seconds("The city is Pune.")))


async def test_session_close_then_closing_at_once_ends_the_call_as_requested(live_sandbox) -> None:
    # The vendor's reference client hangs up so: session.close, then its own close without waiting.
    registered = await register(live_sandbox)
    async with dialled(live_sandbox, registered["access_token"]) as call:
        await call.next()
        await call.send(type="session.close")
        await call.ws.close()
    record = account_of(live_sandbox).calls[registered["call_id"]]
    await eventually(lambda: record.status == COMPLETED, what="the call record completed")
    assert record.end_reason == "client_requested"
    assert (await limits(live_sandbox))["active_requests"] == 0


async def test_agent_stop_talking_is_stamped_when_its_audio_ends(live_sandbox, sandbox_clock) -> None:
    async with dialled(live_sandbox, (await register(live_sandbox))["access_token"]) as call:
        await call.until("agent_start_talking")
        sandbox_clock.advance(10)  # well past the greeting's end
        stop = (await call.until("agent_stop_talking"))[-1]
    assert stop["timestamp"] == iso(sandbox_clock.start + timedelta(seconds=speaking_seconds(PRIYA_GREETING)))


async def test_a_line_typed_during_the_greeting_follows_the_greeting_in_the_record(live_sandbox) -> None:
    # As Talk shows it: the greeting began first, so it comes first in Calls and the export too.
    registered = await register(live_sandbox)
    async with dialled(live_sandbox, registered["access_token"]) as call:
        await call.until("agent_start_talking")
        await call.send(type="input_text.send", text="which city?")
        await call.until("transcript")  # the echo of the typed line, while the greeting plays
        await call.played(PRIYA_GREETING)
        await call.until("agent_start_talking")
        await call.played("The city is Pune.")
        await call.send(type="session.close")
        await call.to_close()
    record = account_of(live_sandbox).calls[registered["call_id"]]
    assert record.transcript == [{"role": "assistant", "content": PRIYA_GREETING},
                                 {"role": "user", "content": "which city?"},
                                 {"role": "assistant", "content": "The city is Pune."}]
