"""The sandbox's speech engine: real eSpeak NG speech at 24 kHz, the same bytes for the same text
and voice, and a placeholder that keeps the voice endpoints working when the library will not load."""

from __future__ import annotations

import asyncio
import io
import logging
import wave
from array import array

import pytest

from vap_console.sandbox.voice import speech
from vap_console.sandbox.voice.espeak import EngineUnavailable
from vap_console.sandbox.voice.voices import plan

SENTENCE = "Hello, this is the sandbox speaking. Your appointment is on Tuesday at four thirty."


@pytest.fixture(autouse=True)
def fresh_engine():
    speech.reset()
    yield
    speech.reset()


def samples(pcm: bytes) -> array:
    out = array("h")
    out.frombytes(pcm)
    return out


def test_speech_is_a_24_khz_mono_16_bit_wav_from_espeak():
    assert speech.engine() == speech.ESPEAK
    data = speech.wav_bytes(speech.synthesize(SENTENCE, voice="speaker_1"))
    with wave.open(io.BytesIO(data)) as wav:
        assert (wav.getframerate(), wav.getnchannels(), wav.getsampwidth(), wav.getcomptype()) == (24_000, 1, 2, "NONE")
        seconds = wav.getnframes() / wav.getframerate()
    # about 14 words: several seconds of speech, not a tone per word (0.24 s each: 3.4 s)
    assert 4.0 < seconds < 9.0
    assert speech.synthesize(SENTENCE, voice="speaker_1") != speech.tones(SENTENCE)


def test_length_grows_with_the_text():
    once = speech.duration(speech.synthesize(SENTENCE))
    four = speech.duration(speech.synthesize(" ".join([SENTENCE] * 4)))
    assert 3.5 < four / once < 4.5


def test_same_text_and_voice_give_the_same_bytes_whatever_was_said_before():
    first = speech.synthesize(SENTENCE, voice="speaker_2")
    # eSpeak keeps state between utterances in C statics; other speech in between must not show
    speech.synthesize("Something else entirely, said by another voice.", voice="zoya")
    speech.synthesize("[whisper] Ek aur line, dheere se.", voice="muga")
    speech.reset()  # no cache: synthesised again
    assert speech.synthesize(SENTENCE, voice="speaker_2") == first


def test_voices_pitch_and_tones_sound_different():
    said = {voice: speech.synthesize(SENTENCE, voice=voice)
            for voice in ("speaker_1", "speaker_2", "speaker_3", "speaker_4", "ira", "aisha", "siya", "zoya")}
    assert len(set(said.values())) == len(said)
    assert speech.synthesize(SENTENCE, voice="speaker_1", f0_up_key=6) != said["speaker_1"]
    slow = speech.duration(speech.synthesize("[sad] Aaj ka din bahut lamba tha, yaar.", voice="muga"))
    quick = speech.duration(speech.synthesize("[excited] Aaj ka din bahut lamba tha, yaar.", voice="muga"))
    assert slow > quick * 1.2


def test_the_tone_tag_and_events_are_not_read_out():
    plain = speech.duration(speech.synthesize("Theek hai, main check karti hoon.", voice="muga"))
    tagged = speech.duration(speech.synthesize("[neutral] Theek hai, main check karti hoon.", voice="muga"))
    assert tagged == pytest.approx(plain, abs=0.05)


def test_async_callers_are_served_one_at_a_time_with_the_same_bytes():
    texts = [f"Line number {n} of the agent's script." for n in range(4)]
    expected = [speech.synthesize(t, voice="siya") for t in texts]
    speech.reset()

    async def all_at_once() -> list[bytes]:
        return list(await asyncio.gather(*(speech.synthesize_async(t, voice="siya") for t in texts)))

    assert asyncio.run(all_at_once()) == expected


def test_without_the_library_the_placeholder_speaks_after_one_warning(monkeypatch, caplog):
    def broken():
        raise EngineUnavailable("the espeakng-loader package is not installed")

    monkeypatch.setattr(speech, "make_engine", broken)
    speech.reset()
    with caplog.at_level(logging.WARNING, logger="vap_console.sandbox.speech"):
        first = speech.synthesize(SENTENCE)
        speech.synthesize("And a second line.")
    assert first == speech.tones(SENTENCE)
    assert speech.engine() == speech.TONES
    [record] = caplog.records
    assert "espeakng-loader" in record.getMessage() and "placeholder" in record.getMessage()
    assert record.exc_info is None


def test_resampling_keeps_a_ramp_a_ramp():
    ramp = array("h", range(0, 14700, 10))  # 1470 samples at 22 050 Hz
    out = samples(speech.resample_to_24k(ramp.tobytes()))
    assert len(out) == 1600
    # sample j of the output sits at 22 050-Hz position j·147/160: on a ramp of slope 10, 9.1875 j
    assert all(abs(value - 9.1875 * j) <= 1 for j, value in enumerate(out[:-2]))
    assert speech.resample_to_24k(b"") == b""


def test_no_voice_or_tone_clips():
    line = "Namaste! Aapka appointment kal subah das baje confirm ho gaya hai. Haan ji, bilkul!"
    hindi = "नमस्ते, आपका ऑर्डर कल सुबह तक आपके घर पहुँच जाएगा।"
    said = [speech.synthesize(f"[{tone}] {line}", voice="muga")
            for tone in ("neutral", "happy", "sad", "excited", "angry", "whisper")]
    said += [speech.synthesize(text, voice=voice)
             for voice in ("speaker_1", "speaker_2", "speaker_3", "speaker_4", "ira", "aisha", "siya", "zoya")
             for text in (line, hindi)]
    # full scale is 32767: a peak there is a flattened, crackling wave
    assert max(max(map(abs, samples(pcm))) for pcm in said) < 31_000


def test_a_stream_comes_a_sentence_at_a_time_and_joins_to_the_whole():
    text = "[whisper] Pehli baat sun lijiye. Doosri baat bhi zaroori hai! Aur teesri?"

    async def chunks() -> list[bytes]:
        return [pcm async for pcm in speech.synthesize_stream(text, voice="muga")]

    got = asyncio.run(chunks())
    assert len(got) == 3
    assert b"".join(got) == speech.synthesize(text, voice="muga")
    # each sentence keeps the text's tone
    assert got[2] == speech.synthesize("[whisper] Aur teesri?", voice="muga")
    assert got[2] != speech.synthesize("Aur teesri?", voice="muga")


def test_sentences_said_apart_last_as_long_as_the_text_said_at_once():
    text = "Namaste, and thank you for calling. Your appointment is on Tuesday! Please come early. Okay?"
    joined = speech.duration(speech.synthesize(text, voice="siya"))
    espeak = speech.make_engine()
    utterance, spoken = plan(text, "siya")
    at_once = len(speech.resample_to_24k(espeak.render(utterance, spoken))) / 48_000
    # each sentence ends with a sentence's pause, as it does inside the text
    assert joined == pytest.approx(at_once, abs=0.05)
