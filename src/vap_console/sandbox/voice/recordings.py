"""A call's recording: a signed, expiring URL that serves the call's audio as WAV with no API key.

The real service's ``recordingUrl`` is a signed HTTPS URL, a credential in itself, that expires
(voice.md §4 [T]). The sandbox's is ``/sandbox/recordings/{call_id}?expires=<unix seconds>&
signature=<hex>``: an HMAC-SHA256 of the call id and the expiry under a key of the account's, good
until ``expires`` on the sandbox clock. It is minted afresh each time the call is read
(``RECORDING_URL_SECONDS`` from then). A wrong or missing signature, or an unknown call, is
403 ``recording_url_invalid`` (nothing says whether the call exists); an expired one is 403
``recording_url_expired``. The signing key is derived from the account's fixed seed, so answers are
the same bytes on every run: a sandbox's URLs are not secret, only shaped like ones that are.
"""

from __future__ import annotations

import hashlib
import hmac
from datetime import datetime, timedelta

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import Response

from vap_console.sandbox.gateway import RECORDINGS_PREFIX
from vap_console.sandbox.problems import Problem
from vap_console.sandbox.records import Account
from vap_console.sandbox.voice.call_records import TERMINAL, CallRecord
from vap_console.sandbox.voice.speech import SAMPLE_RATE, SAMPLE_WIDTH, synthesize, wav_bytes
from vap_console.sandbox.wire import sandbox_of

RECORDING_URL_SECONDS = 3600
# Between the turns of a recording made from a transcript (an outbound call's scripted one).
TURN_GAP_SECONDS = 0.5
# The callee of a scripted outbound call: a catalog preset (a man's voice under the real engine).
CALLEE_VOICE = "speaker_2"


def _key(account: Account) -> bytes:
    return hashlib.sha256(b"vap-sandbox-recordings:" + account.key.id_seed.encode()).digest()


def signature(account: Account, call_id: str, expires: int) -> str:
    return hmac.new(_key(account), f"{call_id}:{expires}".encode(), hashlib.sha256).hexdigest()


def recording_url(base_url: str, account: Account, record: CallRecord, now: datetime) -> str | None:
    """The signed URL of the call's recording at ``now``, or None while the call goes on or when
    there is nothing to hear (nobody joined, nobody answered)."""
    seen = record.view(now)
    if seen.status not in TERMINAL or not (seen.audio or seen.transcript):
        return None
    expires = int(now.timestamp()) + RECORDING_URL_SECONDS
    return (f"{base_url.rstrip('/')}{RECORDINGS_PREFIX}{record.id}"
            f"?expires={expires}&signature={signature(account, record.id, expires)}")


def voice_of(account: Account, agent_id: str) -> str:
    """The agent's voice as the speech engine takes it: its preset, else its description, else its
    model's default."""
    agent = account.agents.get(agent_id)
    tts = agent.tts_config if agent is not None else {}
    return str(tts.get("voice") or tts.get("description") or "default")


def audio_of(record: CallRecord, agent_voice: str = "default") -> bytes:
    """The call's PCM: what its owner recorded, else its transcript spoken turn by turn at the
    turns' times (an outbound call's scripted conversation: the agent in ``agent_voice``, the
    callee in another preset), made once and kept."""
    if record.audio:
        return bytes(record.audio)
    pcm = bytearray()
    said_until: datetime | None = None
    ends = record.steps[-1].at if record.steps else record.created_at
    for step in record.steps:
        if step.turn is None:
            continue
        # A turn is said from the end of the one before (and a gap), or from when the call was
        # answered; it runs as long as its speech does, into the next turn's time if it must, and
        # the recording stops where the call does.
        start = record.view(step.at).started_at or record.created_at
        begin = start if said_until is None else said_until + timedelta(seconds=TURN_GAP_SECONDS)
        offset = _samples((begin - start).total_seconds()) * SAMPLE_WIDTH
        if said_until is not None:  # never less than the gap after the turn before
            offset = max(offset, len(pcm) + _samples(TURN_GAP_SECONDS) * SAMPLE_WIDTH)
        if len(pcm) < offset:
            pcm += bytes(offset - len(pcm))
        room = (ends - start).total_seconds() - len(pcm) / (SAMPLE_RATE * SAMPLE_WIDTH)
        voice = agent_voice if step.turn["role"] == "assistant" else CALLEE_VOICE
        pcm += synthesize(step.turn["content"], voice=voice, max_seconds=max(0.0, room))
        said_until = step.at
    record.audio = pcm
    return bytes(pcm)


def _samples(seconds: float) -> int:
    return max(0, int(seconds * SAMPLE_RATE))


def _find(request: Request, call_id: str) -> tuple[Account, CallRecord] | None:
    for account in sandbox_of(request).accounts.values():
        record = account.calls.get(call_id)
        if isinstance(record, CallRecord):
            return account, record
    return None


async def get_recording(request: Request) -> Response:
    """``GET /sandbox/recordings/{call_id}``: no Authorization; the query is the credential."""
    call_id = request.path_params["call_id"]
    expires_text = request.query_params.get("expires", "")
    given = request.query_params.get("signature", "")
    found = _find(request, call_id)
    invalid = Problem(403, "recording_url_invalid",
                      "This recording URL is not valid: read the call again for a fresh one.")
    if found is None or not expires_text.isdigit() or len(expires_text) > 12:
        raise invalid
    account, record = found
    expires = int(expires_text)
    if not hmac.compare_digest(given.encode(), signature(account, call_id, expires).encode()):
        raise invalid
    now = sandbox_of(request).now()
    if now.timestamp() > expires:
        raise Problem(403, "recording_url_expired",
                      "This recording URL has expired: read the call again for a fresh one.")
    if record.view(now).status not in TERMINAL:
        raise Problem(404, "not_found", "This call has no recording yet.")
    # Speaking a transcript takes a while under a real engine: off the event loop, which serves
    # live sockets meanwhile.
    pcm = await run_in_threadpool(audio_of, record, voice_of(account, record.agent_id))
    return Response(wav_bytes(pcm), media_type="audio/wav",
                    headers={"Cache-Control": "private, no-store"})
