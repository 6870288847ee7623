"""`vap voices say`: a valid 24 kHz mono WAV of the text, to a file or a pipe, never a terminal;
the engine's rules refused before sending; the same sample twice sends one request; paid only
off the sandbox, where it asks first."""

from __future__ import annotations

import io
import os
import subprocess
import sys
import wave
from pathlib import Path

import httpx
import pytest

from tests.credentials.backends import isolate_xdg
from tests.scripting.conftest import Counting, Vap, no_wait
from vap_console.api import VapClient
from vap_console.credentials import KeyStore, ProfileStore
from vap_console.scripting.base import Session
from vap_console.scripting.root import run

BIN = Path(sys.executable).parent
LINE = "[happy] Namaste! Aapka appointment confirm ho gaya hai."


@pytest.fixture(autouse=True)
def _cache_in_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    isolate_xdg(tmp_path / "xdg", monkeypatch)


def _wav(path: Path) -> tuple[int, int, int, float]:
    with wave.open(io.BytesIO(path.read_bytes()), "rb") as w:
        return w.getframerate(), w.getnchannels(), w.getsampwidth(), w.getnframes() / w.getframerate()


def test_writes_a_24khz_mono_wav_and_the_second_time_sends_nothing(vap: Vap, tmp_path: Path) -> None:
    out = tmp_path / "namaste.wav"
    first = vap("voices", "say", LINE, "--model", "muga", "-o", str(out), "--json")
    assert first.code == 0, first.err
    rate, channels, width, seconds = _wav(out)
    assert (rate, channels, width) == (24_000, 1, 2)
    assert 2.0 < seconds < 6.0  # eight words, said at a speaking pace
    meta = first.json()
    assert meta["cached"] is False and meta["bytes"] == out.stat().st_size and meta["duration"] == round(seconds, 3)
    assert vap.sent.count("POST /v1/tts") == 1

    again = vap("voices", "say", LINE, "--model", "muga", "-o", str(tmp_path / "again.wav"), "--json")
    assert again.code == 0 and again.json()["cached"] is True
    assert vap.sent.count("POST /v1/tts") == 1  # from the cache: no second request
    assert (tmp_path / "again.wav").read_bytes() == out.read_bytes()


def test_muga_says_plain_text_without_a_tone_tag(vap: Vap, tmp_path: Path) -> None:
    # The vendor's own clients send plain text to muga; the tag is optional.
    out = tmp_path / "plain.wav"
    result = vap("voices", "say", "Hello there", "--model", "muga", "-o", str(out))
    assert result.code == 0, result.err
    assert vap.sent == ["POST /v1/tts"] and _wav(out)[0] == 24_000


def test_a_longer_line_lasts_longer(vap: Vap, tmp_path: Path) -> None:
    short, long = tmp_path / "short.wav", tmp_path / "long.wav"
    assert vap("voices", "say", "Hello.", "--model", "mulberry", "--speaker", "speaker_2", "-o", str(short)).code == 0
    assert vap("voices", "say", "Hello. " * 12, "--model", "mulberry", "--speaker", "speaker_2", "-o", str(long)).code == 0
    assert _wav(long)[3] > 5 * _wav(short)[3]


@pytest.mark.parametrize(("args", "field"), [
    (["Hello [happy] there", "--model", "muga"], "text: may carry at most one tone tag, at the start"),
    (["[happy] Hi [sad] there", "--model", "muga"], "text: may carry at most one tone tag"),
    (["[happy] Hi", "--model", "muga", "--speaker", "speaker_1"], "speaker: muga has no preset speakers"),
    (["Hi", "--model", "mulberry", "--speaker", "speaker_9"], "speaker: must be one of speaker_1"),
    (["Hi", "--model", "mulberry", "--speaker", "speaker_1", "--description", "a calm woman"],
     "description: give mulberry a speaker or a description, not both"),
    (["Hi", "--model", "mulberry-1.6", "--description", "calm"], "description: mulberry-1.6 is not steered"),
    (["x" * 2001, "--model", "mulberry"], "text: must be 1 to 2000 characters"),
    (["Hi", "--model", "opus"], "model: must be one of muga, mulberry, mulberry-1.6"),
])
def test_the_engines_rules_are_refused_before_sending(vap: Vap, tmp_path: Path, args: list[str], field: str) -> None:
    result = vap("voices", "say", *args, "-o", str(tmp_path / "x.wav"))
    assert result.code == 2 and "nothing was sent" in result.err and field in result.err, result.err
    assert vap.sent == [] and not (tmp_path / "x.wav").exists()


def test_refuses_to_write_audio_to_a_terminal(vap: Vap) -> None:
    result = vap("voices", "say", LINE, "--model", "muga", terminal=True)
    assert result.code == 2 and "refusing to write binary audio to a terminal" in result.err
    assert vap.sent == []


def _real_service(vap: Vap, *, terminal: bool) -> Session:
    """A session whose base URL is not this machine: the real service, as far as the rules go."""
    store = KeyStore(profiles=ProfileStore(vap.tmp), env={"VAP_API_KEY": vap.key, "VAP_BASE_URL": "https://api.example"})
    transport = Counting(httpx.ASGITransport(app=vap.app), vap.sent)
    return Session(client_factory=lambda url, k: VapClient(url, k, transport=transport, sleep=no_wait),
                   keystore=store, terminal_out=False, terminal_in=terminal)


def test_on_the_real_service_it_needs_yes_without_a_terminal(vap: Vap, tmp_path: Path, capsys) -> None:
    out = tmp_path / "paid.wav"
    capsys.readouterr()
    assert run(["voices", "say", LINE, "--model", "muga", "-o", str(out)], _real_service(vap, terminal=False)) == 2
    assert "costs money" in capsys.readouterr().err and vap.sent == [] and not out.exists()
    assert run(["voices", "say", LINE, "--model", "muga", "-o", str(out), "--yes"],
               _real_service(vap, terminal=False)) == 0
    err = capsys.readouterr().err
    assert "This charges your account: a voice sample of 55 characters of muga, about ₹0.06" in err
    assert vap.sent == ["POST /v1/tts"] and _wav(out)[0] == 24_000


def test_piped_stdout_gets_the_wav(live_sandbox, tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("VAP_", "RUMIK_"))}
    env.update(XDG_CONFIG_HOME=str(tmp_path / "config"), XDG_CACHE_HOME=str(tmp_path / "cache"),
               VAP_BASE_URL=live_sandbox.base_url, VAP_API_KEY="sk_sandbox_agent")
    result = subprocess.run([str(BIN / "vap"), "voices", "say", "Hello there.", "--model", "mulberry"],
                            capture_output=True, timeout=60, env=env)
    assert result.returncode == 0, result.stderr
    (tmp_path / "piped.wav").write_bytes(result.stdout)
    assert _wav(tmp_path / "piped.wav")[:3] == (24_000, 1, 2)
    assert b"Wrote stdout" in result.stderr
    assert list((tmp_path / "cache" / "vap-console" / "samples").glob("*.wav"))  # kept for next time


def test_each_voice_and_description_keeps_its_own_sample(vap: Vap, tmp_path: Path) -> None:
    """A sample kept for one voice is never played back for another, nor one description's for another's."""
    asked = [["--model", "mulberry-1.6", "--speaker", "ira"], ["--model", "mulberry-1.6", "--speaker", "aisha"],
             ["--model", "mulberry", "--description", "a calm woman"], ["--model", "mulberry", "--description", "a brisk man"]]
    first = []
    for n, voice in enumerate(asked):
        result = vap("voices", "say", "Hello there.", *voice, "-o", str(tmp_path / f"{n}.wav"), "--json")
        assert result.code == 0 and result.json()["cached"] is False, (voice, result.err)
        first.append((tmp_path / f"{n}.wav").read_bytes())
    assert vap.sent.count("POST /v1/tts") == len(asked)
    for n, voice in enumerate(asked):
        again = vap("voices", "say", "Hello there.", *voice, "-o", str(tmp_path / f"again{n}.wav"), "--json")
        assert again.json()["cached"] is True and (tmp_path / f"again{n}.wav").read_bytes() == first[n], voice
    assert vap.sent.count("POST /v1/tts") == len(asked)
